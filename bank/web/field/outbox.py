"""Commands a facilitator's page kept on its device while the bank could not be reached (docs/OUTBOX.md).

The page sends such a command later with two headers: X-Queued-Seconds, how long it waited on the
device (by the device's clock), and X-Device, the device's own random name; and with X-Game, the game it
was made in (Bank.game_mark). A device keeps what it holds per browser, not per game: a rehearsal's
commands still kept when the game is made again for the day (`init --force`), or a tablet that serves two
games of one host, would book one game's commands in another; such a command is refused (other_game). The bank never judges a
rule by them: it decides at arrival by its own clock. They are written on the journal row as
`queued`, so the report can say how many commands came late and from which stations.

Only what still means the same minutes later may wait: a harvest, a purchase, a trade... A fight
starts cooldowns the fighters must see run from the fight itself (R19); the clock, the rate, the
options, events, awards and undos change the game for every station and are made on the spot by
the lead or the facilitator who sees the result. Those are refused with the header.

The devices' own reports of what they hold (how many commands wait, since when) are checked here and
kept with the accounts (bank/store/accounts/device_reports.py), where every process of the game reads
them, for the admin page, so the end is not called while a station is still catching up.
"""

from __future__ import annotations

import re

QUEUEABLE = frozenset({"harvest", "build", "buy_animal", "buy_second_pirate", "raise_tracks", "redeem_jokers",
                       "exchange", "trade", "contribute"})
MAX_QUEUED_SECONDS = 24 * 3600  # a command kept longer is not from this game day
DEVICE = re.compile(r"[A-Za-z0-9_-]{4,40}")
_WHOLE = re.compile(r"[0-9]{1,6}")


class QueuedError(Exception):
    """Headers that do not say a usable wait: an HTTP status, a code, a sentence and parameters."""

    def __init__(self, code: str, message: str, status: int = 400, **params):
        super().__init__(message)
        self.code, self.message, self.status, self.params = code, message, status, params


def queued_note(seconds: str | None, device: str | None, kind) -> dict | None:
    """{"seconds", "device"} from the headers' values, None for a command sent live, or QueuedError."""
    if seconds is None and device is None:
        return None
    if seconds is None or not _WHOLE.fullmatch(seconds.strip()):
        raise QueuedError("bad_queued_seconds", "X-Queued-Seconds must be a whole number of seconds (0 or more) "
                          "saying how long the command waited on the device", maximum=MAX_QUEUED_SECONDS)
    waited = int(seconds.strip())
    if waited > MAX_QUEUED_SECONDS:
        raise QueuedError("queued_too_long", f"this command waited {waited} s on the device, more than "
                          f"{MAX_QUEUED_SECONDS} s: it is not from this game day; make it again if it still holds",
                          seconds=waited, maximum=MAX_QUEUED_SECONDS)
    if device is None or not DEVICE.fullmatch(device):
        raise QueuedError("bad_device", "X-Device must name the device: 4 to 40 letters, digits, - or _")
    if kind not in QUEUEABLE:
        raise QueuedError("not_queueable", f"a {str(kind)[:40]!r} command is booked live only, never kept on a "
                          "device and sent later: make it again now that the bank answers",
                          type=str(kind)[:40], queueable=sorted(QUEUEABLE))
    return {"seconds": waited, "device": device}


def same_game(said: str | None, mark: str) -> None:
    """A kept command names the game it was made in (X-Game, absent from pages older than it): another game's
    is refused, 409 other_game, and nothing is booked."""
    if said is not None and said.strip() != mark:
        raise QueuedError("other_game", "this command was kept on the device during another game (this game was "
                          "made again since, or the device also serves another game of this host): it is not booked "
                          "in this one; make it again here if it still holds", status=409)


def read_report(body: dict) -> tuple[str, int, int]:
    """(device, waiting, oldest_seconds) from a device's report body, or QueuedError saying which field is wrong."""
    device, waiting, oldest = body.get("device"), body.get("waiting"), body.get("oldest_seconds", 0)
    if not isinstance(device, str) or not DEVICE.fullmatch(device):
        raise QueuedError("bad_device", "'device' must name the device: 4 to 40 letters, digits, - or _")
    for name, value in (("waiting", waiting), ("oldest_seconds", oldest)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10**6:
            raise QueuedError("bad_outbox_report", f"'{name}' must be a whole number from 0 to 1000000", field=name)
    return device, waiting, oldest
