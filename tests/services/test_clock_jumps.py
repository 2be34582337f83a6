"""A wrong system clock never ends a session, the game or a cooldown (R34).

The machine's clock (wall) and the monotonic clock are injected, so a jump of two
days forward or an hour back happens at once, while the bank runs and across a
restart. Game time follows the bank's own time line (bank/services/timeline.py).
"""

from __future__ import annotations

import itertools

import pytest

from bank.errors import RuleError
from bank.game import views
from bank.services.bank import Bank
from clock_kit import Clocks

DAYS_2, HOUR = 2 * 86400.0, 3600.0


@pytest.fixture
def clocks():
    return Clocks()


@pytest.fixture
def game(bank_path, config, clocks):
    """Open the game at bank_path with the injected clocks; every bank opened is closed."""
    opened = []

    def open_(create: bool = False) -> Bank:
        maker = Bank.create if create else Bank.open
        bank = maker(bank_path, config, wall=clocks.wall, mono=clocks.mono)
        opened.append(bank)
        return bank

    yield open_
    for bank in opened:
        bank.close()


ids = itertools.count(1)


def book(bank: Bank, **command):
    return bank.execute({"id": f"c{next(ids)}", "actor": "lead", **command})


def pass_time(bank: Bank, clocks: Clocks, seconds: int) -> None:
    """Let `seconds` pass as the server does: the watch and the tick every second."""
    for _ in range(seconds):
        clocks.run(1)
        bank.watch_clock()
        bank.tick()


def elapsed(bank: Bank) -> float:
    return bank.state.elapsed(bank.now())


def test_r34_two_days_forward_while_running_pauses_and_ends_nothing(game, clocks):
    bank = game(create=True)
    book(bank, type="start_clock")
    pass_time(bank, clocks, 60)
    clocks.jump(DAYS_2)
    held = bank.watch_clock()
    bank.tick()
    assert held is not None
    clock = bank.state.clock
    assert clock["status"] == "paused" and clock["session"] == 1 and bank.state.ended is None
    assert clock["elapsed"] == pytest.approx(60, abs=1)
    assert clock["held"]["kind"] == "clock_jump" and clock["held"]["seconds"] == pytest.approx(DAYS_2, abs=1)
    book(bank, type="resume")
    pass_time(bank, clocks, 30)
    assert elapsed(bank) == pytest.approx(90, abs=1) and "held" not in bank.state.clock


def test_r34_an_hour_back_while_running_keeps_the_time_played_and_the_cooldowns(game, clocks, config):
    bank = game(create=True)
    book(bank, type="start_clock")
    pass_time(bank, clocks, 100)
    book(bank, type="fight", attacker_team="blue", attacker_card="pirate-1", defender_team="red",
         defender_card="harvester-1", winner="attacker", tokens={})
    before = views.cooldowns(bank.state, "blue", bank.now())["pirate-1"]
    pass_time(bank, clocks, 10)
    clocks.jump(-HOUR)
    bank.watch_clock()
    assert bank.state.clock["status"] == "paused"
    assert bank.state.clock["elapsed"] == pytest.approx(110, abs=1)  # not set back to 0
    assert views.cooldowns(bank.state, "blue", bank.now())["pirate-1"] == pytest.approx(before - 10, abs=1)
    book(bank, type="resume")
    pass_time(bank, clocks, before - 10 + 1)
    assert "pirate-1" not in views.cooldowns(bank.state, "blue", bank.now())  # never stretched by an hour


def test_r34_a_jump_while_paused_is_no_hold_and_changes_nothing(game, clocks):
    bank = game(create=True)
    book(bank, type="start_clock")
    pass_time(bank, clocks, 20)
    book(bank, type="pause")
    seq = bank.last_seq
    clocks.jump(DAYS_2)
    assert bank.watch_clock() is None and bank.last_seq == seq
    book(bank, type="resume")
    pass_time(bank, clocks, 10)
    assert elapsed(bank) == pytest.approx(30, abs=1)


def test_r34_small_corrections_of_the_system_clock_are_not_jumps(game, clocks):
    bank = game(create=True)
    book(bank, type="start_clock")
    clocks.jump(30)  # NTP correcting a clock a little fast or slow
    pass_time(bank, clocks, 5)
    assert bank.state.clock["status"] == "running"


