"""Recovery time: reopening a game whose journal holds 5,000 to 50,000 commands.

The games are built through Bank.execute directly with a realistic mix (harvests,
builds and their reversals, trades, track steps, fights, awards and penalties,
inventories, exchanges, jokers, refills, facilitators' events), at 0.05 s of game
time per command. One game is played to the largest size and copied at each
smaller one. To build fast, the builder turns SQLite's fsync off on its own
connection (synchronous=OFF): the file's content is the same, and the servers and
Bank.open measured below use the bank's normal settings.

Measured, interleaved (every round opens every game once, in a rotating order):
- serve: from launching `terrabank serve` (a new process) to the first 200 reply
  of GET /api/public, polled every 5 ms;
- Bank.open alone, in this process (snapshot + journal tail), then close.
The floor is the same on a freshly created game (setup + start_clock only), so
the ratio shows what the journal's length adds. Python's own start and imports
are timed apart (`python -c "import bank.web"`).

    .venv/bin/python bench/store/bench_recovery.py            # 5k, 20k, 50k (+ 50k with the longest tail), 7 rounds
    .venv/bin/python bench/store/bench_recovery.py --quick    # 1k, 5k, 3 rounds
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared modules
from harness import CONFIG, TERRABANK, end, spawn

from bank.game.config import load_config
from bank.errors import BankError
from bank.store.journal import Journal
from bank.services.bank import SNAPSHOT_EVERY, Bank
from bank.store.accounts.access import Access

TEAMS = ["blue", "yellow", "red", "green"]
PLAIN = ["water", "flora", "dioxygen", "fauna", "energy"]
DT = 0.05  # game seconds between two commands
# Every module `terrabank serve` loads before it answers (the web layer's routes included).
SERVE_IMPORTS = "python -c 'import bank.cli.main, bank.cli.serve, bank.web, bank.web.field.api, bank.web.push.live, bank.web.field.pages'"


class Player:
    """Plays a long game on a Bank with a seeded mix of commands; refused commands are skipped."""

    def __init__(self, bank: Bank, seed: int = 7):
        self.bank, self.rng, self.ids = bank, random.Random(seed), itertools.count(1)
        self.now = time.time()
        self.builds: list[int] = []   # seqs of builds not reversed yet
        self.open_events: list[str] = []
        self.refused = 0

    def do(self, command: dict) -> int | None:
        self.now += DT
        try:
            return self.bank.execute({"id": f"r{next(self.ids)}", "actor": "bench", **command}, self.now).seq
        except BankError:
            self.refused += 1
            return None

    def step(self) -> None:
        """One command of the mix."""
        r, rng = self.rng.random(), self.rng
        team, other = rng.sample(TEAMS, 2)
        if r < 0.45:
            self.do({"type": "harvest", "team": team, "card": rng.choice(["harvester-1", "harvester-2"]),
                     "resource": rng.choice(PLAIN)})
        elif r < 0.55:
            give, take = rng.choice(PLAIN), rng.choice(PLAIN)
            self.do({"type": "trade", "merchant_team": team, "visited_team": other, "kind": "free",
                     "give": {give: 1}, "take": {take: 1}})
        elif r < 0.60:
            counted = {res: rng.randint(5, 30) for res in rng.sample(PLAIN, 3)}
            self.do({"type": "inventory", "team": team, "counted": counted, "reason": "count at the bank"})
        elif r < 0.65:
            building = rng.choice(["power_plant_1", "purification_centre", "greenhouse", "reserve", "power_plant_2"])
            seq = self.do({"type": "build", "team": team, "building": building})
            if seq:
                self.builds.append(seq)
        elif r < 0.67 and self.builds:
            self.do({"type": "reverse", "seq": self.builds.pop(), "reason": "built by mistake"})
        elif r < 0.70:
            # One track is kept below its top so the game is never terraformed (it would end, R35).
            track = rng.choice(["phytosphere", "hydrosphere"]) if rng.random() < 0.7 else "atmosphere"
            if track == "atmosphere" and self.bank.state.tracks[track] >= 8:
                track = "phytosphere"
            self.do({"type": "raise_tracks", "team": team, "steps": {track: 1}})
        elif r < 0.76:
            self.do({"type": "fight", "attacker_team": team, "attacker_card": "pirate-1", "defender_team": other,
                     "defender_card": rng.choice(["harvester-1", "merchant-1", "builder-1"]),
                     "winner": rng.choice(["attacker", "defender"]), "tokens": {}})
        elif r < 0.84:
            points = rng.choice([1, 2, 3, -1])
            self.do({"type": "award", "team": team, "points": points,
                     "reason": "fair play" if points > 0 else "left the play area"})
        elif r < 0.88:
            self.do({"type": "exchange", "team": team, "tokens": {rng.choice(PLAIN): 10}})
        elif r < 0.90:
            self.do({"type": "redeem_jokers", "team": team, "jokers": 1})
        elif r < 0.93:
            self.do({"type": "refill", "resource": rng.choice(PLAIN + ["joker"]), "amount": 20})
        elif r < 0.935:
            if self.do({"type": "open_event", "title": "Flora drive", "accepts": ["flora"],
                        "rewards": [{"points": 5}, {"jokers": 2}]}):
                self.open_events.append(f"ev{self.bank.state.event_counter}")
        elif r < 0.99 and self.open_events:
            self.do({"type": "contribute", "event": self.open_events[-1], "team": team, "tokens": {"flora": 1}})
        elif self.open_events:
            self.do({"type": "close_event", "event": self.open_events.pop()})

    def play_until(self, rows: int) -> None:
        while self.bank.last_seq < rows:
            self.step()


def build_games(folder: Path, sizes: list, config) -> dict:
    """{label: db path}: a fresh game (the floor) and copies of one long game at each size."""
    config_obj = load_config(config)
    games = {}
    fresh = folder / "fresh.db"
    with Bank.create(fresh, config_obj) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
    games["fresh (floor)"] = fresh
    path = folder / "long.db"
    bank = Bank.create(path, config_obj)
    bank._journal._conn.execute("PRAGMA synchronous=OFF")  # building only; see the module doc
    player = Player(bank)
    player.do({"type": "start_clock"})
    started = time.monotonic()
    for rows in sizes:
        player.play_until(rows)
        bank._journal.checkpoint()  # everything in the main file, so a file copy is the whole game
        copy = folder / f"game-{rows}.db"
        shutil.copyfile(path, copy)
        games[f"{rows:,}"] = copy
    bank.close()
    print(f"(built {bank.last_seq:,} journal rows in {time.monotonic() - started:.0f} s, "
          f"{player.refused:,} refused commands skipped)", file=sys.stderr)
    for db in games.values():
        Access(db).add_user("bench", "bench-password-1", "lead")
    return games


def tail(db: Path) -> int:
    """Journal rows after the newest snapshot: what Bank.open folds."""
    import sqlite3

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        last = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()[0]
        snap = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM snapshots").fetchone()[0]
        return last - snap
    finally:
        conn.close()


def serve_until_public(db: Path, config: str) -> float:
    """Seconds from launching `terrabank serve` to the first 200 of GET /api/public.

    The server binds a free port itself (--port 0) and prints it, read from its output as it
    comes (harness.spawn): the address is printed before the server can answer, so the
    clock still runs from the launch to the first 200.
    """
    log = db.with_name("serve.log")
    start = time.perf_counter()
    proc, port = spawn([TERRABANK, "--config", config, "--db", str(db), "serve", "--host", "127.0.0.1",
                        "--port", "0"], log, timeout=60)
    try:
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/api/public")
                response = conn.getresponse()
                response.read()
                conn.close()
                if response.status == 200:
                    return time.perf_counter() - start
            except OSError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"terrabank serve exited: {log.read_text(errors='replace')[-2000:]}")
            if time.perf_counter() - start > 60:
                raise TimeoutError("no 200 from /api/public after 60 s")
            time.sleep(0.005)
    finally:
        end(proc)


def open_once(db: Path, config) -> float:
    start = time.perf_counter()
    bank = Bank.open(db, config)
    seconds = time.perf_counter() - start
    bank.close()
    return seconds


def check_once(db: Path) -> float:
    """The full SQLite check `terrabank serve` makes before opening the game (cli_web.check_database)."""
    start = time.perf_counter()
    journal = Journal.open(db)
    try:
        assert journal.integrity_check() == "ok"
    finally:
        journal.close()
    return time.perf_counter() - start


def python_seconds(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONPATH": str(Path(CONFIG).parent)})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description="time to reopen a long game, against a fresh game")
    parser.add_argument("--quick", action="store_true", help="games of 1,000 and 5,000 rows, 3 rounds")
    parser.add_argument("--rounds", type=int, help="rounds (default 7, 3 with --quick)")
    parser.add_argument("--record", action="store_true",
                        help="keep the 50,000-command game's figure as the last measured (bench/results/10_recovery.json) "
                             "and make docs/PERFORMANCE.md's table again")
    args = parser.parse_args()
    sizes = [1000, 5000] if args.quick else [5000, 20000, 50000, 50000 + SNAPSHOT_EVERY - 1]
    rounds = args.rounds or (3 if args.quick else 7)
    config = load_config(CONFIG)
    with tempfile.TemporaryDirectory(prefix="terrabank-recovery-") as tmp:
        games = build_games(Path(tmp), sizes, CONFIG)
        labels = list(games)
        serve = {label: [] for label in labels}
        opened = {label: [] for label in labels}
        checked = {label: [] for label in labels}
        imports = {"python -c pass": [], "python -c 'import flask, flask_socketio'": [], SERVE_IMPORTS: []}
        for r in range(rounds):
            for label in labels[r % len(labels):] + labels[:r % len(labels)]:
                serve[label].append(serve_until_public(games[label], CONFIG))
                for _ in range(3):
                    opened[label].append(open_once(games[label], config))
                checked[label].append(check_once(games[label]))
            for name in imports:
                imports[name].append(python_seconds(name.split("'")[1] if "'" in name else "pass"))
        sizes_mb = {label: games[label].stat().st_size / 1e6 for label in labels}
        tails = {label: tail(games[label]) for label in labels}
        rows = {label: _rows(games[label]) for label in labels}
    floor_serve, floor_open = statistics.median(serve[labels[0]]), statistics.median(opened[labels[0]])
    lines = ["| game | journal rows | rows after the last snapshot | file MB | serve → first /api/public 200 (ms) | ratio to floor | Bank.open alone (ms) | ratio to floor | of the serve: integrity check (ms) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for label in labels:
        s, o = statistics.median(serve[label]), statistics.median(opened[label])
        lines.append(f"| {label} | {rows[label]:,} | {tails[label]} | {sizes_mb[label]:.1f} | {s * 1000:.0f} | "
                     f"{s / floor_serve:.2f}x | {o * 1000:.1f} | {o / floor_open:.2f}x | "
                     f"{statistics.median(checked[label]) * 1000:.1f} |")
    lines += ["", "| Python alone | ms |", "| --- | ---: |"]
    lines += [f"| `{name}` | {statistics.median(v) * 1000:.0f} |" for name, v in imports.items()]
    big = [label for label in labels[1:] if label.replace(",", "").isdigit()]
    if len(big) >= 2:
        first, last = big[0], big[-1]
        lines += ["", f"Growth {first} → {last} rows: serve {statistics.median(serve[first]) * 1000:.0f} → "
                  f"{statistics.median(serve[last]) * 1000:.0f} ms, Bank.open {statistics.median(opened[first]) * 1000:.1f} → "
                  f"{statistics.median(opened[last]) * 1000:.1f} ms."]
    lines += ["", f"Medians of {rounds} serve starts and {rounds * 3} Bank.open per game, interleaved. "
              "Target: serve → first reply under 1 s at 50,000 commands.",
              "", f"Command: `.venv/bin/python bench/store/bench_recovery.py{' ' if sys.argv[1:] else ''}{' '.join(sys.argv[1:])}`",
              "", f"Machine: {__import__('harness').machine()}"]
    print("\n".join(lines))
    if args.record and "50,000" in serve:
        import record  # bench/record.py, on the path with the shared modules
        row = {"figure": "Reopen a 50,000-command game and serve its first request",
               "value": round(statistics.median(serve["50,000"]) * 1000), "unit": "ms", "goal": "<", "limit": 1000}
        measured = (f"{time.strftime('%Y-%m-%d')}, median of {rounds} starts, a fresh game {floor_serve * 1000:.0f} ms, "
                    f"load {os.getloadavg()[0]:.0f}")
        print(record.record("10_recovery", [row], command=" ".join([".venv/bin/python", record.script(__file__),
                            *(a for a in sys.argv[1:] if a != "--record")]), measured=measured))
        record.main_table()


def _rows(db: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0]
    finally:
        conn.close()


if __name__ == "__main__":
    main()
