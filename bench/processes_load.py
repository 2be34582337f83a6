"""The load of bench_processes.py: phones joining step by step, then the soak's commands.

`fill`: the room grows by `step` clients at a time; after each step a harvest is sent
(round-robin over the processes) and must be answered and reach every connected client
within PROBE_SECONDS. The first step that fails says how the servers fail beyond what
they hold (a refused connection, a command with no answer, a phone left without the
update). `soak`: facilitators send bench_soak.pick_command's mix at its pace, command k
to process k % N, while every booked command is timed from send to the last phone, on
its own process and on the others.
"""

from __future__ import annotations

import http.client
import itertools
import os
import random
import threading
import time
from collections import Counter

from mix import pick_command
from harness import Api
import bench_extra
# The /proc readers live in proctree (bench_saturation uses them without this module's clients).
from proctree import cpu_seconds, machine_ticks  # noqa: F401

PROBE_SECONDS = 15.0
RIPE_SECONDS = 10.0  # a booked command is measured this long after its reply, else counted late
CLOCK_FIELDS = ("cooldowns", "last_harvest", "affordable")  # a team's view computed from the time of asking


def refusal(url: str, source: str | None) -> str:
    """What the server answers a plain request from `source` now: python-socketio only says "Connection error"."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=PROBE_SECONDS,
                                      source_address=(source, 0) if source else None)
    try:
        conn.request("GET", "/socket.io/?EIO=4&transport=polling")
        response = conn.getresponse()
        return f"{response.status} {response.read().decode('utf-8', 'replace').strip().splitlines()[-1][:120]}"
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()


def probe(room: Room, apis: list, n: int, teams: list) -> str | None:
    """Book a harvest on process n % N; None if it was answered and reached every client, else what failed."""
    api = apis[n % len(apis)]
    command = {"type": "harvest", "team": teams[n % len(teams)], "card": "harvester-1", "resource": "water"}
    try:
        status, body = api.command(f"probe-{n}", **command)
    except (OSError, http.client.HTTPException) as exc:
        return (f"with {room.joined} pages a command to process {n % len(apis)} got no answer within "
                f"{PROBE_SECONDS:.0f} s ({type(exc).__name__})")
    if status != 200:
        return f"with {room.joined} pages a harvest was answered {status}: {body}"
    if room.wait_for(body["seq"], PROBE_SECONDS) is None:
        lagging = sum(len(f.lagging(body["seq"])) for f in room.fleets)
        return f"with {room.joined} pages, {lagging} did not get a booked harvest within {PROBE_SECONDS:.0f} s"
    return None


def fill(room: Room, urls: list, target: int, step: int, teams: list, log) -> dict:
    """Grow the room towards `target` pages, checking each step. {"held", "failure": None or how the next
    step failed, "recovered": after a failed step, whether its pages leaving made the servers work again}."""
    apis = [Api(url, timeout=PROBE_SECONDS).login() for url in urls]
    held, n, started = 0, 0, time.monotonic()
    while room.joined < target:
        size = min(step, target - room.joined)
        refused = room.grow(size)
        n += 1
        if refused:
            fleet = next(f for f in room.fleets if f.refused)
            failure = (f"{len(refused)} of the next {size} connections failed "
                       f"({Counter(refused).most_common(1)[0][0][:100]}); a request from the same address "
                       f"is answered: {refusal(fleet.url, fleet.refused[-1][0].source)}")
        else:
            failure = probe(room, apis, n, teams)
        if failure is not None:
            print(f"  {failure}; the last {size} pages leave", file=log, flush=True)
            room.drop_last_step()
            time.sleep(2)
            for api in apis:
                api.close()  # a connection whose request timed out may still get that late answer
            again = probe(room, apis, n + 1, teams)
            return {"held": held, "failure": failure, "recovered": again is None, "after": again}
        held = room.connected()
        print(f"  {held} pages connected, probe {n} delivered ({time.monotonic() - started:.0f} s)",
              file=log, flush=True)
    return {"held": held, "failure": None, "recovered": True, "after": None}


class Facilitators:
    """`count` consoles, each sending a command every pace/2..pace s (bench_soak's pace), to the
    processes in turn (one counter for all: command k goes to process k % N)."""

    def __init__(self, urls: list, teams: list, count: int = 3, pace: float = 1.0):
        self.urls, self.teams, self.pace = urls, teams, pace
        self.turn, self.turn_lock = itertools.count(), threading.Lock()
        self.halt = threading.Event()
        self.records: list = []  # (process, kind, status, sent, acked, seq or None, expected)
        self.failures: list = []  # commands that got no answer: (process, kind, why)
        self.threads = [threading.Thread(target=self._run, args=(i,), name=f"facilitator-{i}", daemon=True)
                        for i in range(count)]
        self.apis = [[Api(url).login() for url in urls] for _ in range(count)]

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def stop(self) -> None:
        self.halt.set()
        for t in self.threads:
            t.join(60)

    def _run(self, i: int) -> None:
        rng = random.Random(i)
        k = 0
        while not self.halt.is_set():
            k += 1
            with self.turn_lock:
                p = next(self.turn) % len(self.urls)
            kind, command, allowed = pick_command(rng, self.teams)
            sent = time.monotonic()
            try:
                status, body = self.apis[i][p].command(f"fac{i}-{k}", **command)
            except Exception as exc:  # noqa: BLE001 - no answer (or none readable): counted, the console goes on
                self.failures.append((p, kind, f"{type(exc).__name__}: {exc}"))
                continue
            acked = time.monotonic()
            booked = status == 200 and isinstance(body, dict) and not body.get("duplicate")
            self.records.append((p, kind, status, sent, acked, body["seq"] if booked else None, status in allowed))
            self.halt.wait(rng.uniform(self.pace / 2, self.pace))


def delivery(room: Room, process: int, seq: int, sent: float) -> tuple | None:
    """(ms send -> last client of the command's process, ms send -> last client of the others), or None
    when some client does not have it yet. With one process the second is None. A page the server
    dropped is counted once, as a disconnect, not again for every command it then misses."""
    own, others = [], []
    for p, fleet in enumerate(room.fleets):
        for client in fleet.clients:
            if client.disconnects:
                continue
            at = client.got_at(seq)
            if at is None:
                return None
            (own if p == process else others).append(at)
    ms = lambda times: (max(times) - sent) * 1000 if times else None  # noqa: E731
    return ms(own), ms(others)


def same_game(apis: list) -> tuple[list, bool]:
    """(each process's last entry, whether they all show the same game): the same last entry and the
    same teams on /api/state (folded from what the others booked), leaving out what moves with the clock."""
    final, teams = [], []
    for api in apis:
        status, state = api.request("GET", "/api/state")
        final.append(state.get("seq") if status == 200 else None)
        teams.append({team: {k: v for k, v in view.items() if k not in CLOCK_FIELDS}
                      for team, view in state["teams"].items()} if status == 200 else None)
    return final, None not in final and len(set(final)) == 1 and all(t == teams[0] for t in teams)


def soak(room: Room, subject, urls: list, teams: list, seconds: float, log, floor=None, others=()) -> dict:
    """The soak's mix for `seconds`; latencies, deliveries, errors, memory and CPU of the servers."""
    workers = Facilitators(urls, teams)
    pages = room.connected()
    for fleet in room.fleets:
        fleet.lags.clear()
    client_log = bench_extra.load("processes_fleet").CLIENT_LOG
    client_log.seen.clear()
    pids = subject.pids()
    cpu_before, wall_before = cpu_seconds(pids), time.monotonic()
    others_before, self_before = cpu_seconds(others), sum(os.times()[:2])
    machine_before = machine_ticks()
    samples, measured, late, pending, seen = [], [], 0, [], 0
    if floor is not None:
        floor.start()
    workers.start()
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end and subject.alive():
            workers.halt.wait(min(5.0, max(0.0, end - time.monotonic())))
            samples.append(subject.memory())
            fresh = workers.records[seen:]  # the workers append meanwhile: take exactly these
            seen += len(fresh)
            pending += [(p, seq, sent, acked) for p, _, _, sent, acked, seq, _ in fresh if seq is not None]
            now = time.monotonic()
            ripe = [a for a in pending if now - a[3] > RIPE_SECONDS]
            pending = [a for a in pending if now - a[3] <= RIPE_SECONDS]
            for p, seq, sent, _ in ripe:
                got = delivery(room, p, seq, sent)
                if got is None:
                    late += 1
                else:
                    measured.append(got)
            if ripe:
                oldest = min([a[1] for a in pending] + [max(a[1] for a in ripe)])
                for fleet in room.fleets:
                    fleet.forget_before(oldest - 5)
            print(f"  {len(workers.records)} commands, {len(measured)} delivered, {late} late, "
                  f"{room.connected()} connected, servers RSS {samples[-1]['rss']:.0f} MB", file=log, flush=True)
    finally:
        workers.stop()
        floor_result = floor.stop() if floor is not None else None
    cpu = cpu_seconds(pids) - cpu_before
    cpu_others, cpu_self = cpu_seconds(list(others)) - others_before, sum(os.times()[:2]) - self_before
    busy, ticks = (after - before for after, before in zip(machine_ticks(), machine_before))
    machine_busy = busy / max(1, ticks) * os.cpu_count()  # CPUs busy on average, this run's or not
    wall = time.monotonic() - wall_before
    time.sleep(RIPE_SECONDS)  # the last commands reach every client, or are late
    fresh = workers.records[seen:]
    pending += [(p, seq, sent, acked) for p, _, _, sent, acked, seq, _ in fresh if seq is not None]
    for p, seq, sent, _ in pending:
        got = delivery(room, p, seq, sent)
        late += got is None
        if got is not None:
            measured.append(got)
    final, agree = same_game(workers.apis[0])
    stale = sum(1 for f in room.fleets for c in f.lagging(max(s or 0 for s in final)) if not c.disconnects)
    return {"records": workers.records, "failures": workers.failures, "measured": measured, "late": late,
            "samples": samples, "cpu": cpu, "cpu_others": cpu_others, "cpu_self": cpu_self, "wall": wall,
            "machine_busy": machine_busy,
            "final": final, "agree": agree, "stale": stale, "pages": pages,
            "lag": max((x for f in room.fleets for x in f.lags), default=0.0),
            "disconnects": sum(f.disconnects() for f in room.fleets),
            "disconnects_each": [f.disconnects() for f in room.fleets],
            "regressions": sum(f.regressions() for f in room.fleets),
            "client_log": dict(client_log.seen),
            "reasons": sum((Counter(f.disconnect_reasons()) for f in room.fleets), Counter()),
            "connected": room.connected(), "alive": subject.alive(), "floor": floor_result}