@pytest.mark.parametrize("jump", [DAYS_2, -HOUR], ids=["two days forward", "an hour back"])
def test_r34_a_jump_across_a_restart_pauses_at_the_time_last_measured(game, clocks, jump):
    bank = game(create=True)
    book(bank, type="start_clock")
    pass_time(bank, clocks, 100)
    bank.close()
    clocks.reboot()
    clocks.jump(jump)
    bank = game()
    assert bank.start_jump is not None
    held = bank.hold_if_suspect()
    assert held is not None
    clock = bank.state.clock
    assert clock["status"] == "paused" and bank.state.ended is None and clock["session"] == 1
    assert clock["elapsed"] == pytest.approx(100, abs=6)  # within one heartbeat of the last measure
    assert clock["held"]["kind"] == "clock_jump_at_start"
    book(bank, type="resume")
    pass_time(bank, clocks, 10)
    assert elapsed(bank) == pytest.approx(110, abs=6)
    assert bank.verify() == []


def test_r34_a_short_power_cut_counts_as_time_played(game, clocks):
    """The teams kept playing while the bank rebooted: that minute is game time."""
    bank = game(create=True)
    book(bank, type="start_clock")
    pass_time(bank, clocks, 100)
    bank.close()
    clocks.reboot()
    clocks.wall_s += 60
    bank = game()
    assert bank.start_jump is None and bank.hold_if_suspect() is None
    assert bank.state.clock["status"] == "running"
    assert elapsed(bank) == pytest.approx(160, abs=6)


def test_r34_the_heartbeat_checkpoints_an_idle_running_game(game, clocks):
    """Ten quiet minutes with no command, then a reboot of 30 s: no hold, the time counts."""
    bank = game(create=True)
    book(bank, type="start_clock")
    pass_time(bank, clocks, 600)
    bank.close()
    clocks.reboot()
    clocks.wall_s += 30
    bank = game()
    assert bank.start_jump is None
    assert elapsed(bank) == pytest.approx(630, abs=6)


def test_r34_a_paused_game_reopened_two_days_later_writes_nothing(game, clocks):
    """Between the two sessions the bank may be off overnight: nothing to hold."""
    bank = game(create=True)
    book(bank, type="start_clock")
    pass_time(bank, clocks, 50)
    book(bank, type="pause")
    seq = bank.last_seq
    bank.close()
    clocks.reboot()
    clocks.wall_s += DAYS_2
    bank = game()
    assert bank.hold_if_suspect() is None and bank.last_seq == seq
    book(bank, type="resume")
    pass_time(bank, clocks, 5)
    assert elapsed(bank) == pytest.approx(55, abs=1)


def test_r34_the_time_line_never_runs_backwards_across_restarts(game, clocks):
    bank = game(create=True)
    book(bank, type="start_clock")
    pass_time(bank, clocks, 10)
    book(bank, type="pause")
    last = bank.now()
    bank.close()
    clocks.reboot()
    clocks.jump(-HOUR)
    bank = game()
    assert bank.now() >= last


def test_r34_opening_a_game_for_a_look_never_writes_a_hold(game, clocks, bank_path, config):
    """`terrabank standings` while the clock looks wrong: only the server may pause the game."""
    bank = game(create=True)
    book(bank, type="start_clock")
    pass_time(bank, clocks, 10)
    seq = bank.last_seq
    bank.close()
    clocks.jump(DAYS_2)
    look = game()
    assert look.start_jump is not None and look.last_seq == seq
    assert look.state.clock["status"] == "running"


def test_r34_a_command_refused_while_the_bank_holds_the_clock_says_the_bank_paused_it_and_who_resumes(game, clocks):
    """A banker at the counter after a jump: not "the game is paused" (as if a facilitator had
    paused it) but that the bank held it, by how much the clock jumped, and that the lead resumes."""
    bank = game(create=True)
    book(bank, type="start_clock")
    pass_time(bank, clocks, 60)
    clocks.jump(-3600)
    assert bank.watch_clock() is not None
    with pytest.raises(RuleError) as refused:
        book(bank, type="harvest", card="harvester-1", team="blue", resource="water")
    assert refused.value.code == "clock_held" and refused.value.params == {"status": "paused", "seconds": -3600}
    assert "the bank paused the game itself" in refused.value.message and "Resume" in refused.value.message
    book(bank, type="resume")
    book(bank, type="pause")
    with pytest.raises(RuleError) as refused:
        book(bank, type="harvest", card="harvester-1", team="blue", resource="water")
    assert refused.value.code == "clock_not_running" and "resume the clock" in refused.value.message


