"""Everything the bank writes goes to one state directory, 0600 files in a 0700 folder.

Before: the code folder of docs/DEPLOY.md is owned by root and read-only to the bank's user, and the
paper writer tried `<game>-paper/` there (a hosted game `assoc/g/camp-paper`): a traceback every 5 s
per game and process, no state sheet ever written; the address note was lost without a word, and a
first start without a lead died writing the password there. Now `TERRABANK_STATE_DIR` (or systemd's
`STATE_DIRECTORY`, from `StateDirectory=` in the units) holds them all, and a write that fails is
one log line, shown on the admin page.

The tests run as root, whom a 0555 folder does not stop: the code folder is made immutable
(`chattr +i`), which refuses root's writes as a read-only folder refuses the bank's user.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TERRABANK = str(Path(sys.executable).with_name("terrabank"))


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@contextmanager
def read_only(folder: Path):
    """`folder` refuses every write, root's too, while the block runs (the code folder of docs/DEPLOY.md)."""
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here: a read-only folder cannot be made for root")
    try:
        yield folder
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def code_folder(tmp_path: Path) -> Path:
    """The operator's read-only code folder: the config.toml only."""
    code = tmp_path / "code"
    code.mkdir()
    shutil.copy(ROOT / "config.toml", code / "config.toml")
    return code


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(found, timeout: float = 90.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        time.sleep(0.25)
    return found()


def test_a_game_in_postgres_served_from_a_read_only_code_folder_writes_its_files_to_the_state_directory(
        postgres_server, tmp_path):
    code, state = code_folder(tmp_path), tmp_path / "var-lib-terrabank"
    game = f"state-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "TERRABANK_DATABASE_URL": postgres_server.url, "TERRABANK_DB": game,
           "TERRABANK_CONFIG": str(code / "config.toml"), "TERRABANK_STATE_DIR": str(state)}
    env.pop("TERRABANK_QUEUE_URL", None)
    log = tmp_path / "serve.log"
    with read_only(code):
        subprocess.run([TERRABANK, "init"], cwd=code, env=env, check=True, capture_output=True, timeout=120)
        with open(log, "wb") as out:  # not a terminal, as under systemd: the first password goes to a file
            server = subprocess.Popen([TERRABANK, "serve", "--host", "127.0.0.1", "--port", str(free_port()),
                                       "--base", "http://192.168.4.1:5000"], cwd=code, env=env,
                                      stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            sheets = wait_for(lambda: sorted((state / f"{game}-paper").glob("game-state-*.pdf")))
            output = log.read_text()
            assert sheets, f"no state sheet in {state} after 90 s; serve said:\n{output}"
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)
        assert sorted(p.name for p in code.iterdir()) == ["config.toml"]  # nothing tried beside the code
    output = log.read_text()
    assert "Traceback" not in output, output
    password, address = state / f"{game}-lead-password.txt", state / f"{game}-address.txt"
    assert "log in as lead with password" in password.read_text()
    assert str(password) in output  # the start says where the password is
    assert address.read_text().strip() == "http://192.168.4.1:5000"
    assert mode(state) == 0o700 and mode(state / f"{game}-paper") == 0o700
    assert mode(password) == 0o600 and mode(sheets[0]) == 0o600


def test_a_state_sheet_that_cannot_be_written_is_one_log_line_and_shown_on_the_admin_page(
        tmp_path, monkeypatch, caplog):
    from bank.web import create_app
    from bank.web.field import paper_writer

    code = code_folder(tmp_path)
    monkeypatch.setenv("TERRABANK_STATE_DIR", str(code / "state"))  # inside the read-only folder: refused
    app = create_app({"DB": str(tmp_path / "game.db"), "CONFIG": str(code / "config.toml"), "TESTING": True,
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    access = app.extensions["terrabank"].access
    access.add_user("lead", "correct horse", "lead")
    try:
        writer = paper_writer.of(app)
        assert writer.folder == (code / "state" / f"{tmp_path.name}-game-paper").resolve()
        with read_only(code), caplog.at_level(logging.INFO):
            for _ in range(3):  # three looks of the writer's loop (every 5 s when it writes, then every minute)
                writer.attempt()
        said = [r for r in caplog.records if "cannot write the game state" in r.getMessage()]
        assert len(said) == 1, [r.getMessage() for r in caplog.records]
        assert said[0].exc_info is None  # a sentence, not a traceback
        assert "TERRABANK_STATE_DIR" in said[0].getMessage()
        from conftest import WebClient

        lead = WebClient(app.test_client())
        assert lead.login("lead").status_code == 200
        saved = lead.client.get("/api/paper/saved").get_json()
        assert saved["folder"] == str(writer.folder)
        assert saved["error"] and str(code / "state") in saved["error"]  # paper.js shows it on the admin page
    finally:
        app.extensions["terrabank"].bank.close()
        access.close()


def test_each_game_has_its_own_names_in_the_state_directory(tmp_path, monkeypatch):
    """A hosted game in PostgreSQL (`assoc/g/camp`, which tried `assoc/g/camp-paper` in the code folder) and
    the hosted games' files (all `game.db`) never share a name; systemd's STATE_DIRECTORY is read too."""
    from bank.cli.serve import address_path, lead_password_path
    from bank.web.field.paper_writer import folder_for

    monkeypatch.delenv("TERRABANK_STATE_DIR", raising=False)
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "lib"))
    assert folder_for("assoc/g/camp") == tmp_path / "lib" / "assoc-g-camp-paper"
    assert folder_for("summer-camp") == tmp_path / "lib" / "summer-camp-paper"
    assert address_path("summer-camp") == tmp_path / "lib" / "summer-camp-address.txt"
    assert lead_password_path("summer-camp") == tmp_path / "lib" / "summer-camp-lead-password.txt"
    games = {folder_for(f"/var/lib/terrabank/games/{name}/game.db") for name in ("camp", "moor")}
    assert len(games) == 2
    monkeypatch.delenv("STATE_DIRECTORY")
    assert folder_for(tmp_path / "terrabank.db") == tmp_path / "terrabank-paper"  # a Pi: beside the game, as before


def test_a_state_sheet_on_a_full_disk_says_to_free_space_and_then_that_it_is_written_again(tmp_path, monkeypatch,
                                                                                            caplog):
    """Its disk full, the line says to free space on it (before: to give the bank another folder it may write,
    which fills too), and once there is room, one line says the state is written again (before: nothing)."""
    from bank.web import create_app
    from bank.web.field import paper_writer

    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    monkeypatch.setenv("TERRABANK_STATE_DIR", str(disk / "state"))
    app = create_app({"DB": str(tmp_path / "game.db"), "CONFIG": str(ROOT / "config.toml"), "TESTING": True,
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    try:
        writer = paper_writer.of(app)
        filler = disk / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        for size in (65536, 512, 1):  # to the last byte
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
        os.close(fd)
        with caplog.at_level(logging.INFO):
            for _ in range(3):  # three looks of the writer's loop
                writer.attempt()
            said = [r.getMessage() for r in caplog.records if "cannot write the game state" in r.getMessage()]
            assert len(said) == 1 and "disk is full: free some space" in said[0], said
            assert "TERRABANK_STATE_DIR" not in said[0]
            filler.unlink()
            writer.attempt()
            writer.attempt()
        again = [r.getMessage() for r in caplog.records if "the game state is written again" in r.getMessage()]
        assert len(again) == 1 and writer.files(), again
    finally:
        app.extensions["terrabank"].bank.close()
        app.extensions["terrabank"].access.close()
        subprocess.run(["umount", "-l", str(disk)], check=False)
