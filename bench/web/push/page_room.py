"""A room of live pages on plain sockets, and facilitators booking at a pace.

`Room`: N pages connected as today's live.js (tests/sio_kit.Phone: Engine.IO pings answered, `rounds: 1`),
offering permessage-deflate as every browser does (the server compresses each page's messages, a cost per
page a room without it hid),
from several loopback addresses (the bank caps live pages per address), all read by ONE thread with a
selector, so the client side costs little beside a server held to a Raspberry Pi's budget. Each page
keeps only the newest journal number its public picture carried, and when each newer one arrived.

`book_at_pace`: T tablets booking harvests at RATE a second between them for SECONDS; a request that comes
back late is followed at once by the next (the asked pace, not a closed loop); every booked seq with the
moment its request was sent; a login or a request that failed is in `refused` (a tablet tries its login 5 times).

Used by tests/web/push/test_pages_kept_on_a_pi_budget.py and bench/web/push/pages_under_pressure.py.
"""

from __future__ import annotations

import bisect
import http.client
import itertools
import selectors
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))              # harness
sys.path.insert(0, str(HERE.parents[2] / "tests"))     # sio_kit, live_kit: the raw page

import harness  # noqa: E402
from sio_kit import Phone  # noqa: E402

HARVESTERS = ["harvester-1", "harvester-2"]
RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]
TEAMS = ("blue", "yellow", "red", "green")
SAMPLE = 64  # `round` messages kept per team (Room.samples)