def test_r34_the_facilitators_see_what_the_bank_saw(bank_path, config, clocks):
    """The board sent to every facilitator page carries the hold and its figures."""
    from bank.web import create_app

    app = create_app({"DB": bank_path, "CONFIG": config, "TESTING": True, "PASSWORD_HASH": "pbkdf2:sha256:1000",
                      "CLOCKS": (clocks.wall, clocks.mono)})
    services = app.extensions["terrabank"]
    try:
        book(services.bank, type="start_clock")
        pass_time(services.bank, clocks, 5)
        clocks.jump(DAYS_2)
        services.bank.watch_clock()
        held = app.test_client().get("/api/public").get_json()["board"]["clock"]["held"]
        assert held["kind"] == "clock_jump" and held["seconds"] == pytest.approx(DAYS_2, abs=1)
    finally:
        services.bank.close()
        services.access.close()


def test_r34_a_real_server_restarted_on_a_clock_an_hour_behind_holds_the_game(tmp_path):
    """End to end: `terrabank serve` stopped, the machine's clock now an hour behind its last
    save (a Pi without network time after a power cut); the restarted bank holds the game."""
    import sqlite3
    import sys
    import time
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from harness import Api, Server

    with Server(tmp_path).prepare().start() as server:
        api = Api(server.url).login()
        assert api.command("go", type="start_clock")[0] == 200
        server.stop()
        conn = sqlite3.connect(server.db)
        conn.execute("UPDATE clock_checkpoint SET wall = ?", (time.time() + HOUR,))
        conn.commit()
        conn.close()
        server.start()
        status, public = Api(server.url).request("GET", "/api/public")
    clock = public["board"]["clock"]
    assert status == 200 and clock["status"] == "paused" and clock["session"] == 1
    assert clock["held"]["kind"] == "clock_jump_at_start" and clock["held"]["seconds"] == pytest.approx(-HOUR, abs=60)


def test_r34_a_jump_of_the_machines_clock_logs_nobody_out_and_stretches_no_lock(bank_path, config, clocks, monkeypatch):
    """Sessions and log-in locks are timed on the bank's time line too: two days forward
    (the Pi gets network time) must not end every facilitator's session when the lead
    is needed to resume; an hour back must not turn a 5-minute lock into 65 minutes."""
    import time

    from bank.web import create_app
    from conftest import WebClient

    monkeypatch.setattr(time, "time", clocks.wall)  # the whole process sees the machine's clock jump
    app = create_app({"DB": bank_path, "CONFIG": config, "TESTING": True, "PASSWORD_HASH": "pbkdf2:sha256:1000",
                      "CLOCKS": (clocks.wall, clocks.mono)})
    services = app.extensions["terrabank"]
    try:
        services.access.add_user("lea", "correct horse", "lead")
        lead = WebClient(app.test_client())
        assert lead.login("lea").status_code == 200
        clocks.jump(DAYS_2)
        services.bank.watch_clock()
        assert lead.client.get("/api/state").status_code == 200
        lockout = app.extensions["terrabank_lockout"]
        for _ in range(5):
            lockout.failed("user:ben")
        clocks.jump(-HOUR)
        assert 0 < lockout.seconds_left("user:ben") <= 301  # rounded up, as the message says
    finally:
        services.bank.close()
        services.access.close()


def test_r34_a_hold_that_could_not_be_written_is_written_at_the_next_second(game, clocks, monkeypatch):
    """The disk was full when the jump was seen: the next watch still pauses the game and says why."""
    from bank.store.journal import StorageError

    bank = game(create=True)
    book(bank, type="start_clock")
    pass_time(bank, clocks, 10)
    clocks.jump(DAYS_2)
    execute = bank._execute

    def disk_full(*args, **kwargs):
        raise StorageError("disk_full", "the disk is full")
    monkeypatch.setattr(bank, "_execute", disk_full)
    with pytest.raises(StorageError):
        bank.watch_clock()
    monkeypatch.setattr(bank, "_execute", execute)
    clocks.run(1)
    assert bank.watch_clock() is not None
    assert bank.state.clock["status"] == "paused" and bank.state.clock["held"]["kind"] == "clock_jump"
