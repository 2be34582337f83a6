"""Faults: a full disk and a read-only database, met through the web API.

What a facilitator must see: a 503 with a sentence that says what is wrong and that
nothing was booked; the state, the team pages and the journal unchanged; no live update
sent; and once the disk has room (or is writable) again, the SAME command, retried with
the same Idempotency-Key as the pages do, is booked exactly once.

Two ways to make the fault: SQLite's own limits (PRAGMA max_page_count, query_only) on
the running bank, which always run; and the real thing, a small tmpfs filled up or
mounted read-only, which needs root and `mount` (skipped with the reason otherwise).
"""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from live_kit import live_client
from conftest import WebClient

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}
AWARD = {"type": "award", "team": "green", "points": 1, "reason": "disk"}
TERRABANK = str(Path(sys.executable).with_name("terrabank"))
CONFIG = str(Path(__file__).resolve().parents[2] / "config.toml")


def picture(app, lead, token) -> dict:
    """Everything a user could look at: the console state, a team phone, the journal; the running clock's
    seconds left out (they tick on their own: a loaded machine took 2 s between two pictures)."""
    bank = app.extensions["terrabank"].bank
    return _without_seconds({"state": lead.client.get("/api/state").get_json(),
                             "team": lead.client.get(f"/api/team/{token}").get_json(),
                             "journal": lead.client.get("/api/journal?limit=500").get_json(),
                             "last_seq": bank.last_seq, "live": bank.state.to_dict()})


def _without_seconds(found):
    """The picture without the clocks' `elapsed`, which grows while the game clock runs, booked or not."""
    if isinstance(found, dict):
        return {k: _without_seconds(v) for k, v in found.items() if k != "elapsed"}
    if isinstance(found, list):
        return [_without_seconds(v) for v in found]
    return found


def listeners(app, lead, tokens) -> list:
    """A console, a team phone and a big screen, connected and with their first messages read."""
    clients = [live_client(app, flask_test_client=lead.client),
               live_client(app, auth={"team": tokens["blue"]}),
               live_client(app, auth={"display": True})]
    for c in clients:
        c.get_received()
    return clients


def book_until_refused(app, lead, tokens, limit: int = 300):
    """Harvest until the storage refuses one; returns (key, reply, picture before, listeners)."""
    for n in range(limit):
        before = picture(app, lead, tokens["blue"])
        ears = listeners(app, lead, tokens)
        reply = lead.command(f"fill-{n}", **HARVEST)
        if reply.status_code != 200:
            return f"fill-{n}", reply, before, ears
        for c in ears:
            c.disconnect()
    raise AssertionError(f"{limit} harvests and the storage never refused one")


def assert_refused_and_unchanged(app, lead, tokens, key, reply, before, ears, code, words):
    assert reply.status_code == 503  # the bank is unavailable, not "the rules say no"
    err = reply.get_json()["error"]
    assert err["code"] == code
    assert all(w in err["message"] for w in words), err["message"]
    assert picture(app, lead, tokens["blue"]) == before
    assert [c.get_received() for c in ears] == [[], [], []]  # no live update for nothing booked
    assert app.extensions["terrabank"].bank._journal.find(key) is None


def assert_retry_books_once(app, lead, key, before_seq):
    bank = app.extensions["terrabank"].bank
    first = lead.command(key, **HARVEST)
    assert first.status_code == 200, first.get_json()
    assert first.get_json()["duplicate"] is False and first.get_json()["seq"] == before_seq + 1
    again = lead.command(key, **HARVEST)
    assert again.get_json() == {**first.get_json(), "duplicate": True}
    assert [r["command_id"] for r in bank.journal_rows()].count(key) == 1
    assert bank.verify() == []


# ---- SQLite's own limits: always run ----

@contextmanager
def sqlite_full(bank):
    """No new page may be added to the file: SQLITE_FULL, as on a full disk."""
    conn = bank._journal._conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count={pages}")
    yield lambda: conn.execute("PRAGMA max_page_count=1073741823")


@contextmanager
def sqlite_read_only(bank):
    conn = bank._journal._conn
    conn.execute("PRAGMA query_only=ON")
    yield lambda: conn.execute("PRAGMA query_only=OFF")


