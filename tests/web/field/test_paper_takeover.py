"""Paper takes over mid-game: half a game, the state on paper, the machine lost,
the paper ledger typed back through the admin page's batch form, the same standings.

The world where the machine never died is a copy of the game file taken when it stopped, on
which the same moves are booked directly as commands (written here by hand, not by the parser).
The machine that comes back is a fresh app on the game file from the same config.toml; the lead
types the ledger in French. Buildings, tracks, animals, events and points come back as entries.
"""

from __future__ import annotations

import sqlite3

import pytest
from printkit import all_text

from bank.game import views
from bank.game.config import load_config
from bank.errors import BankError
from bank.services.bank import Bank
from bank.web import create_app
from conftest import CONFIG_PATH, WebClient

T0 = 1_700_000_000.0


class FakeTime:
    """The machine's clocks, moved by the test: both banks decide at the same game second."""

    def __init__(self):
        self.t = 0.0

    def wall(self):
        return T0 + self.t

    def mono(self):
        return self.t


FIRST_HALF = [
    {"type": "start_clock"},
    {"type": "set_option", "option": "team_bonus", "value": True},
    {"type": "inventory", "team": "blue", "counted": {"water": 65, "flora": 30, "dioxygen": 30, "energy": 45, "fauna": 10}},
    {"type": "inventory", "team": "red", "counted": {"water": 10, "flora": 10, "dioxygen": 40, "energy": 20, "fauna": 10}},
    {"type": "inventory", "team": "green", "counted": {"water": 10, "flora": 45, "dioxygen": 10, "energy": 20, "fauna": 20}},
    {"type": "harvest", "team": "yellow", "card": "harvester-1", "resource": "energy"},
    {"type": "build", "team": "blue", "building": "power_plant_1"},
    {"type": "build", "team": "blue", "building": "purification_centre"},
    {"type": "raise_tracks", "team": "blue", "steps": {"hydrosphere": 4}},
    {"type": "raise_tracks", "team": "red", "steps": {"atmosphere": 4}},
    {"type": "raise_tracks", "team": "green", "steps": {"phytosphere": 4}},
    {"type": "buy_animal", "team": "green", "animal": "sheep"},
    {"type": "fight", "attacker_team": "red", "attacker_card": "pirate-1", "defender_team": "blue",
     "defender_card": "harvester-1", "winner": "attacker", "tokens": {"water": 2}},
    {"type": "open_event", "title": "Sécheresse", "accepts": ["water"], "rewards": [{"points": 3}, {"points": 1}]},
    {"type": "contribute", "event": "ev1", "team": "blue", "tokens": {"water": 4}},
    {"type": "contribute", "event": "ev1", "team": "red", "tokens": {"water": 2}},
    {"type": "set_rate", "tokens": 5, "points": 1},
]

# What the bankers wrote on the continuation ledgers while the machine was down, as the lead types it.
LEDGER = """\
# registres de reprise, toutes équipes, dans l'ordre des heures
14:02 Bleu récolte eau 1
14:03 Jaunes récolte énergie 2
14:05 Bleu construit serre
14:06 Rouge piste atmosphère 1
14:08 Verts achète lapin
14:09 Bleu commerce Rouges donne 2 eau reçoit 2 énergie
14:10 Bleu pirate 1 perd contre Rouge constructeur 1
14:11 Red harvest dioxygen 2
14:12 Bleu contribue ev1 3 eau
14:13 ferme ev1
14:14 Jaunes prime 2 fair-play
14:15 Verts échange 5 flore
14:16 Bleu construit lobo
14:17 Jaunes construit serre
14:18 Bleu récolte eau 1
"""

