"""The game file is safe from its own commands: `init --force` cannot replace a game a server is
booking into, keeps a dated copy of the old one and says what it wipes; a second server on the
same file is refused; the first-start lead password never reaches a log.

The served cases run a real `terrabank serve` process (bench/harness.py), as on the day.
"""

from __future__ import annotations

import io
import os
import re
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from bank.store import gamefile
from bank.cli.main import main
from bank.cli.serve import first_lead, lead_password_path
from conftest import CONFIG_PATH

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import harness  # noqa: E402


def terrabank(db, *args) -> subprocess.CompletedProcess:
    """The real command, in its own process, as a facilitator types it."""
    return subprocess.run([harness.TERRABANK, "--config", str(CONFIG_PATH), "--db", str(db), *args],
                          capture_output=True, text=True, timeout=120)


def read(db, sql: str) -> list:
    """Rows of a game file, read-only (the server may be writing it)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def booked(db) -> int:
    return read(db, "SELECT COUNT(*) FROM journal WHERE type NOT IN ('setup', 'tick')")[0][0]


def copies(db: Path) -> list:
    return sorted(db.parent.glob(f"{db.stem}-2*.db"))


def one_line(stderr: str) -> str:
    assert stderr.startswith("terrabank: ") and stderr.count("\n") == 1, stderr
    return stderr


@pytest.fixture
def served(tmp_path):
    """A running `terrabank serve` with a lead account, its clock started and two commands booked."""
    server = harness.Server(tmp_path).prepare().start()
    api = harness.Api(server.url).login()
    for key, command in [("go", {"type": "start_clock"}),
                         ("a1", {"type": "award", "team": "red", "points": 2, "reason": "fair play"})]:
        status, reply = api.command(key, **command)
        assert status == 200, reply
    server.api = api
    yield server
    api.close()
    server.stop()


def test_init_force_is_refused_while_the_bank_serves_the_file(served):
    tokens = read(served.db, "SELECT team, token FROM team_tokens")
    done = terrabank(served.db, "init", "--force")
    assert done.returncode == 2
    error = one_line(done.stderr)
    assert "already running" in error and "stop it first" in error and "nothing was changed" in error
    assert f"process {served.pid}" in error
    # The served game is intact and the server still books into the file it holds.
    status, reply = served.api.command("a2", type="award", team="blue", points=1, reason="helped")
    assert status == 200, reply
    served.kill()
    assert booked(served.db) == 3
    assert read(served.db, "SELECT username FROM facilitators") == [(harness.USER,)]
    assert read(served.db, "SELECT team, token FROM team_tokens") == tokens
    assert copies(served.db) == []


def test_a_second_server_on_the_same_file_is_refused(served):
    done = terrabank(served.db, "serve", "--host", "127.0.0.1", "--port", "0")  # refused before it binds any
    assert done.returncode == 2
    assert "already running" in one_line(done.stderr)
    status, reply = served.api.command("a2", type="award", team="blue", points=1, reason="helped")
    assert status == 200, reply


def test_after_a_kill_init_force_keeps_a_dated_copy_and_says_what_it_wiped(served):
    old_tokens = dict(read(served.db, "SELECT team, token FROM team_tokens"))
    served.kill()  # SIGKILL, as a power cut: the lock must not outlive the process
    done = terrabank(served.db, "init", "--force")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "wiping its 2 booked commands" in out
    assert "keeping its 1 facilitator account" in out
    assert "replacing its 4 team links with new ones" in out
    [copy] = copies(served.db)
    assert re.fullmatch(r"bench-\d{8}-\d{6}\.db", copy.name)
    assert str(copy) in out
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert not Path(f"{copy}-wal").exists()  # one self-contained file, the killed server's WAL folded in
    checked = terrabank(copy, "verify")
    assert checked.returncode == 0 and checked.stdout.startswith("ok"), checked.stdout + checked.stderr
    assert booked(copy) == 2
    # The new game: empty journal, the accounts carried over (the lead can log in), new team links.
    assert booked(served.db) == 0
    assert read(served.db, "SELECT username, role FROM facilitators") == [(harness.USER, "lead")]
    served.start()
    harness.Api(served.url).login().close()
    new_tokens = dict(read(served.db, "SELECT team, token FROM team_tokens"))
    assert set(new_tokens) == set(old_tokens) and not set(new_tokens.values()) & set(old_tokens.values())


def test_init_force_keep_links_keeps_the_team_links(tmp_path, capsys, monkeypatch):
    db = str(tmp_path / "g.db")
    args = ["--config", str(CONFIG_PATH), "--db", db]
    assert main([*args, "init"]) == 0
    capsys.readouterr()
    assert main([*args, "links", "--base", "http://bank:5000"]) == 0
    links = capsys.readouterr().out
    assert main([*args, "init", "--force", "--keep-links"]) == 0
    assert "keeping its 4 team links" in capsys.readouterr().out
    assert main([*args, "links", "--base", "http://bank:5000"]) == 0
    assert capsys.readouterr().out == links


def test_init_force_in_a_folder_named_with_a_hash_keeps_the_real_old_game(tmp_path, capsys):
    """A '#' in the path once cut SQLite's URI: the "copy" was an empty file and the accounts were lost."""
    folder = tmp_path / "day #2?"
    folder.mkdir()
    db = folder / "g.db"
    args = ["--config", str(CONFIG_PATH), "--db", str(db)]
    assert main([*args, "init"]) == 0
    from bank.store.accounts.access import Access

    access = Access(db, "pbkdf2:sha256:1000")
    access.add_user("ann", "password1", "lead")
    access.close()
    capsys.readouterr()
    assert main([*args, "init", "--force"]) == 0
    assert "keeping its 1 facilitator account" in capsys.readouterr().out
    [copy] = copies(db)
    with sqlite3.connect(copy) as conn:
        assert conn.execute("SELECT username FROM facilitators").fetchall() == [("ann",)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["day #2?"]  # no stray file made beside it


def test_init_force_is_refused_while_the_lock_is_held(tmp_path, capsys):
    db = tmp_path / "g.db"
    args = ["--config", str(CONFIG_PATH), "--db", str(db)]
    assert main([*args, "init"]) == 0
    before = db.read_bytes()
    with gamefile.hold(db, "terrabank serve"):
        assert main([*args, "init", "--force"]) == 2
        assert "already running" in one_line(capsys.readouterr().err)
    assert db.read_bytes() == before and copies(db) == []
    assert main([*args, "init", "--force"]) == 0  # released: now it may


def test_init_force_through_a_symlink_meets_the_same_lock(tmp_path, capsys):
    db = tmp_path / "g.db"
    link = tmp_path / "today.db"
    assert main(["--config", str(CONFIG_PATH), "--db", str(db), "init"]) == 0
    link.symlink_to(db)
    with gamefile.hold(db, "terrabank serve"):
        assert main(["--config", str(CONFIG_PATH), "--db", str(link), "init", "--force"]) == 2
        assert "already running" in one_line(capsys.readouterr().err)


def test_lock_and_copies_are_private(tmp_path):
    db = tmp_path / "g.db"
    assert main(["--config", str(CONFIG_PATH), "--db", str(db), "init"]) == 0
    assert stat.S_IMODE(gamefile.lock_path(db).stat().st_mode) == 0o600
    assert stat.S_IMODE(gamefile.backup(db).stat().st_mode) == 0o600


def test_a_damaged_file_is_still_copied_before_it_is_replaced(tmp_path, capsys):
    db = tmp_path / "g.db"
    db.write_bytes(b"not a game at all" * 100)
    assert main(["--config", str(CONFIG_PATH), "--db", str(db), "init", "--force"]) == 0
    assert "cannot be read as a game" in capsys.readouterr().out
    [copy] = copies(db)
    assert copy.read_bytes() == b"not a game at all" * 100


def test_export_cannot_replace_the_lock_file(tmp_path, capsys):
    db = tmp_path / "g.db"
    args = ["--config", str(CONFIG_PATH), "--db", str(db)]
    assert main([*args, "init"]) == 0
    assert main([*args, "export", "journal", "--out", str(gamefile.lock_path(db))]) == 2
    assert "game's own files" in one_line(capsys.readouterr().err)


def test_first_start_without_a_terminal_keeps_the_lead_password_off_the_log(tmp_path):
    server = harness.Server(tmp_path)  # no prepare(): the first start makes the lead account
    server.start()
    try:
        log = server.log.read_text()
        secret = lead_password_path(server.db)
        assert str(secret.resolve()) in log
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600
        password = re.search(r"password\s+(\S+)", secret.read_text()).group(1)
        assert password not in log
        for _, token in read(server.db, "SELECT team, token FROM team_tokens"):
            assert token not in log  # serve never prints the team links
        harness.Api(server.url).login("lead", password).close()
        server.stop()
        server.start()  # a later start reminds, without the password, that the file is still there
        later = server.log.read_text()[len(log):]
        assert "Reminder" in later and str(secret.resolve()) in later and password not in later
    finally:
        server.stop()


def test_first_start_on_a_terminal_shows_the_password_and_writes_no_file(tmp_path, monkeypatch, capsys):
    added = []

    class Accounts:
        def add_user(self, name, password, role):
            added.append(password)

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    first_lead(Accounts(), tmp_path / "g.db")
    assert added[0] in capsys.readouterr().out
    assert not lead_password_path(tmp_path / "g.db").exists()


def test_a_left_over_password_file_is_replaced_by_a_private_one(tmp_path, capsys):
    db = tmp_path / "g.db"
    old = lead_password_path(db)
    old.write_text("old")
    os.chmod(old, 0o644)
    added = []

    class Accounts:
        def add_user(self, name, password, role):
            added.append(password)

    first_lead(Accounts(), db)  # capsys: standard output is not a terminal
    assert stat.S_IMODE(old.stat().st_mode) == 0o600 and added[0] in old.read_text()
    assert added[0] not in capsys.readouterr().out


@pytest.mark.parametrize("name", ["\u200b\u200b", "\u3164", "al\nice", "\u0301"])
def test_a_username_without_visible_letters_is_refused(tmp_path, monkeypatch, capsys, name):
    db = tmp_path / "g.db"
    args = ["--config", str(CONFIG_PATH), "--db", str(db)]
    assert main([*args, "init"]) == 0
    assert main([*args, "links"]) == 0  # makes the accounts' table
    monkeypatch.setattr("sys.stdin", io.StringIO("a long password\n"))
    assert main([*args, "user", name, "--role", "banker", "--password-stdin"]) == 2
    assert "visible" in one_line(capsys.readouterr().err)
    assert read(db, "SELECT COUNT(*) FROM facilitators") == [(0,)]
