"""Issue 34 item 5: the phones as witnesses of the journal.

Deleting the journal's last row and its chain row went unnoticed: `verify` said ok and `serve` started,
and a page that had seen that entry said nothing. (`serve` and `verify` now see that much by the time
line's checkpoint, tests/store/test_chain_witness.py; here the attacker rewrites the checkpoint too.) Now every picture carries the chain's head, each page
keeps the newest it saw (static/js/witness.js) and, when the bank comes back, checks that the bank's
chain still holds it: a team phone and the admin page see entry N, the bank restarts on a journal whose
last row was cut, and both pages say so at once, with both heads; the admin page also lists the phone's
report (bank/web/field/chain_routes.py). A browser behind a TCP proxy (nginx's part), Chromium.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from pathlib import Path

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import SERVERS, serve_in_thread  # noqa: E402
from tcp_proxy import Proxy  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect
CONFIG = Path(__file__).resolve().parents[3] / "config.toml"
LIVE = re.compile("badge-live")


def _app(db: Path):
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    return create_app({"DB": str(db), "CONFIG": str(CONFIG), "PASSWORD_HASH": "pbkdf2:sha256:1000"})


def _book(app, n: int) -> None:
    from bank.web.push.live import broadcaster

    bank = app.extensions["terrabank"].bank
    for i in range(n):
        bank.execute({"id": f"refill-{bank.last_seq}-{i}", "type": "refill", "resource": "water", "amount": 1})
    sender = broadcaster(app)
    sender.flush(sender.ask())  # the pages get the picture of the last entry


def _kept(page) -> dict | None:
    """The head the page keeps (static/js/witness.js), whatever its game's key."""
    kept = page.evaluate("() => { for (var k in localStorage) if (k.indexOf('tb.witness:') === 0) "
                         "return JSON.parse(localStorage.getItem(k)); return null; }")
    return kept and {"seq": kept["seq"], "hash": kept["hash"]}


def _cut_last_row(db: Path) -> None:
    """The attack: the last journal row and its chain row deleted by hand (sqlite3, the guards dropped), and
    the time line's checkpoint told the tail is the row before (else `serve` refuses it: test_chain_witness)."""
    raw = sqlite3.connect(db)
    raw.executescript("DROP TRIGGER journal_no_delete; DROP TRIGGER chain_no_delete; "
                      "DELETE FROM chain WHERE seq = (SELECT MAX(seq) FROM journal); "
                      "DELETE FROM journal WHERE seq = (SELECT MAX(seq) FROM journal); "
                      "UPDATE clock_checkpoint SET seq = (SELECT MAX(seq) FROM chain), head = (SELECT "
                      "COALESCE(b.hash, c.hash) FROM chain c LEFT JOIN chain_snapshot b ON b.seq = c.seq "
                      "ORDER BY c.seq DESC LIMIT 1);")
    raw.close()


def test_a_phone_and_the_admin_page_say_the_bank_lost_the_entry_they_saw(chromium, tmp_path):
    db = tmp_path / "game.db"
    first = _app(db)
    services = first.extensions["terrabank"]
    services.access.add_user("lea", "password1", "lead")
    services.bank.execute({"id": "start", "type": "start_clock"})
    token = services.access.team_tokens()["blue"]
    url, port = serve_in_thread(first)
    proxy = Proxy(port)
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        phone = context.new_page()
        phone.goto(f"{proxy.url}/t/{token}")
        admin = context.new_page()
        admin.goto(proxy.url + "/login")
        admin.fill("#username", "lea")
        admin.fill("#password", "password1")
        admin.click("#login-submit")
        admin.wait_for_url("**/console")
        admin.goto(proxy.url + "/admin")
        for page in (phone, admin):
            expect(page.locator("#conn-badge")).to_have_class(LIVE, timeout=30_000)
        _book(first, 3)
        seen_seq = services.bank.last_seq
        seen_hash = services.bank.chain_head()[1]
        for page in (phone, admin):
            page.wait_for_function(f"() => +document.body.dataset.seq >= {seen_seq}", timeout=30_000)
            page.wait_for_function("(seq) => { for (var k in localStorage) if (k.indexOf('tb.witness:') === 0) "
                                   "return JSON.parse(localStorage.getItem(k)).seq >= seq; return false; }",
                                   arg=seen_seq, timeout=30_000)
        assert _kept(phone) == {"seq": seen_seq, "hash": seen_hash}

        # The bank stops; somebody cuts the last entry; the bank starts again on the same address.
        SERVERS.pop().stop()
        services.bank.close()
        _cut_last_row(db)
        second = _app(db)
        bank = second.extensions["terrabank"].bank
        assert bank.last_seq == seen_seq - 1 and bank.verify() == []  # the bank alone cannot tell any more
        now_seq, now_hash = bank.chain_head()
        _, new_port = serve_in_thread(second)
        proxy.target = ("127.0.0.1", new_port)
        proxy.restore(drop=True)  # the old connections are gone: the pages reconnect, to the new bank

        for page in (phone, admin):
            alarm = page.locator("#chain-alarm")
            expect(alarm).to_be_visible(timeout=60_000)
            text = alarm.inner_text()
            assert f"{seen_seq}" in text and seen_hash[:12] in text, text  # the head the page saw
            assert f"{now_seq}" in text and now_hash[:12] in text, text  # the bank's head now
        reports = admin.locator("#chain-witness li")
        phones = reports.filter(has_text="équipe blue")  # the phone's report, sent to the admin page
        expect(phones).to_have_count(1, timeout=30_000)
        assert seen_hash[:12] in phones.inner_text() and now_hash[:12] in phones.inner_text()
        assert _kept(phone) == {"seq": seen_seq, "hash": seen_hash}  # the evidence is kept, not overwritten
    finally:
        context.close()
        proxy.close()
        while SERVERS:
            SERVERS.pop().stop()