# The same moves, as the bank would have booked them had it not died (None: a line the lead mistyped).
SAME_MOVES = [
    {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"},
    {"type": "harvest", "team": "yellow", "card": "harvester-2", "resource": "energy"},
    {"type": "build", "team": "blue", "building": "greenhouse"},
    {"type": "raise_tracks", "team": "red", "steps": {"atmosphere": 1}},
    {"type": "buy_animal", "team": "green", "animal": "rabbit"},
    {"type": "trade", "kind": "free", "merchant_team": "blue", "visited_team": "red", "give": {"water": 2}, "take": {"energy": 2}},
    {"type": "fight", "attacker_team": "blue", "attacker_card": "pirate-1", "defender_team": "red",
     "defender_card": "builder-1", "winner": "defender", "tokens": {}},
    {"type": "harvest", "team": "red", "card": "harvester-2", "resource": "dioxygen"},
    {"type": "contribute", "event": "ev1", "team": "blue", "tokens": {"water": 3}},
    {"type": "close_event", "event": "ev1"},
    {"type": "award", "team": "yellow", "points": 2, "reason": "fair-play"},
    {"type": "exchange", "team": "green", "tokens": {"flora": 5}},
    None,
    {"type": "build", "team": "yellow", "building": "greenhouse"},
    {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"},
]


def _app(db, clock, *, fresh_users=False):
    app = create_app({"DB": db, "CONFIG": load_config(CONFIG_PATH), "TESTING": True, "PASSWORD_HASH": "pbkdf2:sha256:1000",
                      "CLOCKS": (clock.wall, clock.mono)})
    if fresh_users:
        app.extensions["terrabank"].access.add_user("lead", "correct horse", "lead")
    return app


def _lead(app) -> WebClient:
    client = WebClient(app.test_client())
    assert client.login("lead").status_code == 200
    return client


def _close(app):
    app.extensions["terrabank"].bank.close()
    app.extensions["terrabank"].access.close()


def _picture(bank: Bank, config) -> dict:
    """What the players and the report see: standings, stock, buildings, animals, tracks, events."""
    state = bank.state
    return {"standings": views.standings(state, config, bank.now()),
            "stock": {t: state.stock(t) for t in config.teams}, "buildings": state.buildings, "animals": state.animals,
            "tracks": state.tracks, "rate": state.rate, "events": state.events, "options": state.options}


def _copy_game_file(src, dst) -> None:
    """The game file as it was when the machine stopped (SQLite's own backup: the WAL included)."""
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)


@pytest.fixture
def half_game(tmp_path):
    """A game played to mid-way on the machine, session 1 ended, session 2 under way."""
    clock, db = FakeTime(), tmp_path / "game.db"
    app = _app(db, clock, fresh_users=True)
    lead = _lead(app)
    from bank.web.field import paper_writer

    writer = paper_writer.of(app)
    writer.look()  # the bank's first look writes the state once (the thread does it seconds after start)
    for command in FIRST_HALF:
        clock.t += 20
        reply = lead.command(**command)
        assert reply.status_code == 200, (command, reply.get_json())
    clock.t += 40
    assert lead.command(type="end_session").status_code == 200
    written = writer.look()  # the session end: on disk before anyone asks
    clock.t += 60
    assert lead.command(type="resume").status_code == 200
    yield {"app": app, "lead": lead, "clock": clock, "db": db, "session_file": written, "writer": writer}


def test_the_paper_ledger_typed_back_gives_the_standings_the_bank_would_have(half_game, tmp_path):
    app, lead, clock, db = half_game["app"], half_game["lead"], half_game["clock"], half_game["db"]
    config = app.extensions["terrabank"].config

    # Printed from the admin page just before the machine dies: each team's real stock, not the starting one.
    state_pdf = lead.client.get("/api/paper/state.pdf")
    assert state_pdf.status_code == 200 and state_pdf.mimetype == "application/pdf"
    text = all_text(state_pdf.data)
    blue = app.extensions["terrabank"].bank.state.stock("blue")
    assert "Centrale I, Centre de purification" in text and "Mouton" in text
    assert "Eau 3" in text  # blue's harvest of water: doubled by the purification centre, +1 team bonus (R4, R12)
    assert "5 jetons = 1 point" in text and "Sécheresse" in text and "Bleus 4, Rouges 2" in text
    assert "niveau 4 sur 10" in text and "session 2 sur 2" in text
    ledgers = all_text(lead.client.get("/api/paper/ledgers.pdf").data)
    assert f"Stock à l'état n° {app.extensions['terrabank'].bank.last_seq}" in ledgers
    blue_row = [blue.get(r, 0) for r in config.resources] + [app.extensions["terrabank"].bank.state.reputation["blue"]]
    assert " ".join(map(str, blue_row)) in " ".join(ledgers.split())  # the starting row is Blue's stock at the state

    # The machine dies. The world where it did not: the same game file, the same moves booked directly.
    _copy_game_file(db, tmp_path / "control.db")
    _close(app)
    clock.t += 600
    control = Bank.open(tmp_path / "control.db", config, wall=clock.wall, mono=clock.mono)
    refused_in_control = []
    for i, command in enumerate(SAME_MOVES):
        if command is None:
            continue
        try:
            control.execute({"id": f"control-{i}", "actor": "lead", **command})
        except BankError as exc:
            refused_in_control.append(exc.code)
    assert refused_in_control == ["not_enough_tokens"]  # yellow cannot pay a greenhouse, on paper or not

    # The machine is back: a fresh app on the game file, from the same config.toml; the lead types the ledger.
    back = _app(db, clock)
    try:
        lead = _lead(back)
        reply = lead.client.post("/api/paper/batch", json={"batch": "ledger-1", "text": LEDGER},
                                 headers={"X-CSRF-Token": lead.csrf})
        result = reply.get_json()
        assert reply.status_code == 200, result
        assert (result["booked"], result["duplicate"], result["refused"]) == (13, 0, 2)
        refused = {r["text"]: r["error"] for r in result["lines"] if r["status"] == "refused"}
        assert refused["14:16 Bleu construit lobo"]["code"] == "paper_unknown_building"
        assert refused["14:16 Bleu construit lobo"]["params"]["word"] == "lobo"
        assert refused["14:17 Jaunes construit serre"]["code"] == "not_enough_tokens"
        bank = back.extensions["terrabank"].bank
        assert _picture(bank, config) == _picture(control, config)
        standings = {r["team"]: (r["rank"], r["reputation"], r["buildings"], r["animals"]) for r in views.standings(bank.state, config, bank.now())}
        assert standings["blue"][2] == 3 and standings["green"][3] == 2 and bank.state.tracks["atmosphere"] == 5
        assert bank.state.events["ev1"]["status"] == "closed"

        # Sent again (a double tap, a reload): nothing is booked twice.
        seq = bank.last_seq
        again = lead.client.post("/api/paper/batch", json={"batch": "ledger-1", "text": LEDGER},
                                 headers={"X-CSRF-Token": lead.csrf}).get_json()
        assert (again["booked"], again["duplicate"], again["refused"]) == (0, 13, 2) and bank.last_seq == seq
        # The typo fixed and the whole text sent again: only that line is booked.
        fixed = LEDGER.replace("Bleu construit lobo", "Bleu construit centrale II")
        third = lead.client.post("/api/paper/batch", json={"batch": "ledger-1", "text": fixed},
                                 headers={"X-CSRF-Token": lead.csrf}).get_json()
        assert (third["booked"], third["duplicate"]) == (1, 13) and bank.last_seq == seq + 1
        assert bank.state.buildings["blue"][-1] == "power_plant_2"
    finally:
        _close(back)
        control.close()


def test_the_bank_writes_the_state_to_disk_at_a_session_end(half_game):
    written = half_game["session_file"]
    assert written is not None and written.name.endswith("-session-end.pdf")
    assert written.parent == half_game["db"].parent / "game-paper"  # beside the game file
    text = all_text(written.read_bytes())
    assert "État de la partie" in text and "session terminée" in text and "Centre de purification" in text
    assert "Registre de reprise · Bleus" in text  # the continuation ledgers follow the state in the same file
    names = [p.name for p in half_game["writer"].files()]
    assert len(names) == 2 and names[0] == written.name and names[1].endswith("-regular.pdf")
    saved = half_game["lead"].client.get("/api/paper/saved").get_json()
    assert saved["folder"] == str(written.parent) and saved["files"][0]["name"] == written.name
    _close(half_game["app"])


def test_the_bank_writes_the_state_every_n_minutes_when_something_was_booked(half_game):
    from bank.web.field import paper_writer

    writer, clock, lead = half_game["writer"], half_game["clock"], half_game["lead"]
    writer.clock = clock.mono
    writer.written_at = clock.mono()
    try:
        clock.t += writer.every - 1
        assert writer.look() is None  # not yet time
        clock.t += 2
        assert writer.look().name.endswith("-regular.pdf")  # the resume was booked since the session-end file
        clock.t += writer.every + 1
        assert writer.look() is None  # nothing booked since: the newest file still holds the game
        for i in range(paper_writer.KEEP + 2):
            lead.command(type="award", team="blue", points=1, reason=f"test {i}")
            clock.t += writer.every + 1
            writer.look()
        assert len(writer.files()) == paper_writer.KEEP  # the oldest are removed
    finally:
        _close(half_game["app"])


def test_a_batch_needs_the_lead_and_a_key(half_game):
    app = half_game["app"]
    try:
        banker_access = app.extensions["terrabank"].access
        banker_access.add_user("banker", "correct horse", "banker")
        banker = WebClient(app.test_client())
        assert banker.login("banker").status_code == 200
        reply = banker.client.post("/api/paper/batch", json={"batch": "k-123", "text": "Bleu récolte eau 1"},
                                   headers={"X-CSRF-Token": banker.csrf})
        assert reply.status_code == 403
        lead = half_game["lead"]
        reply = lead.client.post("/api/paper/batch", json={"text": "Bleu récolte eau 1"}, headers={"X-CSRF-Token": lead.csrf})
        assert reply.status_code == 400 and reply.get_json()["error"]["code"] == "bad_batch_key"
        reply = lead.client.post("/api/paper/batch", json={"batch": "k-123", "text": "Bleu récolte eau 1"})
        assert reply.status_code == 403  # no CSRF token: a page from elsewhere books nothing
    finally:
        _close(app)



def test_the_writer_tells_a_session_end_and_the_game_end_from_the_state_without_reading_the_rows_back(tmp_path, monkeypatch):
    """Every 5 s each serving process read back every row booked since its last look to find a session's end:
    with 4 processes of one game, each row 4 more times (bench/system/bench_saturation.py). The sheets are
    written as before (R34: a session's end, R35: the game's end), and no row is read for it."""
    from bank.web.field import paper_writer

    app = _app(tmp_path / "game.db", FakeTime(), fresh_users=True)
    lead, writer, bank = _lead(app), paper_writer.of(app), app.extensions["terrabank"].bank
    reads = []
    rows = bank.journal_rows
    monkeypatch.setattr(bank, "journal_rows", lambda *args, **kwargs: reads.append(args) or rows(*args, **kwargs))
    try:
        assert writer.look().name.endswith("-regular.pdf")  # the first look writes the state once
        for command in ({"type": "start_clock"}, *({"type": "award", "team": "blue", "points": 1, "reason": f"look {i}"}
                                                     for i in range(3))):
            assert lead.command(**command).status_code == 200
        assert writer.look() is None  # booked, but no session ended and not yet time
        assert lead.command(type="end_session").status_code == 200
        assert writer.look().name.endswith("-session-end.pdf")
        assert lead.command(type="resume").status_code == 200
        assert writer.look() is None  # a session began: none ended since
        assert lead.command(type="end_game").status_code == 200
        assert writer.look().name.endswith("-game-end.pdf")
        assert writer.look() is None  # nothing booked since
        assert reads == []
    finally:
        _close(app)


def test_a_session_end_sheet_whose_write_failed_is_written_at_the_next_look(tmp_path, monkeypatch):
    """Before: the look noted the session's end before it wrote; when the write failed (the database away for a
    moment, a full disk), the next look found nothing new, and the session-end sheet was never written (with
    `state_every_minutes = 0`, no sheet at all for that session; else a regular one up to 10 minutes later)."""
    from bank.store.storage import StorageError
    from bank.web.field import paper_writer

    app = _app(tmp_path / "game.db", FakeTime(), fresh_users=True)
    lead, writer, draw = _lead(app), paper_writer.of(app), paper_writer.draw
    try:
        assert writer.look().name.endswith("-regular.pdf")  # the first look writes the state once
        assert lead.command(type="start_clock").status_code == 200
        assert lead.command(type="end_session").status_code == 200

        def away(job):
            raise StorageError("database_connection_lost", "The connection to the game's database failed")

        monkeypatch.setattr(paper_writer, "draw", away)
        writer.attempt()  # the loop's look: the failure kept for the admin page, not raised
        assert writer.last_error
        monkeypatch.setattr(paper_writer, "draw", draw)
        written = writer.look()  # the loop's next look, once the database answers
        assert written is not None and written.name.endswith("-session-end.pdf")
    finally:
        _close(app)
