"""A computer seat thinks during its pace: an action shows max(thinking, pace) after the change before it.

On a phone at a Pi's budget a hard turn took a median 6.25 s where its thinking took 3.06 s: the
server waited its pace (1 s) after each change and only then thought, before each of a turn's 3-5
actions. Now the seat chooses as soon as the position comes and writes its move no earlier than the
pace after that change, and the pace is cut so that a whole turn fits in what a table waits for the
level (2 s easy, 5 s hard). A choice made for a position that moved on (the table's undo while it
thought, or while it waited for its pace) is dropped, never written; a failed write keeps the same
move for the same position; a refused one is chosen again; a budget near zero still gives a legal move.
"""

from __future__ import annotations

import logging
import threading
import time

import pytest

import trias
import trias.bots
import bank.web.trias.computer as computer_module
from bank.services.trias_computer_moves import ComputerMoves
from bank.store.storage import StorageError
from bank.web.trias.computer import MARGIN, MIN_PACE, TABLE_TURN, Choice
from trias.bots.determinise import as_view, determinise
from trias.bots.turn import most_decisions
from trias.errors import IllegalMove
from trias_kit import Table, trias_web_app

REAL_CHOOSE = trias.bots.choose


@pytest.fixture
def app(tmp_path, config):
    with trias_web_app(tmp_path / "web.db", config) as made:
        yield made


def bots(*levels):
    return [{"name": f"Bot {i}", "kind": "computer", "level": level} for i, level in enumerate(levels)]


def past_placing(app, game, monkeypatch) -> None:
    """Every herd placed (T8) at once by random moves, so that what is timed is turns of several actions."""
    player = app.extensions["trias_computer"]
    player.poke(game.id)
    with monkeypatch.context() as patch:
        patch.setattr(trias.bots, "choose", lambda view, level, budget, rng, table=None: REAL_CHOOSE(view, "random", None, rng))
        while game.state.phase == "place":
            assert player.step(force=True) == 1


class Shown:
    """When each computer move reached the screens (the computer player's publish), by the clock."""

    def __init__(self, monkeypatch, game, clock=time.monotonic):
        self.game, self.moves = game, []
        publish = computer_module.publish

        def noted(app, played, before):
            self.moves.append((clock(), played.last_seq))
            publish(app, played, before)
        monkeypatch.setattr(computer_module, "publish", noted)

    def turns(self) -> list:
        """[(seconds shown, actions)] of each whole turn: from the last action of the turn before (the
        change that gave the seat its turn) to the turn's last action."""
        rows = {r["seq"]: r for r in self.game.rows(0)}
        seats = [(t, int(rows[seq]["actor"].split(":")[1])) for t, seq in self.moves]
        runs = []  # [seat, first index, last index]
        for i, (_, seat) in enumerate(seats):
            if runs and runs[-1][0] == seat:
                runs[-1][2] = i
            else:
                runs.append([seat, i, i])
        # The first run's start is not seen, and the last may go on: whole turns are those between.
        return [(seats[last][0] - seats[first - 1][0], last - first + 1) for _, first, last in runs[1:-1]]

    def gaps(self) -> list:
        return [b[0] - a[0] for a, b in zip(self.moves, self.moves[1:])]


def running(player):
    """The computer player's own loop (as `start` runs it) in a thread, until the block ends."""
    stop = threading.Event()
    thread = threading.Thread(target=player.run, args=(stop,), daemon=True)

    class Loop:
        def __enter__(self):
            thread.start()
            return self

        def __exit__(self, *exc):
            stop.set()
            player.wake.set()
            thread.join(timeout=30)
            assert not thread.is_alive()
    return Loop()


THINK, PACE, SLACK = 0.8, 1.0, 0.15


