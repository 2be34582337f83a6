"""PostgreSQL's own disk filled up under a serving bank: said as a full disk, on the pages, /readyz and in the log.

Before: each command refused was "database_connection_lost" ("the connection to the bank's database was lost",
"the command may not have been recorded") and closed its connection for another (PostgreSQL's "could not extend
file ...: No space left on device" is an OperationalError to psycopg): 294 commands in 10 s, each a new
connection; /readyz said "a connection to the database failed; the bank is asking whether it still holds the
game" and the log nothing at all. Now the refusal says the database's disk is full and that nothing was recorded,
the connection is kept, /readyz answers 503 with that sentence, one log line says it and one its end, and the
command sent again once there is room books once.

A PostgreSQL of its own on a 160 MB tmpfs (root and `mount`, else skipped), filled to the last byte: about 20 s.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

import postgres_kit
from pg_game_kit import Game
from harness import Api  # noqa: E402 (bench/ is on the path once pg_game_kit is imported)

AWARD = {"type": "award", "team": "green", "points": 1, "reason": "disk"}


def fill(folder: Path) -> Path:
    """A file written until the disk says ENOSPC (to the last 512 bytes); delete it to free the space."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (1 << 20, 65536, 512):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


@pytest.fixture
def postgres_on_a_small_disk():
    """A throwaway PostgreSQL whose data folder is on a 160 MB tmpfs (yields the server and the tmpfs)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root")
    disk = Path(tempfile.mkdtemp(prefix="terrabank-pg-disk-"))
    os.chmod(disk, 0o755)  # the server runs as `postgres`
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=160m,mode=1777", "tmpfs", str(disk)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    before, tempfile.tempdir = tempfile.tempdir, str(disk)  # postgres_kit makes its folder with mkdtemp
    try:
        server = postgres_kit.Server()
    finally:
        tempfile.tempdir = before
    try:
        yield server, disk
    finally:
        server.stop()
        subprocess.run(["umount", "-l", str(disk)], check=False)
        os.rmdir(disk)


def test_postgres_disk_full_is_said_as_a_full_disk_and_the_command_sent_again_books_once(
        postgres_on_a_small_disk, tmp_path):
    server, disk = postgres_on_a_small_disk
    game = Game(tmp_path, server.url)
    try:
        _, port = game.serve("a")
        base = f"http://127.0.0.1:{port}"
        api = Api(base, timeout=20).login()
        assert api.command("before", **AWARD)[0] == 200
        log = tmp_path / "a.log"
        said = lambda text: [line for line in log.read_text(errors="replace").splitlines() if text in line]  # noqa: E731
        filler = fill(disk)
        try:
            # The table's last page still has room for a few rows: booked until a row needs a new page.
            n = 0
            while api.command(f"fits-{n}", **AWARD)[0] == 200 and n < 1000:
                n += 1
            before = backends(server)
            for _ in range(6):  # a page sending its command again, as pages do with a 503
                status, reply = api.command("while-full", **AWARD)
                assert (status, reply["error"]["code"]) == (503, "database_disk_full"), reply
            assert "is full" in reply["error"]["message"] and "nothing was recorded" in reply["error"]["message"]
            assert "base de données" in reply["error"]["text"] and "plein" in reply["error"]["text"], reply
            opened = backends(server) - before  # before: one more for each refused command
            assert len(opened) < 3, opened
            status, readiness = Api(base, timeout=20).request("GET", "/readyz")
            assert status == 503 and "is full" in readiness["reason"] and readiness["checks"]["hold"], readiness
            refused = said("commands are refused until the bank can write the game again")
            assert len(refused) == 1 and "The disk of the database" in refused[0], refused
        finally:
            filler.unlink()
        assert api.command("while-full", **AWARD)[0] == 200
        back = said("the bank writes the game again")
        assert len(back) == 1 and "7 refused" in back[0], back
        assert Api(base, timeout=20).request("GET", "/readyz")[0] == 200
        assert game.rows().count("while-full") == 1
        assert "Traceback" not in log.read_text(errors="replace")
    finally:
        game.stop()


def backends(server) -> set:
    """The process ids of the app's connections to PostgreSQL now."""
    import psycopg

    with psycopg.connect(server.admin_url, autocommit=True) as conn:
        return {row[0] for row in conn.execute("SELECT pid FROM pg_stat_activity WHERE usename = 'bank'")}
