"""The slow-client attack (slow headers, half-open connections), on this machine only, bounded,
and a probe of who still gets in.

One "laptop" (a loopback source address, 127.0.0.2 by default, so the per-address cap
sees one address) keeps open:
- `half_open` connections (1,100) that send the start of a request and never finish
  its headers;
- `slow` connections (200) that drip one header byte every `drip` seconds.
When the server closes or refuses one, it is opened again (at most `rate` a second),
as a script on the game's Wi-Fi would. Meanwhile `probe()` plays the big screen
(a new connection: GET /display and GET /api/public) and a logged-in facilitator
(GET /console and a harvest) from 127.0.0.1, and times every answer.

Bounded: the target and the source must be loopback addresses; it stops after
`seconds` (at most 300) and opens at most 20 times its count of connections in all.

`--login-bodies`: each slow connection sends a log-in's head whole (with a visitor's
cookie and CSRF token, so the bank reads the body) and then drips its body; `--addresses 8`
runs 8 laptops (127.0.0.2-9), each with the counts given. `--framing chunked|expect|big` frames
that body otherwise, `--query seat=<link>` or `--query team=<link>` makes it claim a secret.

    .venv/bin/python bench/slow_clients.py --url http://127.0.0.1:5000 --seconds 30
    .venv/bin/python bench/slow_clients.py --url http://127.0.0.1:5000 --half-open 0 --slow 60 --login-bodies --addresses 8
    .venv/bin/python bench/slow_clients.py --url http://127.0.0.1:5000 --half-open 0 --slow 250 --login-bodies \
        --framing chunked --query seat=<a seat link> --addresses 2
"""

from __future__ import annotations

import argparse
import http.client
import ipaddress
import resource
import selectors
import socket
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import Api  # noqa: E402

MAX_SECONDS = 300
REQUEST_START = b"GET /display HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n"
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
FRAMINGS = ("length", "chunked", "expect", "big")


def _loopback(address: str) -> str:
    if not ipaddress.ip_address(address).is_loopback:
        raise SystemExit(f"{address} is not a loopback address: this attack runs against this machine only")
    return address


def raise_own_fd_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


class Attack:
    """Run in a thread: start(), then wait() or stop(); `stats` counts what the server did."""

    def __init__(self, host: str, port: int, half_open: int = 1100, slow: int = 200, seconds: float = 30.0,
                 source: str = "127.0.0.2", drip: float = 1.0, rate: int = 400, head: bytes = None):
        self.host, self.port, self.source = _loopback(host), port, _loopback(source)
        self.head = REQUEST_START if head is None else head  # what each connection sends before it drips
        self.want = {"half": half_open, "slow": slow}
        self.seconds, self.drip, self.rate = min(seconds, MAX_SECONDS), drip, rate
        self.budget = 20 * (half_open + slow)  # connections opened in all, at most
        self.stats = Counter()
        self.open = {"half": 0, "slow": 0}
        self.most_open = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="slow-clients", daemon=True)
        raise_own_fd_limit(half_open + slow + 512)

    def start(self) -> "Attack":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def wait(self) -> None:
        self._thread.join(timeout=self.seconds + 30)

    def _open(self, sel, kind: str) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.bind((self.source, 0))
            sock.connect_ex((self.host, self.port))
        except OSError:
            sock.close()
            self.stats["could not open"] += 1
            return
        self.stats["opened"] += 1
        self.open[kind] += 1
        # [kind, bytes still to send first, next drip time, header bytes sent]
        sel.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE, [kind, self.head, 0.0, 0])

    def _drop(self, sel, sock, state, why: str) -> None:
        sel.unregister(sock)
        sock.close()
        self.open[state[0]] -= 1
        self.stats[why] += 1

    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        end = time.monotonic() + self.seconds
        tokens, last = float(self.rate), time.monotonic()
        try:
            while not self._stop.is_set() and time.monotonic() < end:
                now = time.monotonic()
                tokens = min(float(self.rate), tokens + (now - last) * self.rate)
                last = now
                for kind in ("slow", "half"):  # the slow ones first: they are the fewer
                    while self.open[kind] < self.want[kind] and tokens >= 1 and self.stats["opened"] < self.budget:
                        self._open(sel, kind)
                        tokens -= 1
                self.most_open = max(self.most_open, sum(self.open.values()))
                for key, events in sel.select(timeout=0.05):
                    sock, state = key.fileobj, key.data
                    if events & selectors.EVENT_READ:
                        try:
                            data = sock.recv(4096)
                        except OSError:
                            data = b""
                        if data.startswith(CONTINUE):  # the server asks for the body it will never get whole
                            self.stats["told to continue"] += 1
                            data = data[len(CONTINUE):]
                            if not data:
                                continue
                        if data.startswith(b"HTTP/1.1 429"):
                            self._drop(sel, sock, state, "refused 429 (per address)")
                        elif data.startswith(b"HTTP/1.1 503"):
                            self._drop(sel, sock, state, "refused 503 (server full)")
                        elif data.startswith(b"HTTP/"):
                            self._drop(sel, sock, state, "answered " + data[9:12].decode("latin-1"))
                        else:
                            self._drop(sel, sock, state, "closed by the server")
                        continue
                    if events & selectors.EVENT_WRITE and state[1]:
                        try:
                            sent = sock.send(state[1])
                            state[1] = state[1][sent:]
                        except OSError:
                            self._drop(sel, sock, state, "could not connect")
                            continue
                    if not state[1]:
                        # Sent what it sends at once: now only listen (and drip, for the slow ones).
                        sel.modify(sock, selectors.EVENT_READ, state)
                now = time.monotonic()
                for key in list(sel.get_map().values()):
                    state = key.data
                    if state[0] == "slow" and not state[1] and now >= state[2]:
                        state[2] = now + self.drip
                        state[3] += 1
                        try:
                            key.fileobj.send(b"X-Slow-Header: " if state[3] == 1 else b"a")
                        except OSError:
                            self._drop(sel, key.fileobj, state, "closed by the server")
        finally:
            for key in list(sel.get_map().values()):
                key.fileobj.close()
            sel.close()


