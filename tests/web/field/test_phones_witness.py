"""The phones as witnesses of the journal.

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

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import SERVERS, log_in_to, serve_in_thread  # noqa: E402
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
    """The head the page keeps (static/js/witness.js), whatever its game's key: the one kept for a link (a team
    phone's) when pages of the same browser keep one per link."""
    kept = page.evaluate("() => { var found = null; for (var k in localStorage) if (k.indexOf('tb.witness:') === 0 "
                         "&& (!found || k.indexOf('#') > 0)) found = JSON.parse(localStorage.getItem(k)); "
                         "return found; }")
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
        log_in_to(admin, proxy.url, "/admin")
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


def _swap_game(db: Path) -> None:
    """The attack: the last row cut as above, and one character appended to the creation record's
    `created_at`, which names the game to the pages (Bank.game_mark), so that they took the bank for another
    game and adopted its head. Where the creation record is bound into the chain's seed (bank/store/chain.py)
    the attacker rewrites the seed and every hash too, and the checkpoint, so that `serve` starts."""
    _cut_last_row(db)
    raw = sqlite3.connect(db)
    raw.executescript("DROP TRIGGER meta_no_update; UPDATE meta SET value = value || '7' WHERE key = 'created_at';")
    meta = dict(raw.execute("SELECT key, value FROM meta").fetchall())
    if "chain_seed" in meta:
        from bank.store import chain

        assert not raw.execute("SELECT 1 FROM chain_snapshot").fetchall()  # no binding to rewrite in so short a game
        start = chain.seed(meta)
        raw.execute("UPDATE meta SET value = ? WHERE key = 'chain_seed'", (start,))
        raw.execute("DROP TRIGGER chain_no_update")
        links = list(chain.replay(raw.execute(f"{chain.SELECT_ROWS} ORDER BY seq").fetchall(), start=start))
        raw.executemany("UPDATE chain SET hash = ? WHERE seq = ?", [(h, seq) for seq, h in links])
        raw.execute("UPDATE clock_checkpoint SET seq = ?, head = ?", links[-1])
    raw.commit()
    raw.close()


class _Witnessed:
    """A team phone (and, logged in, the admin page) that saw entry N, then the bank stopped, `change(db)`
    done to its game, and the bank started again on the same address: the pages reconnect to it."""

    def __init__(self, chromium, tmp_path, admin: bool = True):
        self.db = tmp_path / "game.db"
        first = _app(self.db)
        self.services = first.extensions["terrabank"]
        self.services.access.add_user("lea", "password1", "lead")
        self.services.bank.execute({"id": "start", "type": "start_clock"})
        self.token = self.services.access.team_tokens()["blue"]
        self.first, self.second = first, None
        url, port = serve_in_thread(first)
        self.proxy = Proxy(port)
        self.context = chromium.new_context(viewport={"width": 1280, "height": 800})
        self.errors = []  # the pages' script errors: an alarm that threw stopped there (its report's reply unread)
        self.phone = self.context.new_page()
        self.phone.on("pageerror", lambda e: self.errors.append(e))
        self.phone.goto(f"{self.proxy.url}/t/{self.token}")
        self.pages = [self.phone]
        self.admin = None
        if admin:
            self.admin = self.context.new_page()
            self.admin.on("pageerror", lambda e: self.errors.append(e))
            log_in_to(self.admin, self.proxy.url, "/admin")
            self.pages.append(self.admin)
        for page in self.pages:
            expect(page.locator("#conn-badge")).to_have_class(LIVE, timeout=30_000)
        _book(first, 3)
        self.seen = self.services.bank.chain_head()
        for page, own in zip(self.pages, ("#", "")):  # the phone's head is kept for its link (a '#' in the key)
            page.wait_for_function(f"() => +document.body.dataset.seq >= {self.seen[0]}", timeout=30_000)
            page.wait_for_function("([seq, own]) => { for (var k in localStorage) if (k.indexOf('tb.witness:') === 0 "
                                   "&& (k.indexOf('#') > 0) === (own === '#') && JSON.parse(localStorage.getItem(k)).seq"
                                   " >= seq) return true; return false; }", arg=[self.seen[0], own], timeout=30_000)
        assert _kept(self.phone) == {"seq": self.seen[0], "hash": self.seen[1]}

    def restart_after(self, change) -> None:
        SERVERS.pop().stop()
        self.services.bank.close()
        self.services.access.close()
        change(self.db)
        self.second = _app(self.db)
        _, new_port = serve_in_thread(self.second)
        self.proxy.target = ("127.0.0.1", new_port)
        self.proxy.restore(drop=True)  # the old connections are gone: the pages reconnect, to the new bank

    def close(self) -> None:
        self.context.close()
        self.proxy.close()
        while SERVERS:
            SERVERS.pop().stop()
        if self.second is not None:
            self.second.extensions["terrabank"].bank.close()


