"""One thread per app sends the live updates, after the HTTP reply, in commit order.

Why a thread: emitting to 200 phones takes longer than booking a command, and a
facilitator at the counter should not wait for it. Why one: when two requests
broadcast at once, their emits interleave and a phone can end on the OLDER
picture; one sender reading the live state each round can only go forward.
Commits that arrive while a round is being sent are covered by the next round,
which reads the state after all of them: the last state is never dropped, and a
burst of commands costs one round, not one each. Journal rows are never coalesced
away: each round sends every row after the last one sent.

Light on the Wi-Fi: each audience (everyone's public picture, each team's
view) has ONE base on the server, the picture last sent to it, with a version. A
round sends the room only what changed since that base (bank/web/push/delta.py), naming the
version it applies to (`base`) and the one it makes (`v`); the whole picture goes
on connect, on `sync`, to a page that holds another version (it joined or synced
since the last round), and whenever the patch would not be smaller. The pictures
depend on the time too (clock, cooldowns, "harvested 40 s ago"), so a version is
not the journal seq: it is "<boot>.<n>", n counting every picture made, <boot>
random per start, so a page never applies a patch of a restarted server to a
picture of the old one. Every message still carries `seq`; a patch leaves it out
of its operations and the page sets it from the message.

One message per page per round: the parts a page needs travel together, to rooms shaped
for it (bank/web/push/rounds.py); a page that reads only the separate messages still gets those.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass

from bank.store.storage import StorageError
from bank.web.push import delta, rounds
from bank.web.push.rounds import FACILITATORS, PUBLIC, ROUND, ROUND_FACILITATORS, Publication, event_of, team_room
from bank.web.field import payloads

__all__ = ["FACILITATORS", "PUBLIC", "Broadcaster", "team_room", "event_of"]
# At most ten rounds a second: phones cannot show more, and 200 of them on one Wi-Fi must keep up.
MIN_GAP = 0.1
# On a machine short of CPU (a Raspberry Pi, a busy laptop) rounds come further apart: the next starts no sooner
# than SHARE times as long as the last one took to send after it began, at most MAX_GAP after it (on a Pi budget
# 10 rounds a second to 200 pages took the CPU the bookings needed: 2.1 bookings a second of the 20 asked; each
# round covers every commit made meanwhile, so a longer gap loses nothing).
SHARE, MAX_GAP = 4.0, 1.0
# How often the pages left out of a round because their socket was still sending (rounds.py)
# are looked at again when no round comes: the newest pictures reach them within this of catching up.
CATCH_UP = 0.1
# A round that failed (its read of the new picture met the database away or locked: a PostgreSQL restart, a lock
# held by another program; or its emit raised midway) is tried again by itself RETRY s later, then twice as long
# after each failure, at most RETRY_MAX apart, until it goes out; before, only the next booking tried again, and the
# last booking before a quiet spell (the end of a session) stayed off every page. One line per outage, not per try.
# So is one whose read of a console's owed rows failed (_rows_after): the other pages' pictures went out.
RETRY, RETRY_MAX = 1.0, 10.0
PICTURE_NOT_SENT = "terrabank: the pages' new picture was not sent (%s); tried again by itself, every %d s at most"
ROWS_NOT_READ = ("terrabank: the journal rows owed to a console could not be read (%s); the other pages are "
                 "updated, and the console gets its rows by itself, tried again every %d s at most")
# A round weighs its patch against the whole picture's size measured in an earlier round
# (encoding the whole picture on every round to compare cost more than the patch); measured again when
# the patch comes within half of it, and every REMEASURE rounds, as the pictures grow with the game.
REMEASURE = 20
# Journal rows sent at most in one message to one console: its connect or `sync` reply, or the rows a round owes
# it (Broadcaster._owed); a page behind by more gets the rest in the next ones.
JOURNAL_PAGE = 500


@dataclass(frozen=True)
class Base:
    version: str
    picture: dict
    size: int = 0  # bytes of this audience's whole message when last measured (0: not yet)
    age: int = 0   # rounds since then


class Broadcaster:
    def __init__(self, services, socketio, logger, journal_after: int):
        self.services, self.socketio, self.logger = services, socketio, logger
        self._wake = threading.Condition()
        self._asked = self._done = 0  # rounds asked for / sent: a commit is out once _done >= its ticket
        self._journal_seq = journal_after
        self._last_round = 0.0
        self._gap = MIN_GAP  # the least time between two rounds' starts, from the last round's (see SHARE)
        # Held while a round is sent and while a page joins or syncs: the messages of one
        # socket then go out in the order the versions were made.
        self.lock = threading.RLock()
        self._boot, self._made = secrets.token_hex(3), 0
        self._bases: dict[str, Base] = {}
        self._holds: dict[str, dict[str, str]] = {}  # sid -> {audience: version that page holds}
        self._rounds: set[str] = set()    # pages that read one `round` message per round (rounds.py)
        self._behind: set[str] = set()    # pages left out of a round, still sending: the newest pictures follow
        # Each console's last journal row sent in order (its reply's, then each round's): its next rows start after
        # it, wherever the last round's ended (a reply cut at JOURNAL_PAGE rows; a round that failed midway).
        self._sent: dict[str, int] = {}
        # Rounds failed in a row, the next try's time; this round's failure to read owed rows; a console still owed.
        self._tries, self._retry_at, self._failed_since, self._unread, self._more = 0, None, 0.0, None, False
        socketio.start_background_task(self._loop)

    @property
    def journal_seq(self) -> int:
        """The last journal entry a round has sent (the pages are behind the bank while it is lower)."""
        return self._journal_seq

    def ask(self) -> int:
        """A commit happened: make sure a round starts after this moment. Returns a ticket for flush()."""
        with self._wake:
            self._asked += 1
            self._wake.notify_all()
            return self._asked

    def flush(self, ticket: int, timeout: float = 10.0) -> bool:
        """Wait until the round covering `ticket` has been emitted (tests want the messages at once)."""
        with self._wake:
            return self._wake.wait_for(lambda: self._done >= ticket, timeout)

    # -- pages joining, syncing, leaving ------------------------------------------------

    def admit(self, sid: str, rounds: bool) -> None:
        """A page connects: `rounds` if it reads one `round` message per round (else the separate ones)."""
        with self.lock:
            if rounds:
                self._rounds.add(sid)

    def send_current(self, sid: str, team: str | None, pictures: bool = True, journal: list | None = None) -> None:
        """The whole picture of each audience of this page, to it alone (connect and `sync`), with the
        journal rows it asked for (`journal`, None: it did not ask): one message, or separate ones
        to a page that reads those.

        Computed now (a clock must not come back minutes old), it keeps the room's version
        when nothing differs; else it is this page's own, and the next round gives the page
        the whole picture again rather than a patch of a base it does not hold.
        """
        with self.lock:
            parts = self._current(sid, team) if pictures else {}
            if journal is not None:
                parts["journal"] = {"rows": journal}
                # Rows up to the last round's at most (live._journal_upto_round): the rounds go on after them.
                self._sent[sid] = journal[-1]["seq"] if journal else self._journal_seq
            if sid not in self._rounds:  # a page of an older live.js: each part its own message
                for event, message in parts.items():
                    self.socketio.emit(event, message, to=sid)
                return
            if parts.get("journal") == {"rows": []}:  # nothing to say about the journal: one part less
                parts.pop("journal")
            if parts:
                self.socketio.emit(ROUND, parts, to=sid)

    def _current(self, sid: str, team: str | None) -> dict:
        bank, config = self.services.bank, self.services.config
        seq, state = payloads.current(bank)
        now = bank.now()
        fresh = {PUBLIC: payloads.public_of(seq, state, config, now, bank=bank)}
        if team:
            fresh[team_room(team)] = payloads.team_of(seq, state, config, team, now, bank=bank)
        holds = self._holds.setdefault(sid, {})
        parts = {}
        for audience, picture in fresh.items():
            base = self._bases.get(audience)
            version = base.version if base and delta.same(base.picture, picture) else self._version()
            if base is None:  # no page held it (no base kept, see _send): this page's picture is the base
                self._bases[audience] = Base(version, picture)
            holds[audience] = version
            parts[event_of(audience)] = {**picture, "v": version}
        return parts

    def forget(self, sid: str) -> None:
        with self.lock:
            self._holds.pop(sid, None)
            self._sent.pop(sid, None)
            self._rounds.discard(sid)
            self._behind.discard(sid)

    def behind(self) -> set:
        """The pages left out of a round that have not had the newest pictures yet (for tests and benches)."""
        with self.lock:
            return set(self._behind)

    # -- rounds -------------------------------------------------------------------------

    def _loop(self) -> None:
        while True:
            with self._wake:
                # With pages left behind, look again every CATCH_UP even when nothing is booked; after a failed
                # round, try it again when its back-off is over.
                if not self._wake.wait_for(lambda: self._asked > self._done, self._idle_wait()):
                    if self._retry_at is None or time.monotonic() < self._retry_at:
                        self._catch_up_quietly()
                        continue
            # Rounds at most every MIN_GAP (longer when the last was slow to send): a burst of commands waits a
            # few ms and goes out as one.
            time.sleep(max(0.0, self._last_round + self._gap - time.monotonic()))
            with self._wake:
                covered = self._asked  # every ask up to here is covered: the state is read after this
            self._last_round = time.monotonic()
            try:
                unread = self._send()
            except Exception as exc:  # one failed round must not stop the updates: tried again (_retry_at)
                self._failed(exc, PICTURE_NOT_SENT)
            else:
                # The pictures went out; a console's owed rows may not have: tried again by itself too.
                self._went_out() if unread is None else self._failed(unread, ROWS_NOT_READ)
                if self._more:
                    self.ask()
            self._gap = min(MAX_GAP, max(MIN_GAP, SHARE * (time.monotonic() - self._last_round)))
            with self._wake:
                self._done = covered
                self._wake.notify_all()

    def _idle_wait(self) -> float | None:
        """How long the loop waits for an ask: until the failed round's next try, CATCH_UP with pages behind."""
        waits = [CATCH_UP] if self._behind else []
        if self._retry_at is not None:
            waits.append(max(0.0, self._retry_at - time.monotonic()))
        return min(waits) if waits else None

    def _failed(self, exc: Exception, line: str) -> None:
        """A round failed: the next try after the back-off, which doubles up to RETRY_MAX; said once an outage."""
        self._tries += 1
        wait = min(RETRY_MAX, RETRY * 2 ** (self._tries - 1))
        self._retry_at = time.monotonic() + wait
        if self._tries > 1:
            return
        self._failed_since = time.monotonic()
        known = isinstance(exc, StorageError)  # the database away or busy: the sentence says it, no traceback
        self.logger.warning(line, exc.message if known else f"{type(exc).__name__}: {exc}", RETRY_MAX,
                            exc_info=None if known else exc)

    def _went_out(self) -> None:
        if self._tries:
            self.logger.warning("terrabank: the pages' live updates went out again, %.0f s after the first failed "
                                "round (%d rounds missed meanwhile, none lost: the pages have every entry)",
                                time.monotonic() - self._failed_since, self._tries)
        self._tries, self._retry_at = 0, None

    def _send(self) -> Exception | None:
        """One round; the failure reading a console's owed rows (_rows_after) if one did, after the rest went out."""
        bank, config = self.services.bank, self.services.config
        self._unread, self._more = None, False
        with self.lock:
            seq, state = payloads.current(bank)
            now = bank.now()
            # No picture made, no patch weighed, for an audience no page holds (the bank with no page connected did it
            # all on every command). Its base goes: a page joining later gets the whole picture (send_current, under
            # this lock), and the round after it starts a new base.
            held = {audience for holds in self._holds.values() for audience in holds}
            audiences = [PUBLIC, *(team_room(team) for team in config.teams)]
            # Everything read before anything is noted as sent: a read that fails (the database away) leaves the
            # bases and the journal's position as they were, and the round's next try sends the newest picture as
            # a patch of what the pages hold (before, the bases had moved on: the try found nothing changed).
            pictures = {audience: payloads.public_of(seq, state, config, now, bank=bank) if audience == PUBLIC else
                        payloads.team_of(seq, state, config, audience[len("team:"):], now, bank=bank)
                        for audience in audiences if audience in held}
            rows = self._new_rows(seq)
            for audience in audiences:
                if audience not in held:
                    self._bases.pop(audience, None)
            pubs = {audience: pub for audience, picture in pictures.items()
                    if (pub := self._publish(audience, picture)) is not None}
            before = self._journal_seq
            self._journal_seq = max(self._journal_seq, rows[-1]["seq"] if rows else seq)
            consoles, owed = self._owed(before, rows)
            holders = {audience: [sid for sid, holds in self._holds.items() if audience in holds] for audience in pubs}
            extra = self._newest_for_caught_up(pubs)
            try:
                left_out = rounds.deliver(self.socketio, pubs, rows, self._holds, config.teams, extra, owed)
            except Exception:
                # Midway: the pages after the one whose emit raised missed it. Each page of the round is
                # caught up with the newest pictures whole (_catch_up) once its socket is free.
                self._behind |= {sid for sids in holders.values() for sid in sids} | set(extra)
                raise
            for sid in consoles:  # only once the round went out: after a failed one, each console is owed its rows
                part = owed.get(sid, {"rows": rows}) if sid in self._sent else None
                if part and part["rows"]:
                    self._sent[sid] = part["rows"][-1]["seq"]
            # A console sent a page of its owed rows and still behind gets the next at once, not at the next booking.
            self._more = any(owed.get(sid) and self._sent[sid] < self._journal_seq for sid in consoles)
            self._behind = {sid for sid in self._behind - set(extra) | left_out if sid in self._holds}
            for audience, pub in pubs.items():
                for sid in holders[audience]:
                    if sid in left_out:
                        continue  # still sending: it holds what it held, the newest follows (_catch_up)
                    # An emit may close a page whose pings stopped (python-engineio's "client is gone"), here, in
                    # this thread: on_disconnect forgets it under this same (reentrant) lock. So a page may
                    # be gone by the next line: one lookup by its sid would fail the round for every other page.
                    holds = self._holds.get(sid)
                    if holds is not None:
                        holds[audience] = pub.version
        return self._unread

    def _newest_for_caught_up(self, pubs: dict) -> dict:
        """{sid: parts} for the pages left behind that have sent everything: the newest picture, whole, of each
        audience they hold at another version that this round does not bring (the round brings the others,
        whole to a page holding another base; with no round, `pubs` is empty). Noted as held now: the caller sends
        them (the round, rounds._one_room; or _catch_up)."""
        extra, wholes = {}, {}  # wholes: one dict an audience, so the pages sharing it share one emit (emit_alike)
        for sid in self._behind:
            holds = self._holds.get(sid)
            if holds is None or sid not in self._rounds or rounds.still_sending(self.socketio, sid):
                continue
            parts = {}
            for audience, held in holds.items():
                base = self._bases.get(audience)
                if audience not in pubs and base is not None and base.version != held:
                    if audience not in wholes:
                        wholes[audience] = {**base.picture, "v": base.version}
                    parts[event_of(audience)] = wholes[audience]
                    holds[audience] = base.version
            extra[sid] = parts
        return extra

    def _catch_up_quietly(self) -> None:
        """No round is coming: the pages left behind that have sent everything get the newest pictures."""
        try:
            self._catch_up()
        except Exception:  # as a round: one failure must not stop the updates
            self.logger.exception("catching up the pages behind failed")

    def _catch_up(self) -> None:
        """Each page left out of a round whose socket has sent everything gets, whole and in one message, the
        newest picture of every audience it holds at another version; one still sending waits."""
        with self.lock:
            caught_up = self._newest_for_caught_up({})
            rounds.emit_alike(self.socketio, caught_up.items())
            self._behind -= set(caught_up)
            self._behind &= set(self._holds)  # pages gone meanwhile

    def _owed(self, before: int, rows: list) -> tuple[list, dict]:
        """(the consoles in the round's room, {sid: journal part or None} for those behind the last round's row,
        `before`). A console is behind when its connect or `sync` reply was cut at JOURNAL_PAGE rows (a console
        that moved from a dead process after more than that many rows were booked: it got those rows, then the
        round's, newer, after a gap; it asked, and got the rest after newer ones), or a round failed midway (its
        emit raised on one page: the consoles after it in the room missed the rows). It gets the rows after its
        last first, then this round's, at most JOURNAL_PAGE. So the rows one console is sent always follow on, in
        order: none after a newer one, no gap for it to ask about."""
        consoles, owed, alike = rounds.participants(self.socketio, ROUND_FACILITATORS), {}, {}
        for sid in consoles:
            sent = self._sent.get(sid)
            if sent is None or sent >= before:
                continue
            if sent not in alike:  # one part for the consoles at one row: one emit for them all (rounds.emit_alike)
                alike[sent] = self._rows_after(sent, rows[-1]["seq"] if rows else before)
            owed[sid] = alike[sent]
        return consoles, owed

    def _rows_after(self, sent: int, last: int) -> dict | None:
        upto = min(last, sent + JOURNAL_PAGE)
        try:
            rows = self.services.bank.rows_upto(sent, upto)
        except Exception as exc:  # the journal unread (a database away): nothing now, the round's next try owes them
            self._unread = exc  # said once an outage by the loop (_failed), no traceback: before, one each round
            return None
        self.logger.info("journal rows %d-%d owed to a console behind the rounds: sent first", sent + 1, upto)
        return {"rows": rows} if rows else None

    def _new_rows(self, seq: int) -> list:
        """The journal rows after the last round's up to this round's `seq`, for the consoles: from the bank's
        memory of what it committed (bank/services/recent_rows.py), read only when it lacks some; none when no
        console is open. The caller moves the last round's row once the whole round is read."""
        if not any(rounds.participants(self.socketio, room) for room in (FACILITATORS, ROUND_FACILITATORS)):
            return []
        return self.services.bank.rows_upto(self._journal_seq, seq)

    def _publish(self, audience: str, picture: dict) -> Publication | None:
        """This audience's new picture as a patch of its base (or whole); None when nothing changed."""
        base = self._bases.get(audience)
        # whole=False: diff does not encode the whole picture to weigh a patch of it; this does, below.
        ops = delta.diff(base.picture, picture, whole=False) if base is not None else None
        if ops == []:
            return None  # nothing changed for this audience (a quiet tick)
        version = self._version()
        full = {**picture, "v": version}
        patch, size, age = None, 0, 0
        if base is not None:
            # The seq travels beside the patch (every message names it): no need to patch it too.
            ops = [op for op in ops if op[1] != ["seq"]]
            patch = {"seq": picture["seq"], "v": version, "base": base.version, "patch": ops}
            size, age = base.size, base.age + 1
            weight = delta.size(patch)
            if weight * 2 >= size or age >= REMEASURE:  # near the whole's last size, or that size is old
                size, age = delta.size(full), 0
                if weight >= size:
                    patch = None
        self._bases[audience] = Base(version, picture, size, age)
        return Publication(version, full, patch, base.version if patch is not None else None)

    def _version(self) -> str:
        self._made += 1
        return f"{self._boot}.{self._made}"

    # -- for tests ----------------------------------------------------------------------

    def base_of(self, audience: str) -> Base | None:
        with self.lock:
            return self._bases.get(audience)

    def version_held(self, sid: str, audience: str) -> str | None:
        with self.lock:
            return self._holds.get(sid, {}).get(audience)
