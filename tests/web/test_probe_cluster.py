"""PROBE (not committed): Redis and PostgreSQL away together, several cycles, two processes; then a worker kill -9."""
from __future__ import annotations
import os, signal, subprocess, time
import pytest
from pg_game_kit import Game, wait_until
from harness import Api
from test_partitions import Burst, readyz

CYCLES = int(os.environ.get("PROBE_CYCLES", "4"))

def tree(pid):
    kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [pid, *map(int, kids)]

def res(pid):
    out = []
    for p in tree(pid):
        try:
            fds = len(os.listdir(f"/proc/{p}/fd")); th = len(os.listdir(f"/proc/{p}/task"))
            rss = int([l for l in open(f"/proc/{p}/status") if l.startswith("VmRSS")][0].split()[1]) // 1024
            out.append((p, fds, th, rss))
        except FileNotFoundError:
            pass
    return out

def test_probe(postgres_server, redis_server, tmp_path):
    game = Game(tmp_path, postgres_server.url)
    game.env["TERRABANK_QUEUE_URL"] = redis_server.url
    (pa, porta), (pb, portb) = game.serve("a"), game.serve("b")
    a, b = f"http://127.0.0.1:{porta}", f"http://127.0.0.1:{portb}"
    bursts = [Burst(Api(base, timeout=30).login(), n) for base, n in ((a, "a"), (b, "b"))]
    try:
        assert wait_until(lambda: all(len(x.acknowledged) >= 5 for x in bursts), 60)
        print("start", res(pa.pid), res(pb.pid))
        for cycle in range(CYCLES):
            postgres_server._run("pg_ctl", "-D", str(postgres_server.data), "-m", "immediate", "-w", "stop")
            redis_server._end()
            time.sleep(6)
            if cycle % 2:
                postgres_server._start(postgres_server.port); time.sleep(3); redis_server._start(redis_server.port)
            else:
                redis_server._start(redis_server.port); time.sleep(3); postgres_server._start(postgres_server.port)
            t0 = time.monotonic()
            ok = wait_until(lambda: all(readyz(x)[0] == 200 and "degraded" not in readyz(x)[1] for x in (a, b)), 60, step=0.5)
            counts = [len(x.acknowledged) for x in bursts]
            books = wait_until(lambda: all(len(x.acknowledged) > c + 3 for x, c in zip(bursts, counts)), 30)
            print(f"cycle {cycle}: back {time.monotonic()-t0:.1f}s ok={ok} books={books}", readyz(a), readyz(b), res(pa.pid), res(pb.pid))
        # worker kill -9 mid-booking on a
        worker = tree(pa.pid)[1:]
        print("workers of a", worker)
        os.kill(worker[0], signal.SIGKILL)
        t0 = time.monotonic()
        counts = [len(x.acknowledged) for x in bursts]
        books = wait_until(lambda: all(len(x.acknowledged) > c + 3 for x, c in zip(bursts, counts)), 60)
        print(f"after worker kill: books={books} in {time.monotonic()-t0:.1f}s", readyz(a), readyz(b), res(pa.pid))
        time.sleep(3)
    finally:
        for x in bursts: x.stop()
        booked = game.rows()
        acknowledged = [k for x in bursts for k in x.acknowledged]
        print("acknowledged", len(acknowledged), "booked", len(booked))
        print("lost/doubled", [k for k in acknowledged if booked.count(k) != 1][:10], len(booked) - len(set(booked)))
        codes = {}
        for x in bursts:
            for _, _, st, body in x.replies:
                c = body.get("error", {}).get("code") if isinstance(body, dict) else body
                codes[(st, c if st != 200 else None)] = codes.get((st, c if st != 200 else None), 0) + 1
        print("replies", codes)
        game.stop()
        for n in ("a", "b"):
            text = (tmp_path / f"{n}.log").read_text(errors="replace")
            print(f"---- {n}.log ({text.count('Traceback')} tracebacks)")
            print("\n".join(text.splitlines()[-60:]))
