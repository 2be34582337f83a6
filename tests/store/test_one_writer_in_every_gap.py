"""One writer in every gap: a restart of PostgreSQL lets nobody in under running servers.

Before: PostgreSQL forgets every advisory lock when it restarts, and the servers' watchers
take their holds back only at their next look (up to a second or two later). A tight loop
of `init --force` got in meanwhile under four running servers ("INIT --FORCE SUCCEEDED on
try 35"), and every server then refused everything until restarted; a lone second `serve`
without a queue got in the same way. Now each server's hold is also a lease, a row that
survives the restart (bank/store/journal_pg_lease.py): every taker is refused while it is live.

Each server runs in a folder of its own (a host of its own: the file lock beside --db, which
a read-only folder skips anyway, is no help), so only the database can keep the gap shut.
"""

from __future__ import annotations

import threading
import time

from bank.errors import BankError
from bank.store.journal_pg_hold import hold
from bank.store.storage import StorageError
from pg_game_kit import AWARD, Game, game, restart, settled, sql, wait_until  # noqa: F401 (game: a fixture)
from harness import Api, end  # noqa: E402 (bench/ is on the path once test_postgres_fencing is imported)

DOWN = 1.0  # seconds PostgreSQL stays down, as `systemctl restart postgresql` on a small machine
AFTER = 8.0  # seconds the takers go on trying once it answers again: the servers' watchers look every second


class Takers:
    """Every way in, tried in a loop until stopped: the real `init --force` (as the issue's loop did), and the
    same hold taken in this process as fast as it goes (init's, and a queue-less server's)."""

    def __init__(self, game: Game):
        self.game, self.got_in, self.tries = game, [], 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._cli, daemon=True)] + [
            threading.Thread(target=self._in_process, args=(who,), daemon=True)
            for who in ("terrabank init", "terrabank serve")]
        for thread in self._threads:
            thread.start()

    def _cli(self) -> None:
        while not self._stop.is_set():
            done = self.game.cli("init", "--force", check=False)
            self.tries += 1
            if done.returncode == 0:
                self.got_in.append(f"init --force: {done.stdout.strip()}")

    def _in_process(self, who: str) -> None:
        while not self._stop.is_set():
            try:
                with hold(self.game.url, self.game.name, who, watch=False, lease_it=False):
                    self.got_in.append(who)
            except (BankError, StorageError):
                pass  # refused (the game is held), or PostgreSQL does not answer yet
            self.tries += 1
            self._stop.wait(0.005)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=150)


def epoch_and_number(game: Game) -> tuple:
    return tuple(sql(game.url, "SELECT hold_epoch, id FROM terrabank.games WHERE name = %s", (game.name,))[0])


def test_init_force_never_slips_in_while_postgres_restarts_under_four_servers(game, postgres_server, redis_server):
    game.env["TERRABANK_QUEUE_URL"] = redis_server.url
    ports = [game.serve(name)[1] for name in "abcd"]
    apis = [Api(f"http://127.0.0.1:{port}", timeout=15).login() for port in ports]
    for n, api in enumerate(apis):
        assert api.command(f"before-{n}", **AWARD)[0] == 200
    before = epoch_and_number(game)
    takers = Takers(game)
    try:
        assert wait_until(lambda: takers.tries >= 20, 60)  # every taker runs, and is refused
        restart(postgres_server, down=DOWN)
        time.sleep(AFTER)
    finally:
        takers.stop()
    assert takers.got_in == [], f"got in under four servers: {takers.got_in[:3]} ({takers.tries} tries)"
    print(f"{takers.tries} tries refused under four servers")  # the figure docs/RELIABILITY.md gives
    assert epoch_and_number(game) == before  # the servers' shared epoch, the same game
    for n, api in enumerate(apis):  # every server books again: none was fenced out
        status, body = settled(api, f"after-{n}", 30)
        assert status == 200, (n, body, game.log("abcd"[n])[-2000:])
    booked = [k for k in game.rows() if k.startswith(("before", "after"))]  # not the game's setup row
    assert sorted(booked) == sorted([f"before-{n}" for n in range(4)] + [f"after-{n}" for n in range(4)])


def test_a_second_queueless_server_never_slips_in_while_postgres_restarts(game, postgres_server):
    _, port = game.serve("a")
    api = Api(f"http://127.0.0.1:{port}", timeout=15).login()
    assert api.command("before", **AWARD)[0] == 200
    takers = Takers(game)
    try:
        assert wait_until(lambda: takers.tries >= 20, 60)
        restart(postgres_server, down=DOWN)
        time.sleep(AFTER)
        assert "already running" in game.refused_to_serve()  # the real second `serve`, named the first
    finally:
        takers.stop()
    assert takers.got_in == [], f"got in beside the server: {takers.got_in[:3]} ({takers.tries} tries)"
    status, body = settled(api, "after", 30)
    assert status == 200, (body, game.log("a")[-2000:])
    assert [k for k in game.rows() if k.startswith(("before", "after"))] == ["before", "after"]


def test_a_stopped_server_leaves_the_game_free_at_once(game):
    """A clean stop deletes its lease, and a killed server's lease dies with its session: neither keeps
    `init --force` out for the lease's minute."""
    proc, _ = game.serve("a")
    end(proc)
    assert game.cli("init", "--force", check=False).returncode == 0
    proc, _ = game.serve("b")
    proc.kill()
    proc.wait()
    # Gunicorn's worker (the master's child) may outlive it a moment; the hold is the master's session.
    assert wait_until(lambda: game.cli("init", "--force", check=False).returncode == 0, 30)