@pytest.mark.serial("times whole computer turns by the clock")
def test_a_turn_shows_at_max_of_thinking_and_pace_an_action_not_their_sum(app, monkeypatch):
    """Each action thinks 0.8 s, the pace is 1 s: a turn of n actions shows within n x 1 s (and some
    slack), where thinking after the pace took n x 1.8 s."""
    game = app.extensions["trias_games"].create(seats=bots("medium", "medium"), seed=5)
    player = app.extensions["trias_computer"]
    past_placing(app, game, monkeypatch)

    def thinker(view, level, budget, rng, table=None):
        started = time.monotonic()
        command = REAL_CHOOSE(view, "random", None, rng)
        time.sleep(max(0.0, THINK - (time.monotonic() - started)))
        return command
    monkeypatch.setattr(trias.bots, "choose", thinker)
    shown = Shown(monkeypatch, game)
    player.pace = PACE
    player.poke(game.id)
    with running(player):
        deadline = time.monotonic() + 25
        while time.monotonic() < deadline and game.state.phase != "over":
            turns = shown.turns()
            if any(n >= 3 for _, n in turns):
                break
            time.sleep(0.05)
    turns = shown.turns()
    assert any(n >= 3 for _, n in turns), turns
    for seconds, n in turns:
        assert seconds <= n * (max(THINK, PACE) + SLACK), (seconds, n, turns)  # was n * (THINK + PACE)
    # The pace still holds where thinking is shorter: no action shows sooner than the thinking.
    assert min(shown.gaps()) >= THINK - 0.05


@pytest.mark.serial("times whole computer turns by the clock")
def test_a_whole_easy_turn_shows_within_two_seconds_each_action_followable(app, monkeypatch):
    game = app.extensions["trias_games"].create(seats=bots("easy", "easy", "easy", "easy"), seed=21)
    player = app.extensions["trias_computer"]
    past_placing(app, game, monkeypatch)
    shown = Shown(monkeypatch, game)
    player.pace = 1.0  # the server's own (TRIAS_PACE)
    player.poke(game.id)
    with running(player):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(shown.turns()) < 4 and game.state.phase != "over":
            time.sleep(0.05)
    turns = shown.turns()
    assert turns and max(seconds for seconds, _ in turns) <= TABLE_TURN["easy"], turns  # was 1 s an action and more
    assert len(turns) >= 4 and any(n >= 3 for _, n in turns), turns
    # Still a table's pace: no action on the heels of the one before.
    assert min(shown.gaps()) >= 0.2, shown.gaps()


def test_a_paced_turn_fits_its_levels_bound_and_keeps_actions_apart(app):
    """The paces alone, thinking taken as instant, over the longest turn at 2-5 players: within the
    level's bound less its margin, evenly spaced, each action a quarter second at least after the one
    before; and a turn whose first decision thought long makes up for it in its later paces."""
    player = app.extensions["trias_computer"]
    player.pace = 1.0
    for level, bound in TABLE_TURN.items():
        for players in (2, 3, 4, 5):
            start = now = 100.0
            paces = []
            for left in range(most_decisions(players), 0, -1):
                pace = player.pace_of(Choice(0, 0, {}, level, now, start, left, most_decisions(players)))
                paces.append(pace)
                now += pace
            assert now - start <= bound * (1 - MARGIN) + 1e-9, (level, players, paces)
            assert min(paces) >= 0.25 and max(paces) - min(paces) < 1e-9, (level, players, paces)
            most = most_decisions(players)
            late = player.pace_of(Choice(0, 0, {}, level, start + bound / 4, start, most - 1, most))
            assert late < paces[0] and start + bound / 4 + (most - 1) * late <= start + bound * (1 - MARGIN) + 1e-9
    # A placement (T8) is a turn of one decision: the table's whole pace.
    assert player.pace_of(Choice(0, 0, {}, "easy", 5.0, 5.0, 1, 1)) == 1.0


