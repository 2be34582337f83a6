"""The serving process's clock loop: game time passing on the server, and what it must survive.

Once a second it folds the rows other processes booked, lets game time act (session ends, deadlines, the
game's end: R33-R35), checkpoints the time line (bank/services/bank_clock.py) and sweeps sockets. Nothing
its store does may stop it, and an outage is a few lines, not a traceback a second: a database away is
said once each way by bank/web/health.py (the "tick failed" record filtered there); a game whose writes
are refused as busy (an SQLite file whose write lock another program holds: an `sqlite3` shell left in a
transaction, a copy tool) is said here, once when the clock's writes are first refused and once when the
clock writes again. Before, each refused heartbeat logged "tick failed" with its 30-line traceback, one
every 6 s (its 5 s wait for the lock and the loop's second) for as long as the lock was held.
"""

from __future__ import annotations

from bank.store.journal import REWRITTEN
from bank.store.storage import StorageError
from bank.web.push.chain_alarm import ChainAlarm
from bank.web.push.extensions import socketio_of
from bank.web.push.live import broadcaster, catch_up, start_peers, sweep, tell_peers
from bank.web.push.reload_push import say_reload

BUSY = "database_busy"


def start_ticker(app, every: float = 1.0) -> None:
    """Let game time pass: end sessions, close events at their deadline, end the game (R33-R35); sweep sockets.

    With several server processes it also looks each second for rows the others booked:
    the Redis notice (bank/web/push/peers.py) is faster, this look is what makes a lost notice harmless."""
    start_peers(app)

    def loop():
        services = app.extensions["terrabank"]
        busy = None  # the refusal the clock's writes met, while they are refused as busy
        alarm = ChainAlarm(app)  # the game's file rewritten under the bank: said once, nothing booked on it
        while True:
            socketio_of(app).sleep(every)
            try:  # in memory only: said while the database is away too
                say_reload(app)
            except Exception:  # noqa: BLE001 - a page that misses it asks GET /api/reload
                app.logger.debug("telling the lead's pages of a reload failed", exc_info=True)
            try:
                if not alarm.look():  # a file rewritten under the bank: no clock writes on it (chain_alarm.py)
                    catch_up(app)
                    held = services.bank.watch_clock()  # a jump of the machine's clock pauses the game (R34)
                    if services.bank.tick() is not None or held is not None:
                        broadcaster(app).ask()
                        tell_peers(app)
                # A heartbeat refused is due again at once: a look that went through wrote, if the clock runs.
                if busy is not None:
                    app.logger.warning("terrabank: the game's database takes the bank's writes again")
                    busy = None
            except StorageError as exc:
                if exc.code == REWRITTEN:
                    continue  # a tick refused on the file rewritten a moment ago: said by the alarm's next look
                if exc.code != BUSY:
                    app.logger.exception("tick failed")  # a database away: one line, said by bank/web/health.py
                elif busy is None:
                    busy = exc
                    app.logger.warning("terrabank: the game's database refuses the bank's writes (%s); commands are "
                                       "refused and the clock waits until it takes them again", exc.message)
            except Exception:  # a tick must never kill the loop; the next one retries
                app.logger.exception("tick failed")
            try:
                sweep(app)  # so a session ended by the CLI loses its sockets within a second or two
            except Exception:
                app.logger.exception("socket sweep failed")
    socketio_of(app).start_background_task(loop)
