"""A game file rewritten under the running bank: the open pages and the admin page say so without a reconnect.

Before, the bank answered the heads it had written from memory and the pages asked only when they (re)connected,
so another program that changed an entry and rebuilt the chain while the bank ran (`verify` says ok) went
unseen until a restart. Now the bank's clock loop checks its file (bank/web/push/chain_alarm.py): it refuses to
book on it, lists its own report on the admin page, logs one line saying what to do, and tells every open page to
ask again; the pages, still connected, show both heads. Chromium, the production server in this process.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import log_in_to, serve_in_thread, stop_servers  # noqa: E402

pytestmark = [needs("playwright", "chromium"), pytest.mark.sqlite_file("another program edits the SQLite file")]
expect = sync_api.expect
CONFIG = Path(__file__).resolve().parents[3] / "config.toml"
LIVE = re.compile("badge-live")


def _rewrite(db: Path, seq: int) -> str:
    """Another program: entry `seq` said booked by someone else, the chain rebuilt from there (sqlite3, guards off)."""
    from bank.store import chain

    raw = sqlite3.connect(db)
    raw.executescript("DROP TRIGGER journal_no_update; DROP TRIGGER chain_no_update;")
    raw.execute("UPDATE journal SET actor = 'mallory' WHERE seq = ?", (seq,))
    start = chain.start_of(dict(raw.execute("SELECT key, value FROM meta").fetchall()).get)
    assert not raw.execute("SELECT 1 FROM chain_snapshot").fetchall()  # no binding to rewrite in so short a game
    links = list(chain.replay(raw.execute(f"{chain.SELECT_ROWS} ORDER BY seq").fetchall(), start=start))
    raw.executemany("UPDATE chain SET hash = ? WHERE seq = ?", [(h, s) for s, h in links])
    raw.execute("UPDATE clock_checkpoint SET seq = ?, head = ?", links[-1])
    raw.commit()
    raw.close()
    return links[-1][1]


def test_open_pages_and_the_admin_page_see_a_rewrite_while_the_bank_runs(chromium, tmp_path, monkeypatch, caplog):
    from bank.web import create_app
    from bank.web.push import chain_alarm

    monkeypatch.setattr(chain_alarm, "CHECK_SECONDS", 0.5)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    db = tmp_path / "game.db"
    app = create_app({"DB": str(db), "CONFIG": str(CONFIG), "PASSWORD_HASH": "pbkdf2:sha256:1000", "TICKER": True})
    services = app.extensions["terrabank"]
    services.access.add_user("lea", "password1", "lead")
    bank = services.bank
    bank.execute({"id": "start", "type": "start_clock"})
    url, _ = serve_in_thread(app)
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    errors = []
    try:
        phone = context.new_page()
        phone.on("pageerror", lambda e: errors.append(e))
        phone.goto(f"{url}/t/{services.access.team_tokens()['blue']}")
        admin = context.new_page()
        admin.on("pageerror", lambda e: errors.append(e))
        log_in_to(admin, url, "/admin")
        for page in (phone, admin):
            expect(page.locator("#conn-badge")).to_have_class(LIVE, timeout=30_000)
        for i in range(3):
            bank.execute({"id": f"refill-{i}", "type": "refill", "resource": "water", "amount": 1})
        from bank.web.push.live import broadcaster
        sender = broadcaster(app)
        sender.flush(sender.ask())
        seen_seq, seen_hash = bank.chain_head()
        for page in (phone, admin):
            page.wait_for_function("(seq) => { for (var k in localStorage) if (k.indexOf('tb.witness:') === 0 && "
                                   "JSON.parse(localStorage.getItem(k)).seq >= seq) return true; return false; }",
                                   arg=seen_seq, timeout=30_000)
        sockets = []  # a page's new connection (a reconnect) after the rewrite: none may be needed
        for page in (phone, admin):
            page.on("websocket", lambda ws: sockets.append(ws.url))

        with caplog.at_level(logging.ERROR):
            forged = _rewrite(db, 2)  # while the bank runs: nobody books, nobody reconnects
            for page in (phone, admin):
                alarm = page.locator("#chain-alarm")
                expect(alarm).to_be_visible(timeout=20_000)  # before: never, until a restart
                text = alarm.inner_text()
                assert f"{seen_seq}" in text and seen_hash[:12] in text and forged[:12] in text, text
            reports = admin.locator("#chain-witness li")
            expect(reports.filter(has_text="la banque elle-même")).to_have_count(1, timeout=20_000)
        said = [r.getMessage() for r in caplog.records if "rewritten by another program" in r.getMessage()]
        assert len(said) == 1 and "Stop the bank" in said[0] and seen_hash[:12] in said[0], said
        assert sockets == []  # seen on the connections the pages had
        assert phone.evaluate("() => document.body.dataset.chainAlarm") == f"{seen_seq}:{seen_seq}"
        refused = bank_refuses(bank)
        assert refused == "chain_rewritten" and bank.last_seq == seen_seq
        assert not errors, errors
    finally:
        context.close()
        stop_servers()


def bank_refuses(bank) -> str | None:
    from bank.store.storage import StorageError

    try:
        bank.execute({"id": "after", "type": "refill", "resource": "water", "amount": 1})
    except StorageError as exc:
        return exc.code
    return None
