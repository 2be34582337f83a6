"""Soak: 200 live pages and a steady stream of commands for --minutes; errors and memory.

A real `terrabank serve` (bench/harness.Server), 200 Socket.IO clients
(bench/clients.py), and 3 facilitators (harness.Api, one thread each) sending a
command every 0.5-1 s: harvests, builds, free trades, fights, and commands the
bank must refuse (unknown card, unknown building). Counted as errors: an HTTP
status the command should not get, a client disconnected, a client whose last
seq differs from the bank's at the end. Every 10 s: the server's RSS, PSS and thread count, summed over
Gunicorn's master and worker (bench/proctree.py);
the memory slope (MB/hour, least squares) over the whole run and its second half.
Fan-out (reply -> last client) is also measured for every booked command, under load.

    .venv/bin/python bench/system/bench_soak.py                 # 30 minutes
    .venv/bin/python bench/system/bench_soak.py --minutes 2     # a quick check (also: --quick)
    .venv/bin/python bench/system/bench_soak.py --minutes 10 --probe /tmp/probe   # figures from inside the worker
                                                          # (bench/soak_probe.py says how to read them)
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared modules
import bench_extra
import soak_probe
from harness import Api, Server, machine
from figures import percentile
from mix import pick_command
from proctree import cpu_seconds, own_mb, processes, pss_mb, rss_mb, threads

class Facilitator(threading.Thread):
    """One console: a command every 0.5-1 s until told to stop; tallies statuses."""

    def __init__(self, url: str, name: str, teams: list, stop: threading.Event, seed: int, pace: float = 1.0):
        super().__init__(name=name, daemon=True)
        self.pace = pace
        self.api, self.teams, self.stop_event = Api(url).login(), teams, stop
        self.rng = random.Random(seed)
        self.statuses: Counter = Counter()
        self.unexpected: list = []
        self.acks: list = []  # (seq, monotonic reply time) of booked commands
        self.crash: BaseException | None = None

    def run(self) -> None:
        i = 0
        try:
            while not self.stop_event.is_set():
                i += 1
                kind, command, allowed = pick_command(self.rng, self.teams)
                status, body = self.api.command(f"{self.name}-{i}", **command)
                acked = time.monotonic()
                self.statuses[(kind, status)] += 1
                if status not in allowed:
                    self.unexpected.append((kind, status, str(body)[:200]))
                elif status == 200 and not body.get("duplicate"):
                    self.acks.append((body["seq"], acked))
                self.stop_event.wait(self.rng.uniform(self.pace / 2, self.pace))
        except BaseException as exc:  # noqa: BLE001  (reported, not swallowed)
            self.crash = exc


def slope_mb_per_hour(samples: list) -> float:
    """Least-squares slope of (seconds, MB) samples, in MB per hour."""
    if len(samples) < 3:
        return float("nan")
    xs, ys = [s[0] for s in samples], [s[1] for s in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den * 3600 if den else float("nan")


def slope_error_mb_per_hour(samples: list) -> float:
    """Standard error of the least-squares slope, MB per hour (samples taken as independent, which
    10-second memory samples are not quite: read it as a lower bound of the slope's uncertainty)."""
    if len(samples) < 4:
        return float("nan")
    xs, ys = [s[0] for s in samples], [s[1] for s in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den
    residuals = sum((y - my - b * (x - mx)) ** 2 for x, y in zip(xs, ys))
    return (residuals / (len(xs) - 2) / den) ** 0.5 * 3600


def slope_text(samples: list) -> str:
    """'+a.bc ± d.ef' MB/hour."""
    return f"{slope_mb_per_hour(samples):+.2f} ± {slope_error_mb_per_hour(samples):.2f}"


def fanout_of(fleet, acks: list) -> list:
    """ms from reply to the last client for each ack all clients have; the rest stay pending."""
    done = []
    for seq, acked in acks:
        # The pages still connected: one the server dropped never gets seq, and is counted as an error already.
        times = [c.got_at(seq) for c in fleet.clients if c.sio and c.sio.connected]
        done.append(None if None in times else (max(times) - acked) * 1000)
    return done


def run(minutes: float, clients: int, facilitators: int, log, pace: float = 1.0, probe: str | None = None,
        deflate: bool = False) -> dict:
    fleets = bench_extra.load("clients")  # before the server starts: a missing extra is said at once
    if probe:  # the server inherits this process's environment (harness.spawn)
        os.environ.update(soak_probe.prepare(Path(probe)))
    with tempfile.TemporaryDirectory(prefix="terrabank-soak-") as tmp:
        with Server(Path(tmp) / "bank").prepare().start() as server:
            lead = Api(server.url).login()
            lead.command("start", type="start_clock")
            cookie, tokens = fleets.lead_cookie_and_tokens(lead)
            teams = list(tokens)
            idle_rss, idle_pss = rss_mb(server.pid), pss_mb(server.pid)
            cpu_before = cpu_seconds([server.pid])
            fleet = fleets.Fleet(server.url, tokens, cookie, n=clients, deflate=deflate).start()
            stop = threading.Event()
            workers = [Facilitator(server.url, f"fac{i}", teams, stop, seed=i, pace=pace) for i in range(facilitators)]
            samples, fanout, pending = [], [], []
            started = time.monotonic()
            try:
                for w in workers:
                    w.start()
                end = started + minutes * 60
                while time.monotonic() < end and server.proc.poll() is None:
                    stop.wait(min(10, max(0.0, end - time.monotonic())))
                    now = time.monotonic()
                    samples.append((now - started, rss_mb(server.pid), threads(server.pid), pss_mb(server.pid),
                                    own_mb(server.pid)))
                    # Fan-out under load for acks at least 2 s old; then forget what is measured.
                    for w in workers:
                        n = len(w.acks)  # the worker may append meanwhile: take exactly n
                        pending += w.acks[:n]
                        del w.acks[:n]
                    ripe = [a for a in pending if now - a[1] > 2]
                    pending = [a for a in pending if now - a[1] <= 2]
                    results = fanout_of(fleet, ripe)
                    fanout += [r for r in results if r is not None]
                    late = sum(1 for r in results if r is None)
                    if ripe:
                        fleet.forget_before(max(s for s, _ in ripe) - 5)
                    print(f"{samples[-1][0]:7.0f} s  RSS {samples[-1][1]:6.1f} MB  PSS {samples[-1][3]:6.1f} MB  "
                          f"own {samples[-1][4]:6.1f} MB  threads {samples[-1][2]:4d}  "
                          f"commands {sum(sum(w.statuses.values()) for w in workers):6d}  "
                          f"unexpected {sum(len(w.unexpected) for w in workers)}  "
                          f"disconnects {fleet.disconnects()}  out of order {fleet.regressions()}  late {late}",
                          file=log, flush=True)
                    fanout += [float("inf")] * late
            finally:
                stop.set()
                for w in workers:
                    w.join(15)
            time.sleep(3)  # let the last updates arrive
            by_process = processes(server.pid)
            cpu = cpu_seconds([server.pid]) - cpu_before  # the server's CPU for the pages and the commands
            _, public = lead.request("GET", "/api/public")
            bank_seq = public["seq"]
            lagging = fleet.lagging(bank_seq)
            disconnects = fleet.disconnects()
            regressions = fleet.regressions()
            reasons = fleet.disconnect_reasons()
            connected = fleet.connected()
            fleet.stop()
            alive = server.proc.poll() is None
    statuses = Counter()
    for w in workers:
        statuses.update(w.statuses)
    return {"minutes": minutes, "clients": clients, "idle_rss": idle_rss, "idle_pss": idle_pss,
            "by_process": by_process, "samples": samples, "statuses": statuses,
            "unexpected": [u for w in workers for u in w.unexpected], "crashes": [repr(w.crash) for w in workers if w.crash],
            "lagging": [(c.kind, c.team, c.last_seq()) for c in lagging], "bank_seq": bank_seq,
            "facilitators": facilitators, "disconnects": disconnects, "regressions": regressions, "pace": pace, "reasons": reasons, "connected": connected, "alive": alive, "fanout": fanout, "cpu": cpu,
            "deflate": deflate}


def report(r: dict, args: list) -> str:
    s = r["samples"]
    half = [x for x in s if x[0] >= s[-1][0] / 2] if s else []
    rss = [x[1] for x in s]
    threads = [x[2] for x in s]
    total = sum(r["statuses"].values())
    kinds = sorted({k for k, _ in r["statuses"]})
    mix = ", ".join(f"{k} " + "/".join(f"{st}:{r['statuses'][(k, st)]}" for st in sorted({st for kk, st in r["statuses"] if kk == k}))
                    for k in kinds)
    fan = r["fanout"]
    errors = (len(r["unexpected"]) + r["disconnects"] + len(r["lagging"]) + r["regressions"] + len(r["crashes"])
              + (0 if r["alive"] else 1))
    lines = [f"Soak: {r['minutes']:g} min, {r['clients']} clients"
             f"{' offering permessage-deflate' if r['deflate'] else ''}, {total} commands from {r['facilitators']} facilitators "
             f"({total / (r['minutes'] * 60):.1f}/s), bank at seq {r['bank_seq']} at the end.", "",
             "| figure | value | target |", "| --- | --- | --- |",
             "| errors (unexpected status + disconnects + stale clients at the end + messages out of order + crashes) "
             f"| {errors} ({len(r['unexpected'])} + {r['disconnects']} + {len(r['lagging'])} + {r['regressions']} + "
             f"{len(r['crashes'])}) | 0 |",
             f"| clients connected at the end | {r['connected']} / {r['clients']} | all |",
             f"| whole tree (master + worker) PSS idle / first sample / last / max (MB) | {r['idle_pss']:.1f} / "
             f"{s[0][3]:.1f} / {s[-1][3]:.1f} / {max(x[3] for x in s):.1f} | <= 100 with {r['clients']} pages (P3) |",
             f"| whole tree RSS idle / first sample / last / max (MB; shared pages counted in each process) | "
             f"{r['idle_rss']:.1f} / {rss[0]:.1f} / {rss[-1]:.1f} / {max(rss):.1f} | <= 100 (P3) |",
             f"| whole tree's own memory (worker RSS + master's private pages: as a Pi sees it) first / last / max "
             f"(MB) | {s[0][4]:.1f} / {s[-1][4]:.1f} / {max(x[4] for x in s):.1f} | <= 100 (P3) |",
             f"| own memory slope ± standard error, whole run / second half (MB/hour) | "
             f"{slope_text([(x[0], x[4]) for x in s])} / {slope_text([(x[0], x[4]) for x in half])} | < 1 (P3) |",
             f"| PSS slope ± standard error, whole run / second half (MB/hour) | "
             f"{slope_text([(x[0], x[3]) for x in s])} / {slope_text([(x[0], x[3]) for x in half])} | < 1 (P3) |",
             f"| RSS slope ± standard error, whole run / second half (MB/hour) | "
             f"{slope_text([(x[0], x[1]) for x in s])} / {slope_text([(x[0], x[1]) for x in half])} | < 1 (P3) |",
             "| per process at the end, RSS / PSS (MB) | " + "; ".join(
                 f"{label} {rss_:.1f} / {pss_:.1f}" for _, label, rss_, pss_ in r["by_process"]) + " | |",
             f"| server CPU (master + worker) per command, pages included (ms) | {r['cpu'] * 1000 / max(1, total):.2f} "
             "| (watch) |",
             f"| server threads first / last / max | {threads[0]} / {threads[-1]} / {max(threads)} | steady |",
             f"| fan-out reply -> last client p50 / p99 / max (ms), {len(fan)} commands | "
             f"{statistics.median(fan):.0f} / {percentile(fan, 99):.0f} / {max(fan):.0f} | p99 < 250 |", "",
             f"Statuses by command: {mix}."]
    if r["unexpected"]:
        lines.append(f"Unexpected (first 5): {r['unexpected'][:5]}")
    if r["reasons"]:
        lines.append(f"Why clients were disconnected: {r['reasons']}")
    if r["lagging"]:
        lines.append(f"Stale clients (first 5): {r['lagging'][:5]}")
    if r["crashes"]:
        lines.append(f"Facilitator threads that crashed: {r['crashes']}")
    lines += ["", f"Command: `{' '.join(['.venv/bin/python', 'bench/system/bench_soak.py', *args])}`", f"Machine: {machine()}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="soak: 200 clients, a steady command stream, errors and memory")
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--quick", action="store_true", help="2 minutes")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--facilitators", type=int, default=3)
    parser.add_argument("--pace", type=float, default=1.0,
                        help="each facilitator waits between pace/2 and pace seconds between commands (0: flat out)")
    parser.add_argument("--deflate", action="store_true", help="the pages offer permessage-deflate, as browsers do")
    parser.add_argument("--probe", metavar="DIR",
                        help="sample the worker from inside every SOAK_PROBE_EVERY (120) s into DIR (bench/soak_probe.py)")
    args = parser.parse_args()
    minutes = 2 if args.quick else args.minutes
    result = run(minutes, args.clients, args.facilitators, sys.stderr, args.pace, args.probe, args.deflate)
    print(report(result, sys.argv[1:]))


if __name__ == "__main__":
    main()
