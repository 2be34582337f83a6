"""Log-in under attack: memory of parallel log-ins, the lock against parallel guessing, equal timing.

Each scenario runs on a fresh `terrabank serve` (bench/harness.py) on 127.0.0.1:

- spray: 60 log-ins with random usernames fired at once, each from its own loopback
  address (127.0.0.10...): the per-address lock does not help, so only the bound on
  hashes running at once keeps memory down (a scrypt hash holds about 32 MB);
- spray-one-address: the same 60 from 127.0.0.1 (the per-address lock also counts);
- guess: 40 log-ins for one username at once, 39 wrong passwords and the right one, 3 times
  (at most five may have their password checked); then, with the account locked, the
  server is killed (SIGKILL) and restarted, and the right password is tried again;
- timing: a known username with a wrong password, the right password, and an unknown
  username, each 20 times in turn from fresh addresses (median and spread).

Memory is VmRSS of the server sampled every 2 ms during the burst; the floor is its
RSS idle after one successful log-in (one hash already done).

    .venv/bin/python bench/web/access/bench_login.py
    .venv/bin/python bench/web/access/bench_login.py --rounds 5    # timing: 5 of each instead of 20
"""

from __future__ import annotations

import argparse
import http.client
import secrets
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the shared modules
from harness import PASSWORD, USER, Api, Server, machine, rss_mb


class SourcedApi(Api):
    """An Api whose every connection leaves from `source` (any 127.x.y.z reaches 127.0.0.1 on Linux)."""

    def __init__(self, url: str, source: str):
        super().__init__(url, timeout=60)
        self.source = source

    def connection(self) -> http.client.HTTPConnection:
        # Each connection, the ones after a server's close too (HTTP/1.0), from the same address.
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout, source_address=(self.source, 0))


def client(url: str, source: str) -> Api:
    """A client at loopback address `source`, holding its session's CSRF token."""
    api = SourcedApi(url, source)
    _, body = api.request("GET", "/api/csrf")
    api.csrf = body["csrf"]
    return api


def attempt(api: Api, username: str, password: str) -> tuple[int, str]:
    """(status, error code or 'ok') of one POST /api/login."""
    status, body = api.request("POST", "/api/login", {"username": username, "password": password})
    code = body.get("error", {}).get("code", "ok") if isinstance(body, dict) else str(body)[:40]
    api.close()
    return status, code