@pytest.mark.parametrize("fault, code, words", [
    (sqlite_full, "disk_full", ["is full", "nothing was recorded"]),
    (sqlite_read_only, "database_read_only", ["cannot be written", "nothing was recorded"]),
])
def test_storage_fault_gives_a_sentence_changes_nothing_and_the_same_retry_books_once(
        app, web, tokens, fault, code, words):
    lead = web("lead")
    lead.command("clock", type="start_clock")
    bank = app.extensions["terrabank"].bank
    with fault(bank) as repair:
        key, reply, before, ears = book_until_refused(app, lead, tokens)
        assert_refused_and_unchanged(app, lead, tokens, key, reply, before, ears, code, words)
        # The page retries the same key while the fault lasts: refused again, still nothing.
        again = lead.command(key, **HARVEST)
        assert again.status_code == 503 and picture(app, lead, tokens["blue"]) == before
        repair()
        assert_retry_books_once(app, lead, key, before["last_seq"])


def test_a_paper_batch_refused_for_a_full_disk_is_said_in_the_log_once_and_so_is_its_end(app, web, tokens, caplog):
    """The ledger typed while the disk is full: the lines not sent are the outage's one log line, as a command
    refused for it is, and the batch booked once there is room its end (before: no line, either way)."""
    import logging

    lead = web("lead")
    lead.command("clock", type="start_clock")
    bank = app.extensions["terrabank"].bank
    said = lambda text: [r.getMessage() for r in caplog.records if text in r.getMessage()]  # noqa: E731
    with caplog.at_level(logging.WARNING), sqlite_full(bank) as repair:
        for n in range(300):
            reply = lead.client.post("/api/paper/batch", json={"batch": f"ledger-{n}", "text": "Bleu récolte eau 1"},
                                     headers={"X-CSRF-Token": lead.csrf}).get_json()
            if reply["not_sent"]:
                break
        assert reply["not_sent"] == 1 and reply["lines"][0]["error"]["code"] == "disk_full", reply
        lead.client.post("/api/paper/batch", json={"batch": f"ledger-{n}", "text": "Bleu récolte eau 1"},
                         headers={"X-CSRF-Token": lead.csrf})  # typed again while still full
        refused = said("commands are refused until the bank can write the game again")
        assert len(refused) == 1 and "is full" in refused[0], refused
        repair()
        reply = lead.client.post("/api/paper/batch", json={"batch": f"ledger-{n}", "text": "Bleu récolte eau 1"},
                                 headers={"X-CSRF-Token": lead.csrf}).get_json()
        assert reply["booked"] == 1, reply
    back = said("the bank writes the game again")
    assert len(back) == 1 and "2 refused" in back[0], back


# ---- the real thing: a small tmpfs, full or read-only (root + mount) ----

@pytest.fixture
def small_disk(tmp_path):
    """A 4 MB tmpfs mounted at tmp_path/disk, unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(folder: Path) -> Path:
    """Write a file until the disk says ENOSPC; returns it (delete it to free the space)."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 65536)
    except OSError:
        pass
    try:
        while True:  # the last few bytes, so not even one page fits
            os.write(fd, b"\0" * 512)
    except OSError:
        pass
    os.close(fd)
    return filler


@contextmanager
def app_on(folder: Path, config):
    """The web app with its game on `folder`, a lead facilitator; closed afterwards."""
    from bank.web import create_app

    app = create_app({"DB": folder / "game.db", "CONFIG": config, "TESTING": True,
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    services.access.add_user("lead", "correct horse", "lead")
    try:
        yield app
    finally:
        services.bank.close()
        services.access.close()


def test_a_really_full_disk_through_the_api_then_room_again(small_disk, config):
    with app_on(small_disk, config) as app:
        lead = WebClient(app.test_client())
        assert lead.login("lead").status_code == 200
        tokens = app.extensions["terrabank"].access.team_tokens()
        lead.command("clock", type="start_clock")
        filler = fill(small_disk)
        key, reply, before, ears = book_until_refused(app, lead, tokens)
        assert_refused_and_unchanged(app, lead, tokens, key, reply, before, ears, "disk_full",
                                     ["is full", "free some space", "nothing was recorded"])
        filler.unlink()
        assert_retry_books_once(app, lead, key, before["last_seq"])


def test_serve_on_a_read_only_disk_says_so_at_start_and_starts_once_writable(small_disk, config):
    """An SD card or USB stick that came back read-only: one sentence, no traceback, exit 2."""
    db = small_disk / "game.db"
    with app_on(small_disk, config) as app:
        WebClient(app.test_client())  # a session secret and a game, as after a first start
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    try:
        started = subprocess.run([TERRABANK, "--config", CONFIG, "--db", str(db), "serve",
                                  "--host", "127.0.0.1", "--port", "1"],
                                 capture_output=True, text=True, timeout=30)
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], check=True)
    assert started.returncode == 2
    assert "Traceback" not in started.stderr
    assert started.stderr.count("\n") == 1
    assert f"The database {db} cannot be written" in started.stderr
    assert "read-only" in started.stderr
    verified = subprocess.run([TERRABANK, "--config", CONFIG, "--db", str(db), "verify"],
                              capture_output=True, text=True, timeout=60)
    assert verified.stdout.splitlines()[0] == "ok"


