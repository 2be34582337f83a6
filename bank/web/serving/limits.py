"""The serving numbers (`Limits`) and the refusal a connection over a cap gets, in one place.

Split from server.py so that the worker (worker.py), the admission of live pages and
bodies (admission.py) and the server's set-up (server.py) all read the same numbers without
importing each other: docs/PERFORMANCE.md "Production serving" measures them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

STACK_SIZE = 512 * 1024  # per thread; why: bank/cli/serve.py (32-bit Raspberry Pi OS, four threads a page)


@dataclass(frozen=True)
class Limits:
    """The numbers, and why (docs/PERFORMANCE.md "Production serving" measures them).

    A live page on long polling holds one pool thread while its poll waits; on a WebSocket
    it holds none once the upgrade is answered (one loop serves them all, bank/web/push/hub.py),
    only its connection and about 30 KB. So two counts: pages holding a thread (long polls, a
    WebSocket while its upgrade is answered) take at most `threads - reserve()` slots
    (`live_slots`), so that with every phone of the game on long polling, a command still
    finds a thread; and live pages of every kind together at most `live_pages_at_once()`, a
    share of `max_connections` (a page holds its connection for its life), the rest kept for
    page loads and commands. A game whose config admits more pages (`for_pages`, from its
    links' shares) gets the connections they need: 1,000 phones about 30 MB more.

    Admission by authority, not by address: one laptop can take several
    addresses, so what decides is the secret a client holds. A live page or a request
    with a body that carries a team link, the big screen's key or a facilitator's
    session may hold up to `per_secret_live` live pages per secret; one with no secret
    (a big screen without its key, a log-in page, an unknown socket) shares
    `anonymous_live` live slots and `anonymous_bodies` threads reading a body, with
    `anonymous_body_seconds` to send a body too big for the loop. A connection holds no
    thread until its headers, and a small body, are in (read by the worker's
    loop, within `header_seconds`), and at `max_connections` the oldest connection
    that has not sent a request (or waits idle between two) is closed for the newcomer.
    `per_address` stays as a second line: 100 phones behind one access point need one
    WebSocket each plus a few short-lived connections while a page loads: 100 + 150.

    Authority a stranger can mint kept apart: anyone on the Wi-Fi may create a Trias
    game and hold its seat links. Their live pages share `strangers_live` slots, at most
    `per_stranger_secret_live` a seat and `per_stranger_address_live` a client address; the
    anonymous share and theirs together never reach the slots of the lead's secrets (team
    links, the big screen's key, sessions), each of which holds up to its config's
    [server] phones_per_team + spare_pages_per_link (`per_secret_live` overrides it).
    """

    threads: int = 500
    max_connections: int = 1000      # open connections, all addresses together
    per_address: int = 250           # open connections from one IP address
    # From accept (or keep-alive wake-up) to the end of the headers, and of a small body (worker.py LOOP_BODY:
    # read by the worker's loop before the request gets a thread).
    header_seconds: float = 10.0
    body_seconds: float = 30.0       # a bigger body: from the end of the headers until the app starts its reply
    read_seconds: float = 30.0       # any single read or write of a plain request (not of a WebSocket)
    keepalive_seconds: int = 5       # an idle kept-alive connection, then closed
    # Live pages at once, WebSocket and long polling together. None: three quarters of max_connections
    # (1000: 750), at least the live slots; `for_pages` raises it and max_connections for a bigger game.
    live_pages: int | None = None
    # Threads no live page may take: a console command, a page load, the API always find
    # one. None: a tenth of the threads, at least 4 (500 threads: 450 live pages, 50 in reserve).
    live_reserve: int | None = None
    # Live pages of clients holding no secret. None: an eighth of the live slots, at least 2 (450: 56).
    anonymous_live: int | None = None
    # Threads reading bodies of clients holding no secret. None: half the reserve, at least 2 (500 threads: 25).
    anonymous_bodies: int | None = None
    anonymous_body_seconds: float = 5.0  # a log-in's body is a few hundred bytes
    # Live pages per team link, big-screen key or facilitator session. None: the game's config.toml
    # ([server] phones_per_team + spare_pages_per_link: 60), read by serving.prepare.
    per_secret_live: int | None = None
    # Trias seats' pages (secrets anyone can mint). None: a sixth of the live slots, at least 2 (450: 75).
    strangers_live: int | None = None
    per_stranger_secret_live: int = 3    # a seat's phone, a reload while the old page lingers, one more tab
    per_stranger_address_live: int = 15  # three tables' worth of seats played on one device
    # Bodies read in a pool thread (bigger than the worker's loop reads, or a framing Gunicorn judges; a route's
    # own bodies are all read by the loop, loop_body.py) carrying a secret the lead issued: at once per secret
    # and per address. A trusted device's requests with a body, per account (body_pools.py).
    secret_bodies: int = 4
    address_bodies: int = 4
    trusted_bodies: int = 2

    def __post_init__(self):
        from bank.errors import BankError

        if self.live_reserve is not None and not 0 <= self.live_reserve < self.threads:
            raise BankError("bad_live_reserve",
                            f"live_reserve is {self.live_reserve}, but it must be from 0 to threads - 1 "
                            f"({self.threads - 1}) so that at least one live page fits; leave it out for "
                            "a tenth of the threads.")

    def reserve(self) -> int:
        """Threads kept for plain requests: never taken by a live page."""
        if self.live_reserve is not None:
            return self.live_reserve
        return min(max(4, self.threads // 10), self.threads - 1)

    def live_slots(self) -> int:
        """Live pages (WebSockets, long polls) served at once; a new one beyond is refused with a 503."""
        return self.threads - self.reserve()

    def live_pages_at_once(self) -> int:
        """Live pages of every kind together (each holds a connection); those holding a thread: `live_slots`."""
        if self.live_pages is not None:
            return max(1, min(self.live_pages, self.max_connections - 1))
        return max(self.live_slots(), self.max_connections - self.max_connections // 4)

    def for_pages(self, pages: int) -> "Limits":
        """These limits, letting `pages` live pages in with the connections they hold (a game's config admits
        them: its links' shares); unchanged when they fit. The connections kept for the rest stay as many."""
        if pages <= self.live_pages_at_once():
            return self
        spare = self.max_connections - self.live_pages_at_once()
        return dataclasses.replace(self, live_pages=pages, max_connections=pages + spare)

    def anonymous_live_slots(self) -> int:
        """Live pages without a secret, all addresses together: a share of the live slots (threads) unless set."""
        if self.anonymous_live is not None:
            return min(self.anonymous_live, self.live_pages_at_once())
        return min(self.live_slots(), max(2, self.live_slots() // 8))

    def strangers_live_slots(self) -> int:
        """Live pages holding a secret anyone can mint (a Trias seat's link), all addresses together."""
        if self.strangers_live is not None:
            return min(self.strangers_live, self.live_pages_at_once() - self.anonymous_live_slots())
        return min(self.live_slots() - self.anonymous_live_slots(), max(2, self.live_slots() // 6))

    def anonymous_body_slots(self) -> int:
        """Requests without a secret reading their body at once, all addresses together."""
        if self.anonymous_bodies is not None:
            return self.anonymous_bodies
        return max(2, self.reserve() // 2)

    def fd_needed(self) -> int:
        """One descriptor per connection, plus SQLite files, the listener, pipes and margin."""
        return self.max_connections + 256


REFUSAL = ("La banque a trop de connexions ouvertes{who} ; réessayez dans quelques secondes.\n"
           "The bank has too many open connections{who_en}; try again in a few seconds.\n")


def refusal_bytes(per_address: bool) -> bytes:
    """The whole HTTP reply sent to a connection over a cap, before reading anything from it."""
    body = REFUSAL.format(who=" depuis votre adresse" if per_address else "",
                          who_en=" from your address" if per_address else "").encode()
    status = "429 Too Many Requests" if per_address else "503 Service Unavailable"
    return (f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 5\r\n"
            f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
