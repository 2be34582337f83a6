"""How many SQL statements a facilitator's booked harvest costs the server.

The latency floor (bench/auth_floor_server.py) runs 4 statements per command: the session row,
BEGIN IMMEDIATE, INSERT, COMMIT. The bank ran 10 (the session row JOIN its account, BEGIN, the id's
look-up, MAX(seq), the journal row, the row read back for its hash, the chain's head, the chain row,
the time line's checkpoint, COMMIT); each is a trip through SQLite's parser and pager on the
request's path. It runs 5 now: BEGIN IMMEDIATE, the journal row, its chain row, the time line's
checkpoint, COMMIT. The session is remembered (no row read); the id's look-up, the last seq and the
chain's head are not read at all: the bank books from its last seq and the journal's tip in memory,
and the row's constraints refuse a retried id or a seq another process booked, which only then costs
the look-up (bank/services/bank.py, tests/services/test_optimistic_booking.py). A retry costs 4: BEGIN, the
refused row, the look-up, ROLLBACK.

These tests count them through the real app, with sqlite3's trace callback on every connection the
app holds, and check that what the statements replaced still holds: the chain verifies, a retried id
is answered from the journal (a row another process booked is folded: tests/services/test_optimistic_booking.py).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bank.store import chain
from conftest import CONFIG_PATH
from security_kit import cookie, refusal, replay, services
from sql_statements_kit import Statements

TERRABANK = str(Path(sys.executable).with_name("terrabank"))

pytestmark = pytest.mark.sqlite_file("counts the statements of the SQLite store")

START = {"type": "start_clock"}
HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}
# BEGIN IMMEDIATE, INSERT journal, INSERT chain, the time line's checkpoint, COMMIT.
MAX_STATEMENTS = 5


@pytest.fixture
def lead(web, app):
    client = web("lead")
    assert client.command(**START).status_code == 200
    return client


def test_a_booked_harvest_runs_at_most_five_statements(app, lead, monkeypatch):
    """The session check, the look-ups and the hash chain cost statements the floor does not run."""
    assert lead.command(**HARVEST).status_code == 200  # the facilitator's page has booked before
    statements = Statements.of_bank(services(app).bank, monkeypatch, services(app).access.conn)
    reply = statements.during(lambda: lead.command(**HARVEST))
    assert reply.status_code == 200, reply.get_json()
    assert len(statements.seen) <= MAX_STATEMENTS, "\n".join(statements.seen)
    # What the fewer statements must still give: an intact chain, the row, the live state.
    bank = services(app).bank
    assert bank.verify() == []
    assert bank.last_seq == reply.get_json()["seq"]


def test_a_retried_harvest_is_answered_from_the_journal_in_as_few(app, lead, monkeypatch):
    """The idempotency look-up stays: a retry books nothing and says it is the same command."""
    first = lead.command("same-key", **HARVEST)
    statements = Statements.of_bank(services(app).bank, monkeypatch, services(app).access.conn)
    again = statements.during(lambda: lead.command("same-key", **HARVEST))
    assert again.status_code == 200 and again.get_json()["duplicate"] is True
    assert again.get_json()["seq"] == first.get_json()["seq"]
    assert services(app).bank.last_seq == first.get_json()["seq"]
    assert len(statements.seen) <= MAX_STATEMENTS, "\n".join(statements.seen)


# ---- what the fewer statements must not cost: a session that ends, ends at once ----

def booked(app) -> int:
    return services(app).bank.last_seq


def test_a_logout_ends_a_remembered_session_at_once(web, app, lead):
    """The session is remembered after its first commands; a logout must still end it for any copy of the cookie."""
    assert lead.command(**HARVEST).status_code == 200
    assert lead.command(**HARVEST).status_code == 200  # remembered now: no row read for this one
    copied = cookie(lead)
    stolen = replay(web, copied)
    assert stolen.command(**HARVEST).status_code == 200  # the copy is the same session, remembered too
    assert lead.client.post("/api/logout", headers={"X-CSRF-Token": lead.csrf}).status_code == 200
    before = booked(app)
    reply = stolen.command(**HARVEST)
    assert reply.status_code == 401 and refusal(reply)["code"] == "login_required"
    assert booked(app) == before


def test_a_password_changed_by_another_process_ends_a_remembered_session_at_once(web, app, lead, tmp_path):
    """`terrabank user` run in a terminal (another process, its own connection) while the server remembers the session."""
    banker = web("banker")
    assert banker.command(**HARVEST).status_code == 200
    assert banker.command(**HARVEST).status_code == 200  # remembered
    subprocess.run([TERRABANK, "--config", str(CONFIG_PATH), "--db", str(tmp_path / "web.db"), "user", "banker",
                    "--role", "banker", "--password-stdin"], input="a new password\n", text=True, check=True,
                   capture_output=True)
    before = booked(app)
    reply = banker.command(**HARVEST)
    assert reply.status_code == 401 and refusal(reply)["code"] == "login_required"
    assert booked(app) == before
    assert banker.login("banker", "a new password").status_code == 200
    assert banker.command(**HARVEST).status_code == 200


def test_the_lead_ending_every_other_session_ends_remembered_ones_at_once(web, app, lead):
    banker = web("banker")
    assert banker.command(**HARVEST).status_code == 200
    assert banker.command(**HARVEST).status_code == 200  # remembered
    services(app).access.sessions().end_all(keep=None)  # what "log out everywhere" does, on its own connection
    reply = banker.command(**HARVEST)
    assert reply.status_code == 401 and refusal(reply)["code"] == "login_required"


# ---- the chain row made without reading the row back hashes the bytes SQLite stores ----

@pytest.mark.parametrize("texts", [
    ("id-1", "ab" * 32, "harvest", "lead", '{"a":"é"}', "[]"),
    ("id-2", "cd" * 32, "build", None, '{"name":"Zoë 🌱 \\u0000"}', '[{"x":"ü"}]'),
    ("x" * 100, "", "t", "quote'd \"and\" || pipes", "{}", '["\\n"]'),
])
def test_the_row_bytes_made_in_python_are_those_sqlite_stores(tmp_path, texts):
    conn = sqlite3.connect(tmp_path / "rows.db")
    conn.execute("CREATE TABLE journal(seq INTEGER PRIMARY KEY, command_id TEXT, fingerprint TEXT, type TEXT, "
                 "actor TEXT, at REAL, command TEXT, events TEXT)")
    conn.execute("INSERT INTO journal VALUES (1, ?, ?, ?, ?, ?, ?, ?)", (*texts[:4], 1795651876.72225, *texts[4:]))
    _, at, stored = conn.execute(f"{chain.SELECT_ROWS} WHERE seq = 1").fetchone()
    conn.close()
    assert chain.row_bytes(texts, 1795651876.72225) == (at, stored)


def test_a_value_sqlite_might_store_otherwise_is_read_back():
    assert chain.row_bytes(("a", "b", "c", None, "{}", "[]"), 5) is None  # an int time comes back as 5.0
    assert chain.row_bytes(("a\x00b", "b", "c", None, "{}", "[]"), 5.0) is None
