"""After a restart the bank knows it was reopened and for how long it can have been down.

The admin page says so (tests/web/field/test_admin_says_bank_restarted.py); here the figure
itself: the time since the journal's last trace, for a game under way only.
"""

from __future__ import annotations

from bank.services.bank_clock import HEARTBEAT_SECONDS
from test_clock_jumps import book, clocks, game, pass_time  # noqa: F401  (fixtures)


def test_a_running_game_opened_again_says_when_and_how_long_at_most(game, clocks):
    bank = game(create=True)
    assert bank.reopened is None  # a new game was not "restarted"
    book(bank, type="start_clock")
    pass_time(bank, clocks, 12)  # the heartbeat checkpoints the time line while the clock runs
    bank.close()
    clocks.run(90)  # the machine was off for 90 s
    clocks.reboot()
    again = game()
    reopened = again.reopened
    assert reopened["at"] == clocks.wall() and reopened["clock"] == "running"
    assert 90 <= reopened["down_at_most"] <= 90 + HEARTBEAT_SECONDS  # the last trace is one heartbeat old at most


def test_a_game_not_started_is_not_a_restart(game, clocks):
    game(create=True).close()
    clocks.run(600)
    assert game().reopened is None
