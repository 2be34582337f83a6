"""Fault: SIGKILL of `terrabank serve` in the middle of a burst of commands, again and again.

Several facilitator clients (each its own keep-alive HTTP connection and session) send
a stream of harvests, each with a new Idempotency-Key. At a random moment the server
is killed with SIGKILL (no clean shutdown: the power went) and started again on the
same database and port. A client whose request got no reply does what the pages do
(static/js/api.js TB.api): it sends the SAME body with the SAME key again until it
gets an answer. At the end every acknowledged command must be in the journal exactly
once, every retry must have been answered with the first booking, and the replayed
journal must equal the live state (Bank.verify()).

    .venv/bin/python bench/system/fault_kill.py            # 50 kills, 4 clients
    .venv/bin/python bench/system/fault_kill.py --quick    # 5 kills

Prints a Markdown table, the command that reproduces it and the machine.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared modules
from harness import CONFIG, Api, Server, machine

NO_REPLY = (OSError, http.client.HTTPException)  # refused, reset, closed without an answer
RETRY_STATUSES = (502, 503, 504)  # the pages retry these too (api.js)
CARDS = ("harvester-1", "harvester-2")
RESOURCES = ("water", "flora", "dioxygen", "fauna", "energy")


@dataclass
class Tally:
    """What the clients saw; filled by several threads, each writing only its own keys."""

    acked: dict = field(default_factory=dict)  # key -> the 200 reply of its final attempt
    first_seq: dict = field(default_factory=dict)  # key -> seq of the first 200 reply
    retried: set = field(default_factory=set)  # keys sent more than once
    refused: dict = field(default_factory=dict)  # key -> (status, body): a reply that is not 200
    lock: threading.Lock = field(default_factory=threading.Lock)


def harvest(teams: list, n: int) -> dict:
    """The n-th command of a client: harvests rotate over teams, cards and resources."""
    return {"type": "harvest", "team": teams[n % len(teams)], "card": CARDS[(n // len(teams)) % 2],
            "resource": RESOURCES[n % len(RESOURCES)]}


def send_until_answered(api: Api, key: str, body: dict, tally: Tally, stop_at: float):
    """Send one command; on no reply, retry the same key and body until the bank answers."""
    attempts = 0
    while True:
        attempts += 1
        try:
            status, reply = api.command(key, **body)
        except NO_REPLY:
            status, reply = None, None
            api.close()
        if status is not None and status not in RETRY_STATUSES:
            break
        if time.monotonic() > stop_at:
            raise TimeoutError(f"no answer for {key} after {attempts} attempts")
        time.sleep(0.05)
    with tally.lock:
        if attempts > 1:
            tally.retried.add(key)
        if status == 200:
            tally.acked[key] = reply
            tally.first_seq.setdefault(key, reply["seq"])
        else:
            tally.refused[key] = (status, reply)


def client(url: str, name: str, teams: list, tally: Tally, stop: threading.Event,
           ready: threading.Barrier, give_up_after: float) -> None:
    """One facilitator's stream of commands until `stop` is set (the current one is finished)."""
    api = Api(url, timeout=30.0).login()  # four password checks at once on a busy machine
    api.close()
    api.timeout = 10.0  # the commands' connections: a killed server must not hold a client long
    ready.wait()  # the kills start once every client is logged in
    try:
        for n in itertools.count():
            if stop.is_set():
                return
            send_until_answered(api, f"{name}-{n}", harvest(teams, n), tally,
                                time.monotonic() + give_up_after)
    finally:
        api.close()


