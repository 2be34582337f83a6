"""SQL statements a served game runs, counted in the real server process.

tests/services/test_statements_per_command.py counts a booked command through Flask's test client, so the
admission layer in front of the app (bank/web/serving/identity.py) never ran there. Before, it
read the team links and the big screen's key again once its copy was a second old: a facilitator
booking one harvest every 2 s cost 7 statements a command (5 in a burst); and while any phone held a
connection the ticker's sweep read the same two rows every second, with no command at all. Now both
keep them in memory and read them again only when one is replaced (tests/web/serving/test_links_replaced_served.py).

Here `terrabank serve` (Gunicorn's worker, the admission layer, the ticker) runs a game with
TERRABANK_SQL_TRACE set (bank/store/sqlite_file.py `traced`): its SQLite connections write every
statement they run to a file this test reads. What the game itself runs with no page and no command
is counted apart (`game_own`): the ticker's look for rows other processes booked (one a second), the
game clock's heartbeat (a checkpoint every 5 s while it runs, R34), the paper copy's look at the
new rows (every 5 s after a change, bank/web/field/paper_writer.py), and the clock's check of the game's own file
(the head it wrote, then a sweep of the next rows hashed: 6 statements of one read transaction every 5 s).
"""

from __future__ import annotations

import json
import sys
import time
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
from harness import Api, Server, launch  # noqa: E402
from test_admission import Crowd, open_page, phone_query  # noqa: E402
from sio_kit import Phone  # noqa: E402
from test_serving import harvest  # noqa: E402

from bank.store.sqlite_file import TRACE_ENV  # noqa: E402

pytestmark = pytest.mark.sqlite_file("counts the statements of the SQLite store")

# BEGIN IMMEDIATE, the journal row, its chain row, the time line's checkpoint, COMMIT.
MAX_STATEMENTS = 5
PAGES = 40  # connected team pages, 10 a team (the sweep read per game, not per page: 200 cost the same)
TEAMS = ("blue", "yellow", "red", "green")
TICKER = "(loop)"  # the ticker's thread: flask_socketio's background task runs `loop` (bank/web/push/live.py)
LOOK = "SELECT COALESCE(MAX(seq), 0) FROM journal"  # the ticker's look for rows another process booked
CHAIN_CHECK = "SELECT COALESCE(b.hash, c.hash) FROM chain c"  # the ticker's check of the head the bank wrote
HEARTBEAT = ("BEGIN IMMEDIATE", "INSERT OR REPLACE INTO clock_checkpoint", "COMMIT")
# The clock's sweep of the journal (bank/services/chain_watch.py sweep_rows: the next rows hashed every 5 s, a row
# edited with its chain left): one read transaction on the ticker, whatever the pages and the commands.
SWEEP = "SELECT seq, seal, hash FROM chain_snapshot WHERE seq BETWEEN"
PAPER = "terrabank-state-writer"
# Once a minute whatever the pace (a window may hold one of each): a session's row read again and its last_seen
# written (bank/store/accounts/sessions.py SEEN_EVERY), or the sweep's look for a session idled out (live.py).
MINUTELY = ("FROM sessions s JOIN facilitators", "UPDATE sessions SET last_seen")


class Traced(Server):
    """`terrabank serve` with every SQL statement of its SQLite connections written to `trace`."""

    def __init__(self, folder: Path):
        super().__init__(folder)
        self.trace = self.folder / "sql.trace"

    def start(self) -> "Traced":
        self.proc, self.port = launch(self.serve_command(), self.log, env={TRACE_ENV: str(self.trace)})
        return self

    def statements(self) -> list[tuple[str, str]]:
        """Every statement run so far, in order: (its thread's name, its SQL)."""
        if not self.trace.exists():
            return []
        return [tuple(line.split("\t", 2)[1:]) for line in self.trace.read_text().splitlines()]


def game_own(seen: list[tuple[str, str]]) -> tuple[list, list]:
    """(what the game runs with no page and no command, the rest) of `seen`, each in order."""
    own, rest = [], []
    ticker = [(i, sql) for i, (thread, sql) in enumerate(seen) if thread.endswith(TICKER)]
    clock_duties = set()  # the heartbeat's and the sweep's statements
    for at in range(len(ticker) - 2):  # the heartbeat's transaction: its three statements in a row on the ticker
        if all(ticker[at + k][1].startswith(HEARTBEAT[k]) for k in range(3)):
            clock_duties.update(ticker[at + k][0] for k in range(3))
    begun = None
    for at, (i, sql) in enumerate(ticker):  # the sweep's read transaction: from its BEGIN to its COMMIT
        if sql == "BEGIN":
            begun = at
        elif sql == "COMMIT" and begun is not None:
            if any(ticker[k][1].startswith(SWEEP) for k in range(begun, at)):
                clock_duties.update(ticker[k][0] for k in range(begun, at + 1))
            begun = None
    for i, (thread, sql) in enumerate(seen):
        mine = i in clock_duties or (thread.endswith(TICKER) and (sql == LOOK or sql.startswith(CHAIN_CHECK))) \
            or thread == PAPER
        (own if mine else rest).append(f"{thread}: {sql}")
    return own, rest


