"""The terminal's herd line keeps a seat's name apart from its count.

"Computer · easy 2 3" read as the seat "easy 2" with 3 herds, or "easy" with 23: a computer seat
named by its level is numbered when two share one (bank/web/trias/names.py).
"""

from __future__ import annotations

import re

import trias
from bank.cli.trias_map import board_map

NAMES = ["Ana", "Computer · easy 2"]


def placed_game():
    """A two-seat game after both placements rounds (T8): each seat has herds on two tiles."""
    state, _ = trias.new_game(2, seed=3)
    while state.phase == "place":
        command = trias.legal_actions(state)[0]
        _, state = trias.handle(state, command)
    return state


def test_t8_each_seats_herds_are_counted_in_brackets_after_its_name():
    state = placed_game()
    line = next(x for x in board_map(state, NAMES) if x.startswith("Herds: "))
    assert "Computer · easy 2 (2)" in line and "Ana (2)" in line, line
    assert not re.search(r"easy 2 \d", line), line