class PeakRss:
    """Samples a process's VmRSS in a thread until stopped; .peak in MB."""

    def __init__(self, pid: int):
        self.pid, self.peak, self._stop = pid, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.002)

    def __enter__(self) -> "PeakRss":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def burst(url: str, tries: list[tuple[str, str, str]]) -> Counter:
    """Fire every (source, username, password) at once (a barrier after the CSRF fetch); count the answers."""
    apis = [client(url, source) for source, _, _ in tries]
    barrier, answers, lock = threading.Barrier(len(tries)), Counter(), threading.Lock()

    def one(api: Api, username: str, password: str) -> None:
        barrier.wait()
        answer = attempt(api, username, password)
        with lock:
            answers[answer] += 1

    threads = [threading.Thread(target=one, args=(api, u, p)) for api, (_, u, p) in zip(apis, tries)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def fresh(folder: Path, name: str) -> Server:
    """A new game with the bench's lead account, started, after one good log-in (the memory floor)."""
    server = Server(folder / name).prepare().start()
    Api(server.url).login().close()
    time.sleep(0.3)
    return server


def spray(folder: Path, spread: bool) -> dict:
    """60 random usernames at once; peak RSS against the floor."""
    with fresh(folder, "spray" + ("-spread" if spread else "")) as server:
        floor = server.rss_mb()
        tries = [(f"127.0.0.{10 + n}" if spread else "127.0.0.1", secrets.token_hex(6), "password123")
                 for n in range(60)]
        with PeakRss(server.pid) as peak:
            answers = burst(server.url, tries)
        time.sleep(0.3)
        return {"floor": floor, "peak": peak.peak, "after": server.rss_mb(), "answers": answers}


def guess(folder: Path, bursts: int) -> dict:
    """40 at once for the lead account, one with the right password (each burst on a new game);
    then, locked, a restart and the right password."""
    answers = []
    for n in range(bursts):
        with fresh(folder, f"guess-{n}") as server:
            tries = [("127.0.0.1", USER, f"guess-{k}") for k in range(39)] + [("127.0.0.1", USER, PASSWORD)]
            answers.append(burst(server.url, tries))
    with server:
        server.start()  # the last game again
        for k in range(6):  # if the right password was among the first five tries it cleared the count: lock it again
            if attempt(client(server.url, "127.0.0.1"), USER, f"again-{k}")[0] == 429:
                break
        server.kill()
        server.start()
        return {"answers": answers, "after_restart": attempt(client(server.url, "127.0.0.99"), USER, PASSWORD)}


def timing(folder: Path, rounds: int) -> dict:
    """Seconds per log-in: known username + wrong password, right password, unknown username."""
    times: dict = {"known, wrong password": [], "known, right password": [], "unknown username": []}
    with fresh(folder, "timing") as server:
        for n in range(rounds):
            source = f"127.0.1.{1 + n}"
            for label, user, password in (("known, wrong password", USER, "wrong-password"),
                                          ("unknown username", secrets.token_hex(6), "wrong-password"),
                                          ("known, right password", USER, PASSWORD)):  # clears the count
                api = client(server.url, source)
                start = time.perf_counter()
                status, code = attempt(api, user, password)
                times[label].append(time.perf_counter() - start)
                assert status in (200, 401), (label, status, code)
    return times


def report(sprays: list, guessed: dict, times: dict, rounds: int) -> str:
    load = Path("/proc/loadavg").read_text().split()[0]
    lines = [f"# bench_login ({machine()}, load average {load} at the end)", ""]
    for label, s in sprays:
        answers = ", ".join(f"{n} x {status} {code}" for (status, code), n in sorted(s["answers"].items()))
        lines.append(f"- {label}: floor {s['floor']:.0f} MB, peak {s['peak']:.0f} MB "
                     f"(+{s['peak'] - s['floor']:.0f} MB), after {s['after']:.0f} MB; answers: {answers}")
    for n, burst_answers in enumerate(guessed["answers"], 1):
        answers = ", ".join(f"{k} x {status} {code}" for (status, code), k in sorted(burst_answers.items()))
        got_in = burst_answers.get((200, "ok"), 0)
        checked = got_in + burst_answers.get((401, "bad_login"), 0)
        lines.append(f"- 40 at once for one username (39 wrong, 1 right), burst {n}: {answers}; "
                     f"got in: {got_in}, passwords checked: {checked}")
    lines.append(f"- locked, then SIGKILL + restart, then the right password: "
                 f"{guessed['after_restart'][0]} {guessed['after_restart'][1]}")
    lines.append(f"- timing, median of {rounds} (min-max), ms:")
    for label, values in times.items():
        lines.append(f"  - {label}: {statistics.median(values) * 1000:.0f} "
                     f"({min(values) * 1000:.0f}-{max(values) * 1000:.0f})")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="log-in under parallel attack: memory, lock, timing")
    parser.add_argument("--rounds", type=int, default=20, help="timing samples per kind of log-in")
    parser.add_argument("--bursts", type=int, default=3, help="bursts of 40 log-ins for one username")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sprays = [("60 at once, random usernames, 60 addresses", spray(folder, spread=True)),
                  ("60 at once, random usernames, one address", spray(folder, spread=False))]
        guessed = guess(folder, args.bursts)
        times = timing(folder, args.rounds)
    print(report(sprays, guessed, times, args.rounds))


if __name__ == "__main__":
    sys.exit(main())