class Room:
    """`pages` team pages (a quarter a team) from `addresses` loopback addresses 127.0.0.2...; `tokens` {team: link}
    (any text for a floor that checks none); `deflate`: offer permessage-deflate (False: plain frames)."""

    def __init__(self, port: int, tokens: dict, pages: int, addresses: int = 4, timeout: float = 30.0,
                 deflate: bool = True):
        teams = sorted(tokens)
        self.pages: list[Phone] = []
        self.stop = threading.Event()
        # The last SAMPLE `round` messages the first page of each team got: the bank's own shape and size, for a floor
        # to send the same (a floor padding 400 B that compress to nothing flattered the floor).
        self.samples: dict[str, list] = {teams[i]: [] for i in range(min(len(teams), pages))}
        self.sampled: set[int] = set()
        # Each page is read from the moment it is let in, as a phone reads its own: read only once the last
        # was let in, the first pages answered no ping for as long as the room took to connect, and the
        # bank (ping every 10 s, 10 s to answer) rightly closed them once that passed 20 s (1,000 pages
        # connect in 20 s on a quiet host: 103 closed on a slower one).
        self.selector = selectors.DefaultSelector()
        self.reader = threading.Thread(target=self._read, daemon=True, name="room")
        self.reader.start()
        try:
            for i in range(pages):
                token = tokens[teams[i % len(teams)]]
                page = Phone(port, {"team": token}, timeout=timeout, query=f"&team={token}",
                             source=f"127.0.0.{2 + i % addresses}", deflate=deflate)
                page.team = teams[i % len(teams)]
                page.newest, page.arrivals = 0, []  # arrivals: (monotonic time, newest seq) each time it grew
                page.messages = 0  # Socket.IO events received (a `round` counts once), pings left out
                if i < len(teams):
                    self.sampled.add(id(page))
                self.pages.append(page)
                self._take(page)  # what came with its connect (its first pictures): the reader sees only what comes next
                self.selector.register(page.sock, selectors.EVENT_READ, page)
        except Exception as exc:
            self.close()
            raise RuntimeError(f"page {len(self.pages) + 1} of {pages} was not let in ({exc!r}); "
                               f"{len(self.pages)} were") from exc
        except BaseException:
            self.close()
            raise

    def _read(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.selector.select(timeout=0.2):
                page = key.data
                if page.closed:
                    continue
                page.read(timeout=1.0)  # readable: returns at once; pings answered (sio_kit.Phone)
                if page.closed:
                    page.closed_at = time.monotonic()
                    self.selector.unregister(page.sock)
                    continue
                self._take(page)

    def _take(self, page: Phone) -> None:
        """Count and note what the page has read since the last time, and forget it."""
        page.messages += sum(text.startswith("42") for text in page.texts)
        if id(page) in self.sampled and page.rounds:
            del self.samples[page.team][:max(0, len(self.samples[page.team]) + len(page.rounds) - SAMPLE)]
            self.samples[page.team] += page.rounds[-SAMPLE:]
        seqs = [d["seq"] for n, d in page.events if n == "public" and isinstance(d, dict) and "seq" in d]
        del page.texts[:], page.events[:], page.rounds[:]
        if seqs and max(seqs) > page.newest:
            page.newest = max(seqs)
            page.arrivals.append((time.monotonic(), page.newest))

    def compressed(self) -> int:
        """How many pages the server agreed permessage-deflate with (wsproto keeps the accepted extension)."""
        return sum(any(getattr(e, "_enabled", False) for e in page.ws.connection._proto.extensions)
                   for page in self.pages if page.ws.connection is not None)

    def messages(self) -> int:
        """Socket.IO events received by all pages so far (pings left out)."""
        return sum(page.messages for page in self.pages)

    def dropped(self) -> int:
        return sum(page.closed for page in self.pages)

    def behind(self, seq: int) -> int:
        """How many pages do not hold entry `seq` yet."""
        return sum(page.newest < seq for page in self.pages)

    def held_by_all(self, seq: int, seconds: float) -> bool:
        """Whether every page holds entry `seq` within `seconds` (polled: it returns as soon as they do)."""
        deadline = time.monotonic() + seconds
        while self.behind(seq) and time.monotonic() < deadline:
            time.sleep(0.05)
        return not self.behind(seq)

    def last_page_at(self, seq: int) -> float | None:
        """When the last page came to hold entry `seq` (None: a page never did)."""
        latest = 0.0
        for page in self.pages:
            # Arrivals grow in time and seq: a bisection (a scan was booked x pages x arrivals: hours for a
            # 5-minute room at 20 a second).
            i = bisect.bisect_left(page.arrivals, seq, key=lambda arrival: arrival[1])
            if i == len(page.arrivals):
                return None
            latest = max(latest, page.arrivals[i][0])
        return latest

    def close(self) -> None:
        self.stop.set()
        self.reader.join(timeout=5)
        for page in self.pages:
            page.close()


def harvest(i: int) -> dict:
    return {"type": "harvest", "team": TEAMS[i % 4], "card": HARVESTERS[i // 4 % 2], "resource": RESOURCES[i % 5]}


def book_at_pace(url: str, rate: float, seconds: float, tablets: int = 4, tag: str = "b", login=None,
                 ready=None) -> tuple:
    """(booked [(seq, sent monotonic time)], refused [(status, reply)]): `tablets` facilitators booking harvests at
    `rate` a second between them for `seconds`. `login(api)` logs a tablet in (default: harness's lead).

    The tablets log in first, then `ready()` is called once and the `seconds` begin: a log-in hashes a password
    (scrypt, about 0.1 s of a core each), which a CPU figure per harvest must not count (4 log-ins in a 40-harvest
    window added some 11 ms to every harvest, with or without pages, and flattered the ratio between them)."""
    booked, refused, lock = [], [], threading.Lock()
    window = {}

    def begin():
        if ready is not None:
            ready()
        window["until"] = time.monotonic() + seconds
        window["start"] = time.monotonic()

    logged_in = threading.Barrier(tablets, action=begin)

    def connected(api):
        """A logged-in tablet, or None: a login the server closed unanswered (a loaded Pi) is noted in `refused`."""
        try:
            (login or (lambda a: a.login()))(api)
            return api
        except (OSError, http.client.HTTPException) as error:
            with lock:
                refused.append(("login", repr(error)))
            api.close()
            return None

    def tablet(n: int) -> None:
        api = connected(harness.Api(url, timeout=120))
        logged_in.wait()
        gap, next_at, until = tablets / rate, window["start"] + n / rate, window["until"]
        try:
            for k in itertools.count():
                time.sleep(max(0.0, next_at - time.monotonic()))
                if time.monotonic() >= until:
                    return
                next_at += gap
                if api is None:  # its last login or request failed: log in again, this turn
                    api = connected(harness.Api(url, timeout=120))
                    continue
                i = k * tablets + n
                sent = time.monotonic()
                try:
                    status, reply = api.command(f"{tag}{n}-{i}", **harvest(i))
                except (OSError, http.client.HTTPException) as error:  # closed unanswered: noted, the tablet goes on
                    status, reply = "closed", repr(error)
                    api.close()
                    api = None
                with lock:
                    if status == 200 and isinstance(reply, dict):
                        booked.append((reply["seq"], sent))
                    else:
                        refused.append((status, reply))
        finally:
            if api is not None:
                api.close()

    threads = [threading.Thread(target=tablet, args=(n,)) for n in range(tablets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(booked), refused