class Clock:
    """A computer player's clock that moves only when told: thinking and writing take what a test says."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_hard_turn_whose_quick_decisions_leave_their_seconds_to_later_ones_still_fits_five_seconds(
        app, monkeypatch):
    """Hard gives what a quick decision leaves of its share to the turn's later ones ("carry"), so its
    turn thinks its whole 4 s: a pace held after a quick decision must come out of what the bound
    leaves after that thinking, not on top of it (a 5-action turn showed in 4.96 s of 5 on a phone).
    Decisions that think 1.1 s, 0.1 s, 0.1 s, then the rest of 4 s in 1.5 s parts, 0.05 s a write:
    held for a pace of 0.75 s each, the quick ones made such a turn 5.55 s."""
    game = app.extensions["trias_games"].create(seats=bots("hard", "hard", "hard", "hard"), seed=17)
    player = app.extensions["trias_computer"]
    past_placing(app, game, monkeypatch)
    clock, spent = Clock(), {}
    player.clock, player.pace = clock, 1.0
    thinking = [1.1, 0.1, 0.1, 1.5, 1.5, 1.5]

    def carrying(view, level, budget, rng, table=None):
        turn = spent.setdefault((view["current"], view["turn"]), [])
        seconds = max(0.0, min(thinking[min(len(turn), 5)], trias.bots.DEFAULT_BUDGET["hard"]["turn"] - sum(turn)))
        turn.append(seconds)
        clock.now += seconds
        legal = trias.legal_actions(determinise(as_view(view), rng))
        order = ("move", "rescue", "drift", "play", "draw", "reproduce")  # an action point each first: long turns
        return min(legal, key=lambda c: order.index(c["type"]) if c["type"] in order else len(order))
    monkeypatch.setattr(trias.bots, "choose", carrying)
    apply = ComputerMoves.apply_computer

    def writing(self, seat, seq, command):
        clock.now += 0.05
        return apply(self, seat, seq, command)
    monkeypatch.setattr(ComputerMoves, "apply_computer", writing)
    shown = Shown(monkeypatch, game, clock)
    player.poke(game.id)
    for _ in range(400):
        if game.state.phase == "over" or len(shown.turns()) >= 12:
            break
        if player.step() == 0:
            clock.now = max(clock.now, player.next_due() or clock.now)
    turns = shown.turns()
    assert sum(1 for _, n in turns if n >= 5) >= 2, turns
    assert max(seconds for seconds, _ in turns) <= trias.bots.TURN_BOUND["hard"], turns
    assert min(shown.gaps()) >= 0.05 + MIN_PACE - 1e-9  # each action still shown on its own
    assert not [r for r in computer_rows(game) if r["command"].get("fallback")]


def blocking_bot(thinking: threading.Event, go: threading.Event, calls: list):
    def bot(view, level, budget, rng, table=None):
        calls.append(view["turn"])
        thinking.set()
        assert go.wait(10)
        return REAL_CHOOSE(view, "random", None, rng)
    return bot


def computer_rows(game) -> list:
    return [r for r in game.rows(0) if str(r["actor"]).startswith("computer:")]


def test_the_tables_undo_while_the_seat_thinks_drops_its_choice(app, monkeypatch):
    table = Table(app)
    game, _ = table.new_game({"kind": "human"}, {"kind": "computer", "level": "hard"}, seed=9)
    player = app.extensions["trias_computer"]
    legal = trias.legal_actions(game.state)
    assert table.seat_move(game, legal[0]).status_code == 200
    seq = game.last_seq  # the computer seat's position
    thinking, go, calls = threading.Event(), threading.Event(), []
    monkeypatch.setattr(trias.bots, "choose", blocking_bot(thinking, go, calls))
    stepped = []
    thread = threading.Thread(target=lambda: stepped.append(player.step(force=True)))
    thread.start()
    assert thinking.wait(10)
    assert table.post(f"/trias/api/g/{game.id}/undo").status_code == 200  # the table takes its move back
    go.set()
    thread.join(10)
    assert stepped == [0] and not player.chosen  # the choice for the old position was dropped ...
    assert game._service.duplicate_of(f"computer:1:after:{seq}") is None and not computer_rows(game)  # ... unwritten
    assert game.computer_to_play() is None  # the human's turn again
    legal = trias.legal_actions(game.state)
    assert table.seat_move(game, legal[-1]).status_code == 200
    assert player.step(force=True) == 1  # the seat thinks for the new position and plays once
    rows = computer_rows(game)
    assert len(rows) == 1 and rows[0]["seq"] == game.last_seq and len(calls) == 2


def test_a_choice_waiting_for_its_pace_is_dropped_when_the_table_undoes(app, monkeypatch):
    table = Table(app)
    game, _ = table.new_game({"kind": "human"}, {"kind": "computer", "level": "easy"}, seed=9)
    player = app.extensions["trias_computer"]
    player.pace = 0.3
    assert table.seat_move(game, trias.legal_actions(game.state)[0]).status_code == 200
    seq = game.last_seq
    assert player.step() == 0  # chosen at once, shown only after its pace
    assert player.chosen[game.id].seq == seq
    assert table.post(f"/trias/api/g/{game.id}/undo").status_code == 200
    time.sleep(0.35)
    assert player.step() == 0 and not player.chosen
    assert game._service.duplicate_of(f"computer:1:after:{seq}") is None and not computer_rows(game)


def test_an_undo_between_the_check_and_the_write_still_drops_the_move(app, monkeypatch):
    """The command names the position it answers: an undo landing after the seat's own check is refused
    by the journal (stale), not applied to the new position."""
    table = Table(app)
    game, _ = table.new_game({"kind": "human"}, {"kind": "computer", "level": "easy"}, seed=9)
    player = app.extensions["trias_computer"]
    assert table.seat_move(game, trias.legal_actions(game.state)[0]).status_code == 200
    seq = game.last_seq
    apply = ComputerMoves.apply_computer

    def undo_first(self, seat, after, command):
        assert table.post(f"/trias/api/g/{game.id}/undo").status_code == 200
        return apply(self, seat, after, command)
    monkeypatch.setattr(ComputerMoves, "apply_computer", undo_first)
    player.step(force=True)
    assert game._service.duplicate_of(f"computer:1:after:{seq}") is None and not computer_rows(game)
    assert game.computer_to_play() is None and game.verify() == []


def test_a_write_that_fails_keeps_the_same_move_for_the_same_position_and_says_an_outage_once(app, monkeypatch, caplog):
    """A store that refuses 20 tries (a full disk; a database away is said once by the health watch): the same
    move is written once it accepts, and the log says it in one line and its end in one (before: a traceback
    every try, up to four a second)."""
    game = app.extensions["trias_games"].create(seats=bots("hard", "easy"), seed=4)
    player = app.extensions["trias_computer"]
    player.poke(game.id)
    calls = []

    def counted(view, level, budget, rng, table=None):
        calls.append(1)
        return REAL_CHOOSE(view, level, {"iterations": 5}, rng)
    monkeypatch.setattr(trias.bots, "choose", counted)
    apply, failures = ComputerMoves.apply_computer, []

    def failing_twenty_times(self, seat, after, command):
        if len(failures) < 20:
            failures.append(command)
            raise StorageError("disk_full", "the disk is full")
        return apply(self, seat, after, command)
    monkeypatch.setattr(ComputerMoves, "apply_computer", failing_twenty_times)
    seq = game.last_seq
    with caplog.at_level(logging.WARNING):
        assert player.step(force=True) == 0
        assert "could not be written" in caplog.text and player.chosen[game.id].seq == seq
        assert player.step() == 0  # tried again after a pace, not at once
        for _ in range(19):
            assert player.step(force=True) == 0
        assert player.step(force=True) == 1 and len(calls) == 1  # the same move, not chosen again
    said = [(r.levelname, r.getMessage()) for r in caplog.records if game.id in r.getMessage()]
    assert [level for level, _ in said] == ["ERROR", "WARNING"], said
    assert "disk is full" in said[0][1] and "written again" in said[1][1]
    assert all(r.exc_info is None for r in caplog.records)
    row = computer_rows(game)[0]
    assert row["seq"] == seq + 1 and row["command"]["id"] == f"computer:0:after:{seq}"
    assert {k: v for k, v in row["command"].items() if k not in ("id", "actor")} == failures[0]


def test_a_refused_move_is_said_once_chosen_again_and_the_seat_goes_on(app, monkeypatch, caplog):
    game = app.extensions["trias_games"].create(seats=bots("easy", "easy"), seed=4)
    player = app.extensions["trias_computer"]
    player.poke(game.id)
    apply, refusals = ComputerMoves.apply_computer, []

    def refusing_twice(self, seat, after, command):
        if len(refusals) < 2:
            refusals.append(command)
            raise IllegalMove("occupied", "that place is taken")
        return apply(self, seat, after, command)
    monkeypatch.setattr(ComputerMoves, "apply_computer", refusing_twice)
    with caplog.at_level(logging.ERROR):
        assert player.step(force=True) == 0 and not player.chosen
        assert player.step(force=True) == 0
        assert player.step(force=True) == 1
    assert len([r for r in caplog.records if "was refused" in r.getMessage()]) == 1
    assert len(computer_rows(game)) == 1 and game.verify() == []


def test_budgets_near_zero_still_give_legal_moves_through_a_whole_game(app, monkeypatch, caplog):
    tiny = {level: {**budget, **{k: 1e-6 for k in ("seconds", "turn") if k in budget}}
            for level, budget in trias.bots.DEFAULT_BUDGET.items()}
    monkeypatch.setattr(trias.bots, "DEFAULT_BUDGET", tiny)
    game = app.extensions["trias_games"].create(seats=bots("easy", "medium", "hard"), seed=13)
    player = app.extensions["trias_computer"]
    player.poke(game.id)
    with caplog.at_level(logging.ERROR, logger="terrabank.trias"):
        for _ in range(3000):
            if game.state.phase == "over":
                break
            assert player.step(force=True) == 1
    assert game.state.phase == "over" and game.verify() == []
    assert not [r for r in computer_rows(game) if r["command"].get("fallback")]
    assert not [r for r in caplog.records if r.name == "terrabank.trias"]


def test_two_tables_of_computer_seats_share_a_decisions_seconds_so_each_keeps_its_turn_bound(app, monkeypatch):
    """One thread thinks for every game: two tables of 4 hard seats showed turns of a median 5.9-7.2 s (18 of
    19 over 5 s) against 3.4 s alone, each decision waiting for the other table's. Each decision's seconds
    are now shared among the games whose computer seat is to play; a table alone keeps its level's own."""
    games = app.extensions["trias_games"]
    tables = [games.create(seats=bots("hard", "hard", "hard", "hard"), seed=40 + i) for i in range(2)]
    alone = games.create(seats=[{"name": "Ana", "kind": "human"}, *bots("hard")], seed=43)  # a person to play
    player = app.extensions["trias_computer"]
    asked = []

    def recording(view, level, budget, rng, table=None):
        asked.append((table, budget))
        return REAL_CHOOSE(view, "random", None, rng)
    monkeypatch.setattr(trias.bots, "choose", recording)
    for game in (*tables, alone):
        player.poke(game.id)
    assert player.step(force=True) == 2  # one move for each table; the person's game waits for Ana
    hard = trias.bots.DEFAULT_BUDGET["hard"]
    assert [table for table, _ in asked] == [tables[0].id, tables[1].id]
    for _, budget in asked:
        assert budget["seconds"] == hard["seconds"] / 2 and budget["turn"] == hard["turn"] / 2
        assert {k: v for k, v in budget.items() if k not in ("seconds", "turn")} == \
            {k: v for k, v in hard.items() if k not in ("seconds", "turn")}
    # A table alone (the other's seat to play is a person's) thinks with the level's whole budget.
    lone = games.create(seats=bots("hard", "hard"), seed=44)
    for game in tables:
        with player.lock:
            player.changed.pop(game.id, None)
    asked.clear()
    player.poke(lone.id)
    assert player.step(force=True) == 1
    assert asked == [(lone.id, hard)]