def run(folder: Path, kills: int, clients: int = 4, seed: int | None = None,
        config: str = CONFIG, log=print) -> dict:
    """Kill the server `kills` times under load; return the figures and the problems found."""
    from bank.game.config import load_config
    from bank.services.bank import Bank

    rng = random.Random(seed)
    server = Server(folder, config=config).prepare().start()
    tally, stop, errors = Tally(), threading.Event(), []
    ready = threading.Barrier(clients + 1, timeout=120)
    teams = list(load_config(config).teams)
    try:
        Api(server.url).login().command("fault-start-clock", type="start_clock")

        def guarded(name):
            try:
                client(server.url, name, teams, tally, stop, ready, give_up_after=60.0)
            except Exception as exc:  # reported below: a client that dies is a finding
                errors.append(f"client {name}: {exc!r}")
                ready.abort()

        threads = [threading.Thread(target=guarded, args=(f"c{i}",)) for i in range(clients)]
        for t in threads:
            t.start()
        try:
            ready.wait()
        except threading.BrokenBarrierError:
            for t in threads:
                t.join(timeout=30)
            raise RuntimeError(f"a client could not start: {errors or 'none said why (120 s)'}") from None
        for k in range(1, kills + 1):
            time.sleep(rng.uniform(0.1, 0.8))  # a burst is on its way
            server.kill()
            time.sleep(rng.uniform(0.0, 0.3))  # the clients meet a dead port meanwhile
            server.start()
            if k % 10 == 0:
                log(f"  {k} kills, {len(tally.acked)} acknowledged so far")
        time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(timeout=90)
        if any(t.is_alive() for t in threads):
            errors.append("a client was still waiting for an answer 90 s after the last kill")
    finally:
        stop.set()
        server.kill()  # the last one too: the check reads what a crash left
    with Bank.open(server.db, load_config(config)) as bank:
        return {**check(bank, tally), "kills": kills, "errors": errors}


def check(bank, tally: Tally) -> dict:
    """Compare what the clients were told with what the journal holds."""
    lost = [k for k, r in tally.acked.items() if (row := bank._journal.find(k)) is None
            or row["seq"] != r["seq"] or row["events"] != r["events"]]
    ours = [row for row in bank.journal_rows() if row["command_id"].startswith("c")]
    ids = [row["command_id"] for row in ours]
    # Booked but never acknowledged, or booked under one key twice: a retry applied again.
    twice = (len(ids) - len(set(ids))) + len(set(ids) - set(tally.acked))
    moved_seq = [k for k in tally.acked if tally.acked[k]["seq"] != tally.first_seq[k]]
    return {
        "acknowledged": len(tally.acked),
        "retried": len(tally.retried),
        "duplicates": sum(1 for k in tally.retried if tally.acked.get(k, {}).get("duplicate")),
        "lost": len(lost) + len(moved_seq),
        "twice": twice,
        "refused": dict(list(tally.refused.items())[:5]),
        "verify": bank.verify(),
        "rows": len(ours),
    }


def table(r: dict) -> str:
    return "\n".join([
        "| kills | commands acknowledged | retried after no reply | answered `duplicate: true` | lost | applied twice | verify() |",
        "|---:|---:|---:|---:|---:|---:|---|",
        f"| {r['kills']} | {r['acknowledged']} | {r['retried']} | {r['duplicates']} | {r['lost']} "
        f"| {r['twice']} | {'[] (sound)' if not r['verify'] else len(r['verify'])} |",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="5 kills")
    args = parser.parse_args()
    kills = 5 if args.quick else args.kills
    with tempfile.TemporaryDirectory(prefix="fault-kill-") as tmp:
        started = time.monotonic()
        r = run(Path(tmp), kills, args.clients, args.seed)
        took = time.monotonic() - started
    print(table(r))
    print()
    print(f"{took:.0f} s in all. Command: .venv/bin/python bench/system/fault_kill.py "
          f"{'--quick' if args.quick else f'--kills {kills}'} --clients {args.clients}"
          f"{'' if args.seed is None else f' --seed {args.seed}'}")
    print(f"Machine: {machine()}")
    for problem in r["verify"] + r["errors"]:
        print(f"PROBLEM: {problem}")
    if r["refused"]:
        print(f"Refusals (not expected for harvests): {r['refused']}")
    ok = not (r["lost"] or r["twice"] or r["verify"] or r["errors"] or r["refused"])
    print("OK: nothing acknowledged was lost, nothing was applied twice." if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
