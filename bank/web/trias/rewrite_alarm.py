"""A Trias game's journal rewritten under the running server, said once, where someone can act on it.

The game service refuses every move on a store that no longer holds the chain head it wrote or read
(bank/services/journal_service.py). Before, the Trias side booked on the forged head and said nothing; now the
refusal is said once per game and process: one log line saying what to do, and a picture to every screen of the
game whose `rewritten` the pages show as a banner (templates/trias/_topbar.html), so nobody plays on in vain.
It is seen at the next move, or within CHECK_SECONDS by `look` in the computer's thread (bank/web/trias/computer.py),
which reads the stores of the games used last (one indexed read each), as the field game's clock loop does
(bank/web/push/chain_alarm.py). A row edited with the chain left keeps every head: each look also reads and hashes
the rows of one of those games in turn (about 1 ms), so such an edit is seen within 16 looks (80 s), not only when
the game is opened again.
"""

from __future__ import annotations

import time

from bank.services.trias_games import OPEN_FILES
from bank.services.trias_witness import in_use
from bank.store.storage import StorageError
from bank.web.trias.live import publish

CHECK_SECONDS = 5.0
LOOKED = "trias_rewrite_looked"  # app.extensions: when `look` last read the stores
SAID = "trias_rewrite_said"  # app.extensions: the games said rewritten by this process
TURN = "trias_rewrite_turn"  # app.extensions: how many looks were made (one game's rows are checked at each)


def say(app, game) -> bool:
    """Log once and tell every screen of `game` when its store was found rewritten; whether it was."""
    found = game.rewritten
    said = app.extensions.setdefault(SAID, set())
    if found is None or game.id in said:
        return found is not None
    said.add(game.id)
    app.logger.error(
        "trias %s: the game's journal was rewritten by another program while the server ran: %s; no move is "
        "recorded on it any more. Keep a copy of %s for the inquiry (`terrabank trias verify %s` on it), and start "
        "a new game for the table", game.id, found["why"], game._games.store.name(game.id), game.id)
    publish(app, game, game.last_seq, tell_peers=False)  # each screen's picture says it (payloads.py)
    return True


def look(app, clock=time.monotonic) -> int:
    """When due, check the games used last; say each found rewritten. How many were said now."""
    now = clock()
    if now - app.extensions.get(LOOKED, float("-inf")) < CHECK_SECONDS:
        return 0
    app.extensions[LOOKED] = now
    games = app.extensions["trias_games"]
    told, used = 0, in_use(games, OPEN_FILES)
    turn = app.extensions[TURN] = app.extensions.get(TURN, -1) + 1  # whose rows are read and hashed this time
    for n, game in enumerate(used):
        try:
            found = game.check_chain(if_open=games.store.holds_files, rows=n == turn % len(used))
        except StorageError:  # a store away: said by the moves it refuses, and by bank/web/health.py
            continue
        if found is not None and game.id not in app.extensions.get(SAID, ()):
            told += say(app, game)
    return told
