"""The median of several runs of bench/web/push/pages_under_pressure.py, from the JSON lines its --json
wrote (one a server a run): for each pressure, pace and server, the median and range of each figure over the
runs, and the ratios bank / floor of each run with their median. A run in which any page of either server
dropped is void for that pace: it gives no ratio, and the count says how many pages dropped.

    .venv/bin/python bench/web/push/rooms_median.py /tmp/rooms.jsonl
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict

FIGURES = (("booked", "booked", "{:.0f}"), ("refused", "refused or closed", "{:.0f}"), ("tap_p50", "tap p50", "{:.2f} s"), ("tap_p99", "tap p99", "{:.2f} s"),
           ("caught_up", "last entry everywhere after", "{:.2f} s"), ("cpu_ms_per_command", "CPU a harvest", "{:.1f} ms"),
           ("cpu_ms_per_round", "CPU a round", "{:.1f} ms"), ("never_held", "harvests some page never held", "{:.0f}"),
           ("messages", "messages a page", "{:.0f}"), ("load", "load", "{:.1f}"))


def spread(values: list, fmt: str) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    return (fmt.format(statistics.median(values)) + (f" ({fmt.format(min(values))}-{fmt.format(max(values))})"
                                                      if len(values) > 1 else ""))


def main(path: str) -> None:
    runs = defaultdict(list)  # (pressure, server) -> [result, ...] in run order
    for line in open(path):
        r = json.loads(line)
        runs[(r["pressure"], r["server"])].append(r)
    for pressure in sorted({p for p, _ in runs}):
        bank, floor = runs.get((pressure, "bank"), []), runs.get((pressure, "floor"), [])
        print(f"\n## {pressure}: {len(bank)} bank runs, {len(floor)} floor runs\n")
        paces = sorted({p["pace"] for r in bank + floor for p in r["paces"]})
        for pace in paces:
            print(f"### {pace:g} a second")
            for name, results in (("bank", bank), ("floor", floor)):
                rows = [p for r in results for p in r["paces"] if p["pace"] == pace]
                kept = ", ".join(f"{p['connected']}" for p in rows)
                print(f"- {name}: pages kept {kept} of {results[0]['pages'] if results else '-'} (compressed "
                      f"{', '.join(str(r.get('compressed', '-')) for r in results)}); asked {rows[0]['asked'] if rows else '-'}; "
                      + "; ".join(f"{label} {spread([p[key] for p in rows], fmt)}" for key, label, fmt in FIGURES))
            ratios = defaultdict(list)
            void = []
            for b, f in zip(bank, floor):
                bp = next((p for p in b["paces"] if p["pace"] == pace), None)
                fp = next((p for p in f["paces"] if p["pace"] == pace), None)
                if bp is None or fp is None:
                    continue
                if bp["dropped"] or fp["dropped"]:
                    void.append(f"bank {bp['dropped']}, floor {fp['dropped']} dropped")
                    continue
                for key in ("booked", "tap_p50", "tap_p99", "cpu_ms_per_command"):
                    if bp[key] and fp[key]:
                        ratios[key].append(bp[key] / fp[key])
            if void:
                print(f"- VOID runs (no ratio): {'; '.join(void)}")
            print("- bank / floor, run by run, median: " + "; ".join(
                f"{key} {statistics.median(v):.2f}x ({', '.join(f'{x:.2f}' for x in v)})" for key, v in ratios.items()))
            print()


if __name__ == "__main__":
    main(sys.argv[1])
