"""A hosted game whose journal was edited by hand is refused as `serve` refuses the host's own (Bank.verify(whole=False)).

Before: `serve` checked the host's game file at start (bank/cli/serve.py check_database) but opened the games
of `--games` without a look. A hosted game's row edited with the sqlite3 tool (a refill of 1 made 50, its chain
row left as it was) was served: its state from the edited row and, to the phones that witness the journal,
GET /api/chain/<seq> answered the very head they saw (the stored chain), so no page said anything; `verify`
named the row. Now the game is not served, with the sentence, and the other games are; the refusal is kept
for a while, so requests to it do not read its whole chain again each time.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bank.services import bank as service
from bank.web import create_app
from bank.web.serving import hosting

ROOT = Path(__file__).resolve().parents[3]


def _host(tmp_path):
    return create_app({"DB": tmp_path / "host.db", "CONFIG": str(ROOT / "config.toml"), "TESTING": True,
                       "PASSWORD_HASH": "pbkdf2:sha256:1000", "GAMES_DIR": str(tmp_path / "games")})


def _close(app) -> None:
    app.extensions["terrabank_hosted"].close()
    for part in (app.extensions["terrabank"].bank, app.extensions["terrabank"].access, app.extensions["trias_games"]):
        part.close()


def _edit_last_row(db: Path) -> None:
    """The attack: the last row's amount changed in place, the guards dropped, the chain left as it was."""
    raw = sqlite3.connect(db)
    raw.executescript("DROP TRIGGER journal_no_update; UPDATE journal SET command = replace(command, '\"amount\":1', "
                      "'\"amount\":50'), events = replace(events, '\"amount\":1', '\"amount\":50') "
                      "WHERE seq = (SELECT MAX(seq) FROM journal);")
    raw.close()


def test_a_hosted_game_edited_by_hand_is_not_served_and_the_others_are(tmp_path, monkeypatch):
    host = _host(tmp_path)
    games = host.extensions["terrabank_hosted"]
    try:
        for name in ("camp", "lake"):
            games.create(name)
            bank = games.app(name).extensions["terrabank"].bank
            bank.execute({"id": "start", "type": "start_clock"})
            for i in range(3):
                bank.execute({"id": f"refill-{i}", "type": "refill", "resource": "water", "amount": 1})
        seq = games.app("camp").extensions["terrabank"].bank.last_seq
    finally:
        _close(host)
    _edit_last_row(tmp_path / "games" / "camp" / hosting.GAME_FILE)

    host = _host(tmp_path)
    games = host.extensions["terrabank_hosted"]
    opened = []
    make = games._make
    monkeypatch.setattr(games, "_make", lambda *a: opened.append(a[0]) or make(*a))
    try:
        client = host.test_client()
        asked = client.get(f"/g/camp/api/chain/{seq}")
        # Before: 200 {"hash": <the head the phones saw>}, the edited row served as if nothing happened.
        assert asked.status_code == 503, (asked.status_code, asked.get_data(as_text=True)[:300])
        text = asked.get_data(as_text=True)
        assert f"journal row {seq} was changed" in text and "verify" in text, text
        for _ in range(20):  # anyone may ask again: answered from the refusal, the chain not read again
            assert client.get("/g/camp/api/public").status_code == 503
        assert opened.count("camp") == 1, opened
        lake = client.get(f"/g/lake/api/chain/{seq}")
        assert lake.status_code == 200 and lake.get_json()["hash"]  # the other game is served
        listed = {game["name"]: game for game in games.listing()}
        assert listed["camp"]["error"]["code"] == "database_corrupt" and "entries" in listed["lake"]
    finally:
        _close(host)


def _smash_an_old_page(db: Path) -> None:
    """Damage on the disk: a page of the journal's first entries (covered by a snapshot) overwritten with noise."""
    raw = sqlite3.connect(db)
    try:
        page = raw.execute("SELECT pageno FROM dbstat WHERE name='journal' AND pagetype='leaf' ORDER BY pageno").fetchone()[0]
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no dbstat table to find a journal page")
    finally:
        raw.close()
    with open(db, "r+b") as f:
        f.seek((page - 1) * 4096 + 8)
        f.write(bytes(range(256)) * 15)


def test_a_hosted_game_damaged_on_disk_is_refused_naming_what_sqlite_found(tmp_path, monkeypatch):
    """The refusal names the damage (SQLite's first finding), not the heading SQLite puts above its findings.
    Before: "the database's own check found: *** in database main ***", which tells the lead nothing."""
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 20)  # the damaged entries lie before a snapshot: the game opens
    host = _host(tmp_path)
    games = host.extensions["terrabank_hosted"]
    try:
        games.create("camp")
        bank = games.app("camp").extensions["terrabank"].bank
        bank.execute({"id": "start", "type": "start_clock"})
        for i in range(58):
            bank.execute({"id": f"refill-{i}", "type": "refill", "resource": "water", "amount": 1})
    finally:
        _close(host)
    _smash_an_old_page(tmp_path / "games" / "camp" / hosting.GAME_FILE)

    host = _host(tmp_path)
    try:
        asked = host.test_client().get("/g/camp/api/public")
        text = asked.get_data(as_text=True)
        assert asked.status_code == 503, (asked.status_code, text[:300])
        assert "page" in text and "***" not in text, text
    finally:
        _close(host)