def without_minutely(lines: list[str]) -> list[str]:
    """`lines` less one of each MINUTELY statement, if there."""
    rest = list(lines)
    for kind in MINUTELY:
        found = next((line for line in rest if kind in line), None)
        if found is not None:
            rest.remove(found)
    return rest


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    with Traced(tmp_path_factory.mktemp("statements") / "bank").prepare().start() as server:
        lead = Api(server.url, timeout=30).login()
        assert lead.command("start", type="start_clock")[0] == 200
        server.lead, server.tokens = lead, lead.request("GET", "/api/teams/links")[1]
        try:
            yield server
        finally:
            lead.close()


def run_between(game, action, settle: float = 1.5) -> list[tuple[str, str]]:
    """The statements the server ran from just before `action` until `settle` seconds after it."""
    before = len(game.statements())
    action()
    time.sleep(settle)
    return game.statements()[before:]


def book(game, count: int, every: float, tag: str) -> None:
    """`count` harvests from the lead's console, one every `every` seconds (0: each as soon as the last is answered)."""
    for i in range(count):
        started = time.monotonic()
        status, reply = game.lead.command(f"{tag}-{i}", **harvest(i))
        assert status == 200, reply
        time.sleep(max(0.0, every - (time.monotonic() - started)))


@contextmanager
def connected(game):
    """PAGES team pages (10 a team) and a console connected, each sent its picture; yields (crowd, console)."""
    console = Phone(game.port, {}, headers={"Cookie": game.lead.cookie})
    with Crowd() as crowd, closing(console):
        assert console.wait_for(lambda name, data: name == "public", 10)  # connected: sent the picture
        for i in range(PAGES):
            page, _ = open_page(game.port, *phone_query(game.tokens[TEAMS[i % 4]]))
            assert page is not None, f"page {i} was refused"
            crowd.add(page)
        time.sleep(2.5)  # settled: every page connected and was sent its picture
        yield crowd, console


def test_idle_team_pages_and_a_console_cost_no_statements(game):
    """Before: the sweep read the team links and the screen's key every second while a phone was connected
    (2 statements a second with 40 pages, as with 200), and the console's session row every second while a
    console was (3 a second in all), besides the game's own look and heartbeat."""
    with connected(game) as (crowd, console):
        seen = run_between(game, lambda: None, 6)
        assert not [page for page in crowd.pages if page.closed]  # still there: they cost nothing because idle
        assert not console.closed
    own, pages = game_own(seen)
    pages = without_minutely(pages)
    print(f"\n{PAGES} idle pages and a console, 6 s: {len(pages) / 6:.2f} statements a second for them, "
          f"{len(own) / 6:.2f} the game's own")
    assert pages == [], f"{len(pages) / 6:.1f} statements a second with {PAGES} idle pages:\n" + "\n".join(pages[:20])


@pytest.mark.parametrize("every", [0.0, 2.0], ids=["burst", "one-every-2s"])
def test_a_booked_command_costs_at_most_five_statements_at_any_pace(game, every):
    """Before: 5 in a burst, 7 at one every 2 s (the admission layer's copy of the links was a second old)."""
    count = 12 if every == 0 else 5
    own, commands = game_own(run_between(game, lambda: book(game, count, every, f"pace-{every}")))
    commands = without_minutely(commands)
    print(f"\none every {every} s: {len(commands) / count:.2f} statements a command "
          f"(the game's own meanwhile: {len(own)})")
    assert len(commands) / count <= MAX_STATEMENTS, \
        f"{len(commands) / count:.1f} statements a command at one every {every} s:\n" + "\n".join(commands[:30])


@pytest.mark.parametrize("every", [0.0, 2.0], ids=["burst", "one-every-2s"])
def test_pages_connected_while_booking_add_no_statement(game, every):
    """Before: each broadcast round read the activity feed's new rows, the chain head at
    the picture's entry, and the consoles' new journal rows again, just after this process had written them:
    5.67 a command in a burst, 7.0 at one every 2 s with 40 pages, 8.0 with a console. Now the bank
    remembers the rows and heads it committed (bank/services/recent_rows.py; Bank.rows_upto, Bank.head_at)."""
    count = 12 if every == 0 else 5
    with connected(game) as (crowd, console):
        seen = run_between(game, lambda: book(game, count, every, f"pages-{every}"), 2.5)
        assert not [page for page in crowd.pages if page.closed]
        assert not console.closed
        last = f"pages-{every}-{count - 1}"
        assert console.wait_for(lambda name, data: last in json.dumps(data), 10), "the console never showed the last booking"
    own, commands = game_own(seen)
    commands = without_minutely(commands)
    print(f"\n{PAGES} pages and a console, one every {every} s: {len(commands) / count:.2f} statements a command")
    assert len(commands) / count <= MAX_STATEMENTS, \
        f"{len(commands) / count:.1f} statements a command with {PAGES} pages and a console at one every {every} s:\n" \
        + "\n".join(commands[:40])
