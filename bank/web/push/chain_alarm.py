"""The bank as a witness of its own file, on the serving process: a rewrite under the running bank is said at once.

The clock loop (ticker.py) asks `Bank.check_chain()` every CHECK_SECONDS (one indexed read; at once when a
booking was refused on it), then `Bank.sweep_rows()` (the next 500 rows hashed: a row edited with its chain left). When the file no longer holds the head the bank wrote, it says so once, everywhere
someone can act on it: one log line saying what to do; a witness report by the bank itself on the admin page's
list (bank/store/accounts/witness_reports.py, pushed to the facilitators' pages: witness_push.py); and
`chain_check` to every open page, which asks the bank again whether its chain holds the head it kept
(static/js/witness.js) and raises its alarm without waiting for a reconnect. The bank books nothing more
on the file (bank/services/chain_watch.py).
"""

from __future__ import annotations

import re
import time

from bank.store.storage import StorageError
from bank.web.push.extensions import socketio_of
from bank.web.push.witness_push import tell_facilitators

CHECK_SECONDS = 5.0
REPORTER = "bank"  # the reports' reporter and the words the admin page shows (witness_reports.js)
EDITED = "bank_rows"  # what the admin page shows of the bank's report of a row edited with its chain left


class ChainAlarm:
    """One per serving process's clock loop: when to look, and whether it was said."""

    def __init__(self, app, clock=time.monotonic):
        self.app, self.clock = app, clock
        self.last = float("-inf")
        self.said = False

    def look(self) -> bool:
        """Check the bank's file when due; say a rewrite once. Whether the bank refuses to book (nothing to tick)."""
        bank = self.app.extensions["terrabank"].bank
        now = self.clock()
        if self.said or (bank.rewritten is None and now - self.last < CHECK_SECONDS):
            return bank.rewritten is not None
        self.last = now
        found = bank.check_chain() or bank.sweep_rows()  # then the next rows, hashed (an edit under the chain)
        if found is None:
            return False
        self.said = True
        saw, head = found["saw"], found["head"]
        if found.get("why"):
            self.app.logger.error(
                "terrabank: the game's journal was changed by another program while the bank ran: %s; the bank books "
                "nothing more. Stop the bank, keep a copy of the game file for the inquiry, and start again from the "
                "backup you trust (`terrabank verify` names every problem)", found["why"])
        else:
            self._say_rewritten(bank, saw, head)
        socketio_of(self.app).emit("chain_check", {}, namespace="/")  # every page asks again (witness.js)
        by = REPORTER
        if found.get("why"):  # the row edited (its heads kept): the admin page names it (witness_reports.js)
            edited = re.search(r"journal row (\d+)", found["why"])
            saw, by = ({"seq": int(edited.group(1)), "hash": bank.stored_head_at(int(edited.group(1))) or ""}
                       if edited else saw), EDITED
        report = {"saw": saw, "head": head, "game": bank.game_mark(), "at": time.time(), "by": by}
        try:  # kept with the accounts, in the same file: a file another program holds may refuse it a while
            if self.app.extensions["terrabank"].access.witness_reports().add(report, REPORTER):
                tell_facilitators(self.app)
        except StorageError as exc:
            self.app.logger.warning("terrabank: the bank's own witness report could not be kept (%s); the pages "
                                    "were told to check", exc.message)
        return True

    def _say_rewritten(self, bank, saw: dict, head: dict) -> None:
        self.app.logger.error(
            "terrabank: the game's journal was rewritten by another program while the bank ran: entry %d held "
            "chain %s when this bank wrote it, the file now holds %s (its last entry %d, chain %s); the bank "
            "books nothing more. Stop the bank, keep a copy of the game file for the inquiry, and start again "
            "from the backup you trust (`terrabank verify --witness` on an export names the first entry changed)",
            saw["seq"], saw["hash"][:12], (bank.stored_head_at(saw["seq"]) or "nothing")[:12], head["seq"],
            head["hash"][:12])