def probe(url: str, seconds: float, every: float = 0.5, facilitator: Api | None = None,
          command=None) -> dict:
    """Time the big screen's and a facilitator's requests from 127.0.0.1 for `seconds`.

    Returns lists of seconds per kind, and the failures (status or exception) as text.
    `command(i)` gives the facilitator's i-th command (a dict) or None for none.
    """
    host, port = url.removeprefix("http://").split(":")
    times = {"display page": [], "public data": [], "console page": [], "command": []}
    failures = []
    end, i = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        i += 1
        for path, kind in (("/display", "display page"), ("/api/public", "public data")):
            t0 = time.monotonic()
            try:
                conn = http.client.HTTPConnection(host, int(port), timeout=10)
                conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
                reply = conn.getresponse()
                reply.read()
                conn.close()
                if reply.status != 200:
                    failures.append(f"{kind}: {reply.status}")
            except OSError as exc:
                failures.append(f"{kind}: {exc!r}")
            times[kind].append(time.monotonic() - t0)
        if facilitator is not None:
            t0 = time.monotonic()
            try:
                status, _ = facilitator.request("GET", "/console")
                if status != 200:
                    failures.append(f"console page: {status}")
            except OSError as exc:
                failures.append(f"console page: {exc!r}")
            times["console page"].append(time.monotonic() - t0)
            body = command(i) if command else None
            if body is not None:
                t0 = time.monotonic()
                try:
                    status, reply = facilitator.command(f"probe-{time.time_ns()}", **body)
                    if status != 200:
                        failures.append(f"command: {status} {reply}")
                except OSError as exc:
                    failures.append(f"command: {exc!r}")
                times["command"].append(time.monotonic() - t0)
        time.sleep(every)
    return {"times": {k: v for k, v in times.items() if v}, "failures": failures}


def login_head(url: str, framing: str = "length", query: str = "", cookie: str = "") -> bytes:
    """A log-in's head as the log-in page sends it, and its body's first byte; the body never ends.

    `framing`: "length" announces 5,000 bytes; "chunked" sends a chunk of 5,000 (Transfer-Encoding);
    "expect" announces 5,000 and asks for "100 Continue" first; "big" sends a chunk of 100,000 (more than
    the worker's loop reads, and without a Content-Length a route cannot refuse it before reading). `query`: added to the path (e.g. "seat=<a minted seat link>" or "team=<link>",
    a secret the request claims). `cookie`: more cookies (e.g. a device cookie)."""
    visitor = Api(url, timeout=10)
    try:
        _, body = visitor.request("GET", "/api/csrf")
    finally:
        visitor.close()
    framing_lines = {"length": "Content-Length: 5000\r\n\r\n{", "chunked": "Transfer-Encoding: chunked\r\n\r\n1388\r\n{",
                     "expect": "Content-Length: 5000\r\nExpect: 100-continue\r\n\r\n{",
                     "big": "Transfer-Encoding: chunked\r\n\r\n186a0\r\n{"}[framing]
    cookies = "; ".join(part for part in (visitor.cookie, cookie) if part)
    return (f"POST /api/login{'?' + query if query else ''} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Cookie: {cookies}\r\nX-CSRF-Token: {body['csrf']}\r\n{framing_lines}").encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="http://127.0.0.1:PORT")
    parser.add_argument("--half-open", type=int, default=1100)
    parser.add_argument("--slow", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--source", default="127.0.0.2")
    parser.add_argument("--addresses", type=int, default=1, help="laptops, from --source upward (at most 200)")
    parser.add_argument("--login-bodies", action="store_true", help="slow connections drip a log-in's body")
    parser.add_argument("--framing", choices=FRAMINGS, default="length", help="of the log-in bodies")
    parser.add_argument("--query", default="", help="added to the log-ins' path: seat=<link> or team=<link>")
    args = parser.parse_args()
    host, port = args.url.removeprefix("http://").split(":")
    first = ipaddress.ip_address(_loopback(args.source))
    head = login_head(args.url, args.framing, args.query) if args.login_bodies else None
    attacks = [Attack(host, int(port), args.half_open, args.slow, args.seconds, str(first + i), head=head).start()
               for i in range(max(1, min(args.addresses, 200)))]
    result = probe(args.url, args.seconds)
    stats, most_open = Counter(), 0
    for attack in attacks:
        attack.wait()
        stats.update(attack.stats)
        most_open += attack.most_open
    for kind, values in result["times"].items():
        print(f"{kind:14} n={len(values):3}  max {max(values) * 1000:7.1f} ms")
    print("failures:", result["failures"][:10] or "none")
    print("attack:", dict(stats), "most open at once (sum over laptops):", most_open)


if __name__ == "__main__":
    main()