@pytest.mark.serial("a phone, a rollback and the admin page in time: beside four workers one run never listed the report in 30 s")
def test_another_game_behind_the_same_link_is_an_alarm_on_the_phone_and_the_admin_page(chromium, tmp_path):
    """Before: the phone took the bank for another game (its mark changed with `created_at`)
    and silently adopted its head; the admin page's list stayed empty. Now the phone, which kept its head
    for this team link, shows both heads and says another game answers; the admin page lists its report.
    The admin page itself, a facilitator's page that kept its head at this address, raised no alarm: it
    adopted the other game in silence ("all fine" while the game was swapped). Now it alarms too, with both
    heads, and its own report confirms the phone's."""
    seen = None
    pages = _Witnessed(chromium, tmp_path)
    try:
        seen_seq, seen_hash = seen = pages.seen
        pages.restart_after(_swap_game)
        bank = pages.second.extensions["terrabank"].bank
        assert bank.last_seq == seen_seq - 1 and bank.verify() == []  # a consistent forgery: the bank cannot tell
        now_seq, now_hash = bank.chain_head()
        alarm = pages.phone.locator("#chain-alarm")
        expect(alarm).to_be_visible(timeout=60_000)  # before: no alarm, the head of "another game" adopted
        text = alarm.inner_text()
        assert f"{seen_seq}" in text and seen_hash[:12] in text, text  # the head the phone saw
        assert f"{now_seq}" in text and now_hash[:12] in text, text  # the bank's head now
        assert "autre partie" in text, text
        assert _kept(pages.phone) == {"seq": seen_seq, "hash": seen_hash}  # the evidence is kept
        own = pages.admin.locator("#chain-alarm")
        expect(own).to_be_visible(timeout=60_000)  # before: none, the admin page adopted the other game's head
        text = own.inner_text()
        assert seen_hash[:12] in text and now_hash[:12] in text and "autre partie" in text, text
        reports = pages.admin.locator("#chain-witness li").filter(has_text="équipe blue")
        expect(reports).to_have_count(1, timeout=30_000)  # before: the admin list was empty
        expect(reports).to_have_attribute("data-confirmed", "yes", timeout=30_000)  # the admin page's own agrees
        line = reports.inner_text()
        assert seen_hash[:12] in line and now_hash[:12] in line and "autre partie" in line, line
        assert [str(e) for e in pages.errors] == []  # before: "heard is not defined", thrown by each alarm
    finally:
        pages.close()
    assert seen is not None


def test_a_new_game_with_the_links_kept_is_announced_not_adopted_silently(chromium, tmp_path):
    """`init --force --keep-links`: the new game declares the game it replaced and where it ended; the phone
    (same link) says a new game started, with both ends, raises no alarm and keeps the new game's head."""
    from bank.cli.main import main

    pages = _Witnessed(chromium, tmp_path, admin=False)
    try:
        seen_seq, seen_hash = pages.seen

        def init_force_keep_links(db):
            assert main(["--config", str(CONFIG), "--db", str(db), "init", "--force", "--keep-links"]) == 0

        pages.restart_after(init_force_keep_links)
        bank = pages.second.extensions["terrabank"].bank
        assert pages.second.extensions["terrabank"].access.team_tokens()["blue"] == pages.token  # the link kept
        notice = pages.phone.locator("#chain-new-game")
        expect(notice).to_be_visible(timeout=60_000)  # before: nothing said, the new game's head adopted
        text = notice.inner_text()
        assert f"{seen_seq}" in text and seen_hash[:12] in text, text  # where the old game ended (as declared)
        assert "nouvelle partie" in text.lower(), text
        assert pages.phone.locator("#chain-alarm").count() == 0
        pages.phone.wait_for_function("(game) => { for (var k in localStorage) if (k.indexOf('tb.witness:') === 0) "
                                      "return JSON.parse(localStorage.getItem(k)).game === game; }",
                                      arg=bank.game_mark(), timeout=30_000)  # the new game's head, kept
    finally:
        pages.close()


def test_a_report_pushed_while_the_admin_page_reads_the_list_is_not_wiped_by_the_older_answer(chromium, tmp_path):
    """The admin page asks for the reports on each (re)connect; a phone's report pushed while that answer
    is on its way is newer than it. Before, the older (empty) answer replaced the pushed list: the report
    was gone from the page until its next reconnect (once in CI, at a bank's restart)."""
    import json
    import urllib.request

    app = _app(tmp_path / "game.db")
    services = app.extensions["terrabank"]
    services.access.add_user("lea", "password1", "lead")
    token = services.access.team_tokens()["blue"]
    url, _ = serve_in_thread(app)
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    held = []  # the admin page's GET of the list, answered by the bank, not yet handed to the page
    try:
        admin = context.new_page()
        errors = []
        admin.on("pageerror", lambda e: errors.append(e))
        log_in_to(admin, url, "/admin")
        expect(admin.locator("#conn-badge")).to_have_class(LIVE, timeout=30_000)
        admin.route("**/api/chain/witness", lambda route: held.append((route, route.fetch()))
                    if route.request.method == "GET" else route.continue_())
        admin.evaluate("() => { window.listRead = TB.witness.heard(); }")
        while not held:
            admin.wait_for_timeout(50)
        report = {"team": token, "saw": {"seq": 1, "hash": "ab" * 32}}  # an entry this bank never held
        sent = urllib.request.Request(url + "/api/chain/witness", data=json.dumps(report).encode(),
                                      headers={"Content-Type": "application/json"})
        assert json.loads(urllib.request.urlopen(sent, timeout=10).read())["known"] is False
        reports = admin.locator("#chain-witness li").filter(has_text="équipe blue")
        expect(reports).to_have_count(1, timeout=30_000)  # pushed to the page at once
        route, older = held[0]
        route.fulfill(response=older)  # the answer read before the report: an empty list
        admin.evaluate("() => window.listRead")
        expect(reports).to_have_count(1)  # before: 0, the older answer shown over the pushed list
        assert [str(e) for e in errors] == []
    finally:
        context.close()
        while SERVERS:
            SERVERS.pop().stop()
        services.bank.close()
