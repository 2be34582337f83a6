"""Several server processes on one game: each hears at once of the rows the others book.

Each `terrabank serve` process keeps its own live state and sends its own phones only
what changed since the picture they hold (bank/web/push/broadcaster.py). What crosses
processes is therefore not the pictures but one short notice per booked row on a
Redis channel of the game: "seq N is booked". A process hearing it folds the new rows
from the journal (Bank.catch_up; a burst's notices together, FOLD_GAP) and runs its own round for its own phones.

Why not Flask-SocketIO's own message queue (`SocketIO(message_queue=...)`): it relays
every emit to every process's clients, so the pictures would go out once per process,
and a patch names the picture version of the process that made it, which the phones
of another process do not hold: each of them would ask for the whole picture again.

The notice only wakes a process up; it carries no data. The journal is the truth:
a lost notice (Redis restarting, a network hiccup) costs at most the ticker's
once-a-second look (bank/web/push/live.py), never a row. Trias games (bank/store/trias_store.py)
use the same channel: "game X moved"; the other processes read it again and push it
to their screens. A lost Trias notice leaves a screen behind until its next move or
its reconnection (each page also asks for the game on reconnect).
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from typing import Callable

ENV_VAR = "TERRABANK_QUEUE_URL"
RETRY_SECONDS = 2.0
# The least time between two folds of the rows other processes booked: the first notice after a quiet spell is
# folded at once, those of a burst that follow wait and are folded together, in one read of the journal (each
# fold read the journal, a round trip in every other process for every command booked on any; 4 processes
# spent 1.4x the CPU of one per booked command). A page sees a round at most every 0.1 s anyway (broadcaster.py).
FOLD_GAP = 0.1


def queue_url(config) -> str | None:
    """The Redis URL from the environment (it wins) or `[storage] queue`; None for one process."""
    url = os.environ.get(ENV_VAR, "").strip() or (getattr(config, "storage_queue", "") or "").strip()
    return url or None


def channel_of(game: str) -> str:
    """One channel per game: processes of other games on the same Redis hear nothing of it."""
    return f"terrabank:booked:{game}"


class Peers:
    """Publish a notice per booked row; call `on_notice(notice)` when another process books one.

    A notice is {"seq": N} (the bank's journal reached entry N), {"links": True} (a team link or the big
    screen's key was replaced: the admission and the sweep read them again; also told to this process itself
    when its subscription comes back after a failure, since a replacement may have been told meanwhile) or
    {"trias": id, "after": N} (a move in that Trias game of this bank, after its entry N), {"replay": True}
    (the lead started the replay: this process's big screens play it, bank/web/push/replay_push.py),
    {"witness": True} (a page's witness report was kept: this process's facilitators' pages are sent the
    list, bank/web/push/witness_push.py), or
    {"reload": True} (another process reloaded a sound config.toml: this one reloads too, reload.py)."""

    def __init__(self, url: str, game: str, on_notice: Callable[[dict], None], logger):
        import redis  # the extra terrabank[queue]; only imported when a queue URL is set

        self._redis = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3,
                                           health_check_interval=10)
        self._listen_client = redis.Redis.from_url(url, socket_connect_timeout=3, health_check_interval=10)
        self.url, self.channel, self.logger = url, channel_of(game), logger
        self.tag = secrets.token_hex(4)  # this process: its own notices are not news to it
        self._on_notice = on_notice
        self._warned = False
        self._lost = False  # the subscription failed: notices sent meanwhile were not heard
        self.heard = 0  # notices from other processes (tests, /api/health later)
        self._wanted: int | None = None  # the last seq heard of and not folded yet (FOLD_GAP)
        self._folded_at = float("-inf")  # time.monotonic() of the last fold asked
        self.listening = threading.Event()

    def announce(self, seq: int) -> None:
        """Tell the other processes that rows up to `seq` are booked; never raises (they will look anyway)."""
        self._send({"seq": seq})

    def announce_links(self) -> None:
        """Tell the other processes that a team link or the big screen's key was replaced."""
        self._send({"links": True})

    def announce_replay(self) -> None:
        """Tell the other processes that the lead started the replay on the big screens."""
        self._send({"replay": True})

    def announce_witness(self) -> None:
        """Tell the other processes that a page reported a head the bank does not hold (witness_push.py)."""
        self._send({"witness": True})

    def announce_reload(self) -> None:
        """Tell the other processes that this one reloaded a sound config.toml (bank/web/serving/reload.py)."""
        self._send({"reload": True})

    def announce_reload_once_listening(self) -> None:
        """announce_reload once subscribed (a notice goes out only then, `_send`): for a worker just started,
        however long Redis takes to answer (it gave up after 30 s: a reload during a longer outage of this
        process's queue reached no other process, which went on with the old config)."""
        self.listening.wait()
        self.announce_reload()

    def announce_trias(self, game_id: str, after: int) -> None:
        """Tell the other processes that Trias game `game_id` moved on after its entry `after`."""
        self._send({"trias": game_id, "after": after})

    def _messages(self, pubsub):
        """The subscription's messages, and a PING every RETRY_SECONDS: a network cut drops packets and
        closes nothing, so a subscription waiting for its next message waited forever and the
        process went on saying it heard the others; an unanswered PING raises (socket_timeout), and the
        loop says Redis is lost (/readyz: degraded) and tries again."""
        pinged = time.monotonic()
        while True:
            wait = 1.0 if self._wanted is None else max(0.0, self._folded_at + FOLD_GAP - time.monotonic())
            message = pubsub.get_message(timeout=wait)
            if message is not None:
                yield message
            self._fold_when_due()
            if time.monotonic() - pinged >= RETRY_SECONDS:
                self._redis.ping()
                pinged = time.monotonic()

    def _send(self, notice: dict) -> None:
        if not self.listening.is_set():
            return  # Redis is lost: a PUBLISH would hold the command up to socket_timeout for nothing
        try:
            self._redis.publish(self.channel, json.dumps({**notice, "from": self.tag}))
        except Exception as exc:  # noqa: BLE001 - Redis down must not fail a command already booked
            self._warn(f"could not tell the game's other processes through Redis at {self.url} ({exc}): every process "
                       "goes on booking, and their pages see what the others book within a second instead of at once")

    def listen_forever(self) -> None:
        """The subscriber loop (a background task): reconnects after any failure."""
        while True:
            pubsub = None
            try:
                pubsub = self._listen_client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self.channel)
                self.listening.set()
                if self._lost:  # a link replaced meanwhile was told to nobody here: read them again
                    self._lost = False
                    self._tell({"links": True})
                    # and a reload another process announced meanwhile: this process's master reloads if its own
                    # file changed since its worker started (else nothing), as when the notice is heard
                    self._tell({"reload": True})
                if self._warned:
                    self.logger.warning("terrabank: Redis at %s answers again: the game's processes tell each other "
                                        "of their bookings at once again", self.url)
                    self._warned = False
                for message in self._messages(pubsub):
                    self._heard(message)
            except Exception as exc:  # noqa: BLE001 - keep listening whatever happened
                self.listening.clear()
                self._lost = True
                self._warn(f"lost Redis at {self.url} ({exc}), which the game's processes tell each other of their "
                           "bookings through: every process goes on booking, and their pages see what the others "
                           f"book within a second instead of at once; trying again every {RETRY_SECONDS:.0f} s")
                time.sleep(RETRY_SECONDS)
            finally:
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except Exception:  # noqa: BLE001
                        pass

    def _heard(self, message) -> None:
        if message.get("type") != "message":
            return
        try:
            notice = json.loads(message["data"])
            sender = str(notice.pop("from"))
            if "seq" in notice:
                seq = int(notice["seq"])
            elif "links" in notice or "replay" in notice or "reload" in notice or "witness" in notice:
                notice = {"links": True} if "links" in notice else {"replay": True} if "replay" in notice \
                    else {"reload": True} if "reload" in notice else {"witness": True}
            else:
                notice = {"trias": str(notice["trias"]), "after": int(notice["after"])}
        except (ValueError, KeyError, TypeError, AttributeError):
            return  # not ours: another program on the channel
        if sender == self.tag:
            return
        self.heard += 1
        if "seq" in notice:
            self._wanted = max(self._wanted or 0, seq)
            self._fold_when_due()
            return
        self._tell(notice)

    def _fold_when_due(self) -> None:
        """Tell the last seq heard of, unless a fold was asked less than FOLD_GAP ago (then the loop comes back)."""
        if self._wanted is None or time.monotonic() < self._folded_at + FOLD_GAP:
            return
        seq, self._wanted, self._folded_at = self._wanted, None, time.monotonic()
        self._tell({"seq": seq})

    def _tell(self, notice: dict) -> None:
        try:
            self._on_notice(notice)
        except Exception:  # noqa: BLE001 - one bad notice must not stop the listening
            self.logger.exception("terrabank: a notice from another process of the game could not be handled: %s", notice)

    def _warn(self, text: str) -> None:
        if not self._warned:
            # "terrabank:" as the bank's other status lines: a search of the journal for them finds these too, and
            # a facilitator reading it is told what goes on (before: "peers: lost Redis ...", jargon to them).
            self.logger.warning("terrabank: %s", text)
            self._warned = True
