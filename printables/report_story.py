"""What a journal row says beyond its events, for the report's story.

A parent asking why Blue suddenly had 30 water must find the answer in the report: the count
that corrected its box and why, the bowls refilled, the session that began after a break, the
bank that was down and paused the game on restarting, the moves typed in from the paper ledgers
afterwards. The engine's events do not carry all of it (an inventory's reason is in its command,
a paper move is known by its command id), so each row is read here into moments of its own.
"""

from __future__ import annotations

from bank.game.state import GameState

PAPER_PREFIX = "paper:"  # bank/web/field/paper_routes.py: every move booked from a paper ledger has this id


class RowReader:
    """Reads rows in order; keeps the run of paper moves being re-entered, so one batch is one line."""

    def __init__(self):
        self.paper = None  # the re-entry moment the last row belonged to, while rows keep coming from paper
        self.batch_of = {}  # seq of a paper move -> its batch's moment, where an undoing is told
        self.booked = {}  # seq -> (minute, command), to tell what an undoing undid

    def undoing(self, row: dict, minute: float) -> list:
        """A reverse row: told in its paper batch's line (the duplicates typed twice), else as a moment of its own."""
        command = row.get("command") or {}
        seq, reason = command.get("seq"), str(command.get("reason") or "")
        batch = self.batch_of.get(seq)
        if batch is not None:
            batch["undone"].append(reason)
            return []
        was_minute, undone = self.booked.get(seq, (None, {}))
        teams = [undone[k] for k in ("team", "merchant_team", "visited_team", "attacker_team", "defender_team")
                 if undone.get(k)]
        return [{"type": "undone", "seq": seq, "what": undone.get("type", ""), "teams": teams,
                 "was_minute": was_minute, "reason": reason}]

    def remember(self, row: dict, minute: float) -> None:
        self.booked[row["seq"]] = (minute, row.get("command") or {})

    def moments(self, row: dict, state: GameState, session_before: int) -> list:
        """The row's events as the report tells them, plus what only the row knows."""
        told = [self._event(e, row, state, session_before) for e in row["events"]]
        told += self._refill(row)
        if str(row.get("command_id", "")).startswith(PAPER_PREFIX):
            if self.paper is None or self.paper["actor"] != row.get("actor"):
                self.paper = {"type": "paper_reentry", "moves": 0, "actor": row.get("actor") or "", "seqs": [],
                              "undone": []}
                told.insert(0, self.paper)
            self.paper["moves"] += 1
            self.paper["seqs"].append(row["seq"])
            self.batch_of[row["seq"]] = self.paper
        elif row["type"] not in ("tick",):
            self.paper = None
        return told

    @staticmethod
    def _event(event: dict, row: dict, state: GameState, session_before: int) -> dict:
        kind = event["type"]
        if kind == "inventory":
            return {**event, "reason": str((row.get("command") or {}).get("reason") or "")}
        if kind == "clock_resumed" and state.clock["session"] > session_before:
            return {"type": "session_started", "session": state.clock["session"]}
        return event

    @staticmethod
    def _refill(row: dict) -> list:
        """The facilitators' refill of the bank's bowls (R8), one line for the row's transfers."""
        amounts = {}
        for e in row["events"]:
            if e["type"] == "transfer" and e.get("reason") == "refill":
                amounts[e["resource"]] = amounts.get(e["resource"], 0) + e["amount"]
        return [{"type": "refill", "amounts": amounts}] if amounts else []
