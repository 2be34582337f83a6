"""Which server should `terrabank serve` run on? The project's benchmarks, once per server.

Servers compared (all serving the same app, `bank.cli.serve._app(..., TICKER=True)`):
- dev:     Werkzeug's development server, threaded (socketio.run, allow_unsafe_werkzeug);
- gthread: Gunicorn's threaded worker as bank/web/serving/server.py guards it (deadlines, caps, gzip);
- gevent:  Gunicorn's gevent worker (monkey-patched; simple-websocket on gevent), same gzip, caps
           only as Gunicorn's worker_connections.

Each benchmark is the existing script, unchanged, run in a child process where
harness.Server starts the chosen server instead of `terrabank serve` (and measures the
memory of Gunicorn's master and worker together). Each run measures its own floor, so
the ratios of one run compare; `--repeat` runs every server again in a rotated order to
show how noisy the machine was.

    .venv/bin/python bench/web/serving/bench_servers.py attack                   # slow clients, all servers
    .venv/bin/python bench/web/serving/bench_servers.py latency -- --quick --no-quiet
    .venv/bin/python bench/web/serving/bench_servers.py fanout -- --quick
    .venv/bin/python bench/web/serving/bench_servers.py footprint -- --quick
    .venv/bin/python bench/web/serving/bench_servers.py soak --servers gthread -- --minutes 10
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
from harness import Api, Server, launch, machine  # noqa: E402
from proctree import children, pss_mb  # noqa: E402
import proctree  # noqa: E402
import bench_extra  # noqa: E402

KINDS = ("dev", "gthread", "gevent")
BENCHES = {"latency": "bench_latency", "fanout": "bench_fanout", "footprint": "bench_footprint",
           "soak": "bench_soak"}


# --- serving one kind (the child process harness.Server starts) --------------------------------

def serve(kind: str, config: str, db: str, host: str, port: int) -> None:
    """Serve the bank on `kind`; port 0: any free port, bound here and printed (harness.launch reads it)."""
    from werkzeug.serving import make_server

    from bank.store import gamefile
    from bank.cli.serve import _app, check_database, listen_any
    from bank.web.serving import server as serving

    check_database(db)
    factory = lambda: _app(config, db, TICKER=True)  # noqa: E731
    with gamefile.hold(db, "terrabank serve"):
        if kind == "dev":  # the Werkzeug server socketio.run(app, allow_unsafe_werkzeug=True) runs, bound here
            threading.stack_size(serving.STACK_SIZE)
            server = make_server(host, port, serving.prepare(factory()), threaded=True)
            port, run = server.port, server.serve_forever
        else:  # as `terrabank serve --port 0`: a listener bound here, handed to Gunicorn
            listener = listen_any(host) if port == 0 else None
            port = listener.getsockname()[1] if listener else port
            run = lambda: serving.run(factory, host, port, worker=kind, listener=listener)  # noqa: E731
        print(f"bench_servers {kind} listening on http://{host}:{port}/", flush=True)
        run()


def patch_harness(kind: str, nofile: int = 0) -> None:
    """Make harness.Server start `kind`, and count Gunicorn's worker with its master.

    nofile: the server's soft open-file limit to start with (1024: what a systemd service or a
    login shell gets unless told otherwise; the hard limit is left as it is).
    """

    def limit():
        if nofile:
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))

    def start(self):
        # The --serve entry binds port 0 itself and prints its address; a restart keeps the port.
        self.proc, self.port = launch(
            [sys.executable, str(Path(__file__).resolve()), "--serve", kind, "--config", self.config,
             "--db", str(self.db), "--host", "127.0.0.1", "--port", str(self.port or 0)],
            self.log, timeout=60, preexec_fn=limit)
        return self

    def worker_pid(self) -> int:
        kids = children(self.proc.pid)
        return kids[0] if kids else self.proc.pid

    def rss(self) -> float:
        # Resident memory of Gunicorn's master and worker added up: pages they share since the
        # fork count twice, so this overstates; pss_mb() is the fair split.
        return proctree.rss_mb(self.proc.pid)

    Server.start, Server.pid, Server.rss_mb = start, property(worker_pid), rss




# --- the slow-client attack, with the big screen and a facilitator probing ---------------------

def attack_one(kind: str, seconds: float, half_open: int, slow: int) -> dict:
    from slow_clients import Attack, probe

    teams = ["blue", "yellow", "red", "green"]
    harvest = lambda i: {"type": "harvest", "team": teams[i % 4], "card": "harvester-1",  # noqa: E731
                         "resource": ["water", "flora", "dioxygen", "fauna", "energy"][i % 5]}
    with tempfile.TemporaryDirectory(prefix="terrabank-attack-") as tmp:
        with Server(Path(tmp) / "bank").prepare().start() as server:
            lead = Api(server.url, timeout=10).login()
            lead.command("start", type="start_clock")
            quiet = probe(server.url, 5, facilitator=lead, command=harvest)  # the same probes, no attack
            rss, pss, stop = [], [], threading.Event()

            def sample():
                while not stop.wait(0.5):
                    try:
                        rss.append(server.rss_mb())
                        pss.append(pss_mb(server.proc.pid))
                    except (OSError, RuntimeError, StopIteration):
                        pass

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            attack = Attack("127.0.0.1", server.port, half_open, slow, seconds + 5).start()
            time.sleep(5)  # let the attacker reach its count
            loud = probe(server.url, seconds, facilitator=lead, command=harvest)
            attack.stop()
            stop.set()
            sampler.join()
            return {"quiet": quiet, "attack": loud, "rss max": max(rss, default=0), "pss max": max(pss, default=0), "stats": dict(attack.stats),
                    "most open": attack.most_open}


def summary(kind: str, r: dict) -> str:
    def cell(times, name):
        values = times.get(name, [])
        if not values:
            return "-"
        return f"{statistics.median(values) * 1000:.0f} / {max(values) * 1000:.0f}"

    q, a = r["quiet"]["times"], r["attack"]["times"]
    names = ("display page", "public data", "console page", "command")
    quiet = " | ".join(cell(q, n) for n in names)
    loud = " | ".join(cell(a, n) for n in names)
    failed = len(r["attack"]["failures"])
    return (f"| {kind} | {quiet} | {loud} | {failed} | {r['rss max']:.0f} ({r['pss max']:.0f}) | "
            f"{r['stats'].get('refused 429 (per address)', 0) + r['stats'].get('refused 503 (server full)', 0)} |")


def main() -> None:
    if "--serve" in sys.argv:
        p = argparse.ArgumentParser()
        for name in ("--serve", "--config", "--db", "--host"):
            p.add_argument(name, required=True)
        p.add_argument("--port", type=int, required=True)
        a = p.parse_args()
        serve(a.serve, a.config, a.db, a.host, a.port)
        return
    if len(sys.argv) > 2 and sys.argv[1] == "--one":  # child: one benchmark on one server
        kind, nofile, bench, rest = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
        patch_harness(kind, nofile)
        module = bench_extra.load(BENCHES[bench])  # each bench lives in its own room
        sys.argv = [module.__file__, *rest]
        module.main()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=[*BENCHES, "attack"])
    parser.add_argument("--servers", default=",".join(KINDS), help="comma-separated: dev,gthread,gevent")
    parser.add_argument("--repeat", type=int, default=1, help="run every server this many times, order rotated")
    parser.add_argument("--seconds", type=float, default=20, help="attack: seconds of probing under attack")
    parser.add_argument("--half-open", type=int, default=1100)
    parser.add_argument("--slow", type=int, default=200)
    parser.add_argument("--nofile", type=int, default=1024,
                        help="the server's soft open-file limit at start (default 1024, as under systemd; 0: keep)")
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []  # the benchmark's own options
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    kinds = args.servers.split(",")
    print(f"# bench_servers {args.what} on {machine()}; servers {kinds}, repeat {args.repeat}")
    rows = []
    for round_ in range(args.repeat):
        order = kinds[round_ % len(kinds):] + kinds[:round_ % len(kinds)]
        for kind in order:
            print(f"\n## {args.what} on {kind} (round {round_ + 1})", flush=True)
            if args.what == "attack":
                patch_harness(kind, args.nofile)
                r = attack_one(kind, args.seconds, args.half_open, args.slow)
                rows.append(summary(kind, r))
                print(rows[-1])
                print("   failures under attack:", r["attack"]["failures"][:5] or "none")
                print("   attacker:", r["stats"], "most open at once:", r["most open"], flush=True)
            else:
                subprocess.run([sys.executable, __file__, "--one", kind, str(args.nofile), args.what, *rest], check=False)
    if rows:
        print("\n| server | quiet: display page / public data / console / command, p50 / max ms | "
              "under attack: same | failures | server memory max MB, RSS (PSS) | attacker refused |")
        print("| --- | --- | --- | ---: | ---: | ---: |")
        print("\n".join(rows))


if __name__ == "__main__":
    main()
