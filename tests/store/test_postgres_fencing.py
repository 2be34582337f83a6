"""One writer per game in PostgreSQL, PostgreSQL restarts included (bank/store/journal_pg_hold.py).

Before: a restart of PostgreSQL dropped every server's hold (pg_locks empty), never taken
again and never said; a second queue-less server then served the same game beside the
first, and `init --force` renamed the game under four running servers, whose next commands
went into the old game. Now each holder writes a new hold epoch into the game's row, every
journal row is written only under its writer's epoch (the fence), and a server whose hold
broke refuses commands, says so once, and takes the hold back within a couple of seconds.

Real `terrabank serve` processes on the throwaway PostgreSQL (tests/postgres_kit.py), which
these tests stop and start again on the same port. Stopping a server's main process
(SIGSTOP: its hold's watcher lives there) while its worker goes on serving stands for the
moment between the restart and the watcher's next look: another writer gets in first.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from bank.store import journal_pg_hold
from bank.store.journal_pg import PostgresJournal
from bank.store.journal_pg_hold import HOLD_LOST, hold
from bank.store.storage import StorageError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from harness import Api, end  # noqa: E402
from pg_game_kit import AWARD, Game, code, game, one, restart, settled, sql, wait_until  # noqa: E402,F401 (game: the fixture)


def holders(url: str, game: str) -> list[str]:
    return [r[0] for r in sql(url, "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON "
                                   "a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND "
                                   "l.classid::bigint = %s AND l.objid::bigint = %s",
                              (journal_pg_hold.HOLD_LOCK_SPACE, journal_pg_hold.lock_key(game) & 0xFFFFFFFF))]


# --- the epoch and the fence, in this process ---------------------------------------------------

def test_each_holder_alone_draws_a_new_epoch_and_servers_sharing_a_queue_share_one(postgres_server):
    url = postgres_server.url
    PostgresJournal.create(url, "epochs", "{}", {}).close()
    epoch = lambda: sql(url, "SELECT hold_epoch FROM terrabank.games WHERE name = 'epochs'")[0][0]  # noqa: E731
    with hold(url, "epochs", "terrabank serve", watch=False) as alone:
        first = epoch()
        assert alone.state().epoch == first > 0
    with hold(url, "epochs", "terrabank init", watch=False):
        assert epoch() > first  # init --force fences whoever held before
    one = hold(url, "epochs", "terrabank serve (with a queue)", shared=True, watch=False)
    two = hold(url, "epochs", "terrabank serve (with a queue)", shared=True, watch=False)
    try:
        assert one.state().epoch == two.state().epoch == epoch() < 0  # one epoch for the queue's servers
    finally:
        one.close()
        two.close()
    with hold(url, "epochs", "terrabank serve", watch=False):
        assert epoch() > 0  # an exclusive taker draws its own


def test_a_journal_whose_epoch_was_taken_writes_no_row(postgres_server):
    url = postgres_server.url
    PostgresJournal.create(url, "fenced", "{}", {}).close()
    journal = PostgresJournal.open(url, "fenced")
    try:
        with hold(url, "fenced", "terrabank serve", watch=False) as held:
            row = {"command_id": "c1", "fingerprint": "f", "type": "award", "actor": "x", "at": 1.0,
                   "command": {}, "events": []}
            with journal.transaction():
                journal.append(row)  # under the hold's epoch
            # Another process takes the game (as after a restart): a new epoch in the game's row.
            sql(url, "UPDATE terrabank.games SET hold_epoch = nextval('terrabank.hold_epochs') WHERE name = 'fenced'")
            with pytest.raises(StorageError) as refused:
                with journal.transaction():
                    journal.append({**row, "command_id": "c2"})
            assert refused.value.code == "hold_taken"
            held._set(False, held.state().game_id, held.state().epoch)  # what the watcher does when it breaks
            with pytest.raises(StorageError) as lost:
                with journal.transaction():
                    journal.append({**row, "command_id": "c3"})
            assert lost.value.code == "hold_lost" and HOLD_LOST in lost.value.message
        assert journal.last_seq() == 1
    finally:
        journal.close()


def test_a_journal_whose_epoch_was_taken_cannot_move_the_time_line(postgres_server):
    """Before: the time line's checkpoint (the one row per game that changes) was written whatever the
    epoch: a server fenced out went on moving the new holder's game time (R34: the clock's reference)."""
    url = postgres_server.url
    PostgresJournal.create(url, "fenced-clock", "{}", {}).close()
    journal = PostgresJournal.open(url, "fenced-clock")
    try:
        with hold(url, "fenced-clock", "terrabank serve", watch=False):
            journal.save_checkpoint(100.0, 1000.0)  # under the hold's epoch: kept
            sql(url, "UPDATE terrabank.games SET hold_epoch = nextval('terrabank.hold_epochs') "
                     "WHERE name = 'fenced-clock'")
            with pytest.raises(StorageError) as refused:
                journal.save_checkpoint(999.0, 9999.0)  # the heartbeat's own transaction (Bank._beat)
            assert refused.value.code == "hold_taken"
            with pytest.raises(StorageError) as with_row:
                with journal.transaction():
                    journal.save_checkpoint(999.0, 9999.0)
            assert with_row.value.code == "hold_taken"
        assert journal.last_checkpoint() == (100.0, 1000.0)
    finally:
        journal.close()


def test_the_watcher_takes_the_hold_back_after_a_restart_and_says_so_once_each_way(postgres_server, caplog):
    url = postgres_server.url
    PostgresJournal.create(url, "watched", "{}", {}).close()
    with caplog.at_level("WARNING", logger="terrabank.hold"), hold(url, "watched", "terrabank serve") as held:
        before = held.state().epoch
        back_at = restart(postgres_server)
        again = wait_until(lambda: held.state().held and held.state().epoch != before, 10)
        took = time.monotonic() - back_at
        assert again, "the hold was not taken back"
        assert took < 4, f"took {took:.1f} s to take the hold back"
        assert holders(url, "watched") == [f"terrabank serve on {os.uname().nodename}, process {os.getpid()}"]
    lines = [r.getMessage() for r in caplog.records if r.name == "terrabank.hold"]
    assert sum("lost the hold" in line for line in lines) == 1, lines
    assert sum("took back the hold" in line for line in lines) == 1, lines


# --- real servers --------------------------------------------------------------------------------

class Burst:
    """Commands sent one after the other to a server until stopped (at most `most`, for at most 90 s: a
    loaded machine spends hundreds on refusals while PostgreSQL restarts, and must not run out)."""

    def __init__(self, port: int, name: str, most: int = 5000):
        self.api, self.name, self.most = Api(f"http://127.0.0.1:{port}", timeout=15).login(), name, most
        self.acknowledged: list[str] = []
        self.replies: list[tuple[str, int, dict | str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        deadline = time.monotonic() + 90
        for n in range(self.most):
            if self._stop.is_set() or time.monotonic() > deadline:
                return
            key = f"{self.name}-{n}"
            try:
                status, body = self.api.command(key, **AWARD)
            except OSError:
                status, body = 0, "no answer"
            self.replies.append((key, status, body))
            if status == 200:
                self.acknowledged.append(key)
            self._stop.wait(0.02)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


def outlast_the_lease(game: "Game") -> None:
    """The stopped server's lease runs out (journal_pg_lease.py), as after an outage longer than its minute:
    made so by hand. Without it the lease keeps every other taker out (tests/store/test_one_writer_in_every_gap.py)."""
    sql(game.url, "UPDATE terrabank.hold_leases SET until = clock_timestamp() WHERE game = %s", (game.name,))


def test_a_restarted_postgres_finds_the_server_holding_its_game_again(game, postgres_server):
    """The hold is taken back within about two seconds; meanwhile and after, a second server and
    `init --force` are refused; every acknowledged command of the burst is in the journal once."""
    _, port = game.serve("a")
    burst = Burst(port, "a")
    try:
        assert wait_until(lambda: len(burst.acknowledged) >= 10, 30)
        back_at = restart(postgres_server)
        assert wait_until(lambda: holders(game.url, game.name), 10), "the hold was never taken back"
        took = time.monotonic() - back_at
        assert took < 4, f"took {took:.1f} s"
        assert "already running" in game.refused_to_serve()
        refused = game.cli("init", "--force", check=False)
        assert refused.returncode != 0 and "already running" in refused.stderr
        count = len(burst.acknowledged)
        assert wait_until(lambda: len(burst.acknowledged) >= count + 10, 30), (burst.replies[-1], game.log("a")[-3000:])
    finally:
        burst.stop()
    booked = game.rows()
    assert [k for k in burst.acknowledged if booked.count(k) != 1] == []
    log = game.log("a")
    assert log.count("lost the hold") == 1 and log.count(f"took back the hold on game '{game.name}'") == 1, log[-3000:]


@pytest.mark.serial("a stopped server's reconnect after a PostgreSQL restart, within 30 s: beside four workers on a slow host it took longer")
def test_a_server_whose_hold_another_took_books_nothing_and_says_who(game, postgres_server):
    """Before: the second queue-less server started and both booked into the one game."""
    proc_a, port_a = game.serve("a")
    burst = Burst(port_a, "a")
    try:
        assert wait_until(lambda: len(burst.acknowledged) >= 10, 30)
        os.kill(proc_a.pid, signal.SIGSTOP)  # a's watcher sleeps; its worker serves on
        try:
            restart(postgres_server)
            outlast_the_lease(game)
            _, port_b = game.serve("b")  # gets in before a looks again
            b_started = len(burst.replies)
            on_b = Api(f"http://127.0.0.1:{port_b}").login()
            assert one(on_b, "b-1")[0] == 200
            # a's first replies after the restart may still be its lost connection's (more of them on a
            # loaded machine); once it reconnects, its insert meets b's epoch and is refused.
            def fenced():
                return [code(body) for _, status, body in list(burst.replies[b_started:]) if status != 200]
            assert wait_until(lambda: "hold_taken" in fenced(), 30), (fenced()[-5:], burst.replies[-1], game.log("a")[-3000:])
        finally:
            os.kill(proc_a.pid, signal.SIGCONT)
        # a's watcher wakes: the hold is gone and b has it; a says so and refuses with the sentence.
        assert wait_until(lambda: f"cannot take back the hold on game '{game.name}'" in game.log("a"), 10), game.log("a")[-2000:]
        status, body = one(Api(f"http://127.0.0.1:{port_a}").login(), "a-late")
        assert status == 503 and code(body) == "hold_lost" and HOLD_LOST in body["error"]["message"]
        assert "process" in body["error"]["message"]  # who holds it instead
        refused = game.cli("init", "--force", check=False)  # b holds it; a waits for it
        assert refused.returncode != 0 and "already running" in refused.stderr
        assert "already running" in game.refused_to_serve()
        after_b = list(burst.replies[b_started:])
    finally:
        burst.stop()
    booked = game.rows()
    on_a_after_b = [k for k, _, _ in after_b if k in booked]
    assert on_a_after_b == [], "a booked after b took the game"
    assert "b-1" in booked and "a-late" not in booked
    assert [k for k in burst.acknowledged if booked.count(k) != 1] == []
    log = game.log("a")
    assert log.count("lost the hold") == 1 and log.count("cannot take back the hold") == 1, log[-3000:]
    # b stops: a takes its game back within a couple of seconds and books again.
    end(game.procs[1])
    assert wait_until(lambda: f"took back the hold on game '{game.name}'" in game.log("a"), 10), game.log("a")[-2000:]
    assert one(Api(f"http://127.0.0.1:{port_a}").login(), "a-back")[0] == 200


def test_an_init_force_while_the_hold_is_lost_fences_the_old_server(game, postgres_server):
    """Before: init --force succeeded under running servers, whose next command went into the renamed game."""
    proc_a, port_a = game.serve("a")
    on_a = Api(f"http://127.0.0.1:{port_a}").login()
    assert one(on_a, "a-1")[0] == 200
    os.kill(proc_a.pid, signal.SIGSTOP)
    try:
        restart(postgres_server)
        outlast_the_lease(game)
        replaced = game.cli("init", "--force", check=False)  # in the window before a takes its hold back
        assert replaced.returncode == 0, replaced.stderr
        status, body = settled(on_a, "a-2")
        assert status == 503 and code(body) == "hold_taken", body
    finally:
        os.kill(proc_a.pid, signal.SIGCONT)
    assert wait_until(lambda: "another game now" in game.log("a"), 10), game.log("a")[-2000:]
    # Its state is the old game's: it ends as for a stop, with a status its systemd unit restarts on
    # (before: it stayed up refusing, "tick failed" and a traceback every second, 125 in 2 minutes).
    assert proc_a.wait(timeout=30) == 75, game.log("a")[-3000:]
    log = game.log("a")
    assert log.count("another game now") == 1 and "tick failed" not in log and "Traceback" not in log, log[-3000:]
    assert "stops, for its supervisor to start it on the new game" in log
    kept = [r[0] for r in sql(game.url, "SELECT name FROM terrabank.games WHERE name LIKE %s", (game.name + "-%",))]
    assert len(kept) == 1
    assert "a-1" in game.rows(kept[0]) and "a-2" not in set(game.rows(kept[0]) + game.rows())


def test_a_redis_restart_keeps_the_shared_epoch_and_every_server_booking(game, postgres_server, redis_server):
    """Servers hearing each other through a queue share one (negative) epoch (journal_pg_hold.py): a restart
    of Redis, their queue, draws no new epoch, so neither server fences the other out; both go on booking
    through it, a queue-less server and `init --force` are still refused, and every acknowledged command is
    in the journal once. """
    game.env["TERRABANK_QUEUE_URL"] = redis_server.url
    ports = [game.serve(name)[1] for name in ("a", "b")]
    epoch = lambda: sql(game.url, "SELECT hold_epoch FROM terrabank.games WHERE name = %s", (game.name,))[0][0]  # noqa: E731
    shared = epoch()
    assert shared < 0 and len(holders(game.url, game.name)) == 2
    bursts = [Burst(port, name) for port, name in zip(ports, ("a", "b"))]
    try:
        assert wait_until(lambda: all(len(b.acknowledged) >= 10 for b in bursts), 30), [b.replies[-3:] for b in bursts]
        redis_server.restart(down=2.0)
        counts = [len(b.acknowledged) for b in bursts]
        assert wait_until(lambda: all(len(b.acknowledged) >= c + 10 for b, c in zip(bursts, counts)), 30), \
            [b.replies[-3:] for b in bursts]
        assert epoch() == shared and len(holders(game.url, game.name)) == 2
        game.env["TERRABANK_QUEUE_URL"] = ""  # a server without the queue needs the game alone
        assert "already running" in game.refused_to_serve()
        refused = game.cli("init", "--force", check=False)
        assert refused.returncode != 0 and "already running" in refused.stderr
    finally:
        for burst in bursts:
            burst.stop()
    fenced = [code(body) for b in bursts for _, status, body in b.replies if status != 200]
    assert not {"hold_taken", "hold_lost", "game_replaced"} & set(fenced), fenced
    booked = game.rows()
    acknowledged = [k for b in bursts for k in b.acknowledged]
    assert [k for k in acknowledged if booked.count(k) != 1] == []
    apis = [Api(f"http://127.0.0.1:{port}").login() for port in ports]
    last = len(booked)
    # Each server shows every row, the other's included (the notice through the restarted queue, or
    # the once-a-second look).
    assert wait_until(lambda: [a.request("GET", "/api/state")[1]["seq"] for a in apis] == [last, last], 10)