def test_serve_on_a_full_disk_says_the_disk_is_full_and_starts_once_it_has_room(small_disk, config):
    """A card filled up while the bank was stopped (photos, logs): one sentence saying the disk is full, exit 2 (before:
    "The database ... failed: disk I/O error.", SQLite's word for the -shm file it could not size, as if the card
    were failing); once there is room, the game opens."""
    db = small_disk / "game.db"
    with app_on(small_disk, config) as app:
        WebClient(app.test_client())  # a session secret and a game, as after a first start
    filler = fill(small_disk)
    try:
        started = subprocess.run([TERRABANK, "--config", CONFIG, "--db", str(db), "serve",
                                  "--host", "127.0.0.1", "--port", "1"],
                                 capture_output=True, text=True, timeout=30, cwd=small_disk)
    finally:
        filler.unlink()
    assert started.returncode == 2, started.stderr
    assert "Traceback" not in started.stderr
    assert started.stderr.count("\n") == 1, started.stderr
    assert f"The disk holding {db} is full: free some space" in started.stderr, started.stderr
    verified = subprocess.run([TERRABANK, "--config", CONFIG, "--db", str(db), "verify"],
                              capture_output=True, text=True, timeout=60)
    assert verified.stdout.splitlines()[0] == "ok", verified.stdout + verified.stderr


def test_a_disk_filled_under_a_serving_bank_is_said_in_the_log_and_on_readyz_until_it_has_room(small_disk):
    """A real `terrabank serve` whose disk fills up: the first command refused is one log line saying what to do,
    /readyz answers 503 with that sentence while the disk is full and 200 as soon as it has room (before any
    command), the command sent again books once, and one more line says the writes are taken again, with how
    many were refused. Before: not a word in the log, and /readyz answered 200 "ready" all the while."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from harness import Api, Server

    server = Server(small_disk / "game").prepare().start()
    try:
        api = Api(server.url, timeout=20).login()
        assert api.command("before", **AWARD)[0] == 200
        said = lambda text: [line for line in server.log.read_text(errors="replace").splitlines()  # noqa: E731
                             if text in line]
        ready = lambda: Api(server.url, timeout=20).request("GET", "/readyz")  # noqa: E731
        filler = fill(small_disk)
        try:
            for n in range(4):  # a page sending its command again, as pages do with a 503
                status, reply = api.command("while-full", **AWARD)
                assert (status, reply["error"]["code"]) == (503, "disk_full"), reply
            status, readiness = ready()
            assert status == 503 and not readiness["checks"]["writable"], readiness
            assert "is full: free some space" in readiness["reason"], readiness
            refused = said("commands are refused until the bank can write the game again")
            assert len(refused) == 1 and "is full: free some space" in refused[0], refused
        finally:
            filler.unlink()
        assert ready()[0] == 200  # room again: ready before any command books
        assert api.command("while-full", **AWARD)[0] == 200
        assert api.command("after", **AWARD)[0] == 200
        back = said("the bank writes the game again")
        assert len(back) == 1 and "4 refused" in back[0], back
        assert len(said("commands are refused until")) == 1
        _, journal = api.request("GET", "/api/journal?limit=500")
        ids = [row["command"].get("id") for row in journal["rows"]]
        assert ids.count("while-full") == 1 and ids.count("after") == 1, ids
        assert "Traceback" not in server.log.read_text(errors="replace")
    finally:
        server.stop()


def test_a_read_only_accounts_table_answers_503_with_a_sentence_and_keeps_the_old_link(app, web, tokens):
    """Rotating a team link when the game file cannot be written: the lead reads why, the
    phones keep the link they have (no half-rotated token), and no 500 page."""
    lead = web("lead")
    access = app.extensions["terrabank"].access
    old = tokens["green"]
    access.conn.execute("PRAGMA query_only=ON")
    try:
        reply = lead.client.post("/api/teams/green/rotate", headers={"X-CSRF-Token": lead.csrf})
        assert reply.status_code == 503
        body = reply.get_json()["error"]
        assert body["code"] == "database_read_only" and "cannot be written" in body["message"]
    finally:
        access.conn.execute("PRAGMA query_only=OFF")
    assert access.team_for(old) == "green"
    assert lead.client.get(f"/t/{old}").status_code == 200
