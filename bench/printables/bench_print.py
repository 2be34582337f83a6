"""Benchmark (not a test): time the whole print pack against a bare-ReportLab floor.

    .venv/bin/python bench/printables/bench_print.py [--repeat 5]

The floor is a plain ReportLab canvas writing as many pages as the pack has, one
string on each: what any PDF costs on this machine. The ratio pack / floor says
how much our layout and drawing add, and stays comparable across machines.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from reportlab.pdfgen import canvas

from bank.game.config import load_config
from bank.services.bank import Bank
from printables import pack
from printables.drawing import qr_runs
from printables.pack import documents


def small_game(folder: Path, config) -> Bank:
    """A game with a little of everything the report tells, at fixed times."""
    bank = Bank.create(folder / "bench.db", config)
    t0, ids = 1_700_000_000.0, iter(range(1, 100))

    def do(minute, **command):
        bank.execute({"id": f"bench-{next(ids)}", **command}, now=t0 + minute * 60)

    do(0, type="start_clock")
    do(1, type="inventory", team="green", counted={"energy": 40, "water": 30, "dioxygen": 30, "flora": 70})
    do(5, type="build", team="green", building="greenhouse")
    do(9, type="trade", kind="free", merchant_team="green", visited_team="yellow", give={"water": 2}, take={})
    do(12, type="fight", attacker_team="red", attacker_card="pirate-1", defender_team="green",
       defender_card="harvester-1", winner="attacker", tokens={"water": 2})
    do(20, type="raise_tracks", team="green", steps={"phytosphere": 6})
    do(30, type="set_rate", tokens=5, points=1)
    do(70, type="end_game")
    return bank


def pages_of(data: bytes) -> int:
    """Pages in a ReportLab PDF (each page object says /Type /Page once)."""
    return data.count(b"/Type /Page\n") or data.count(b"/Type /Page ")


def floor(pages: int) -> float:
    """Seconds for a bare canvas to write `pages` pages with one string each."""
    start = time.perf_counter()
    c = canvas.Canvas(io.BytesIO(), invariant=1)
    for n in range(pages):
        c.setFont("Helvetica", 12)
        c.drawString(72, 72, f"page {n + 1}")
        c.showPage()
    c.save()
    return time.perf_counter() - start


def main(argv=None) -> int:
    """Run the pack and the floor `--repeat` times; print medians and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--record", action="store_true",
                        help="keep the ratio as the last measured (bench/results/12_print.json) and make "
                             "docs/PERFORMANCE.md's table again")
    args = parser.parse_args(argv)
    config = load_config(ROOT / "config.toml")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bank = small_game(folder, config)
        urls = {team: f"http://192.168.4.1:5000/t/token-{team}" for team in config.teams}
        inputs = {"bank": bank, "team_urls": urls, "base": "http://192.168.4.1:5000", "wifi": ("Terrabank", "secret")}
        per_doc = {name: [] for name, _ in documents("all", config, "fr", **inputs)}
        totals, floors, pages = [], [], 0
        for _ in range(args.repeat):
            qr_runs.cache_clear()  # each run encodes its QR codes afresh, as a new `terrabank print` would
            start = time.perf_counter()
            written = pack.build("all", folder / "out", config, "fr", **inputs)
            totals.append(time.perf_counter() - start)
            pages = sum(pages_of(p.read_bytes()) for p in written)
            floors.append(floor(pages))
            for name, render in documents("all", config, "fr", **inputs):
                qr_runs.cache_clear()
                start = time.perf_counter()
                render()
                per_doc[name].append(time.perf_counter() - start)
        bank.close()
    total, base = statistics.median(totals), statistics.median(floors)
    print(f"machine: {platform.processor() or platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {len(config.teams)} teams, median of {args.repeat}")
    for name, times in per_doc.items():
        print(f"  {name:38} {statistics.median(times) * 1000:8.1f} ms")
    print(f"whole pack: {len(per_doc)} PDFs, {pages} pages, {total * 1000:.0f} ms")
    print(f"floor (bare canvas, {pages} pages, one string each): {base * 1000:.1f} ms")
    print(f"ratio pack / floor: {total / base:.0f}x")
    if args.record:
        sys.path.insert(0, str(ROOT / "bench"))
        import record  # bench/record.py
        row = {"figure": "Print pack (every sheet, French), x a bare canvas of as many pages",
               "value": round(total / base), "unit": "x", "goal": None, "limit": None}
        measured = (f"{time.strftime('%Y-%m-%d')}, {len(per_doc)} PDFs, {pages} pages, {total * 1000:.0f} ms, "
                    f"median of {args.repeat}, load {os.getloadavg()[0]:.0f}")
        print(record.record("12_print", [row], command=f".venv/bin/python {record.script(__file__)} --repeat {args.repeat}",
                            measured=measured))
        record.main_table()
    return 0


if __name__ == "__main__":
    sys.exit(main())
