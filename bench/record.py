"""The last measured figures, kept in bench/results/*.json, and the table docs/PERFORMANCE.md opens with.

One file per question (`bench/results/<name>.json`), each a list of rows:

    {"command": ".venv/bin/python bench/web/push/bench_bytes.py",      # what reproduces the figures
     "measured": "2026-11-30, 2-vCPU machine at load 20-24",   # when and where, in words
     "rows": [{"figure": "P9: bytes per booked command, 400 pages, compressed",
               "value": 83.9, "unit": "KB", "goal": "<=", "limit": 150}]}

A row may carry its own "command". "goal" is one of <=, <, >=, >, == or null (a figure watched, with
no goal: the met column says so). The page's table is made from these files, never typed, so that a
figure and its met column cannot drift from what was measured; tests/docs/test_docs_tables.py
checks it.

    .venv/bin/python bench/record.py          # rewrite the table in docs/PERFORMANCE.md
    .venv/bin/python bench/record.py --check  # exit 1 if the page's table is not the files'

A bench records its own figures with `record("bench_bytes", rows, command=..., measured=...)`.
"""

from __future__ import annotations

import argparse
import json
import operator
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PAGE = ROOT / "docs" / "PERFORMANCE.md"
BEGIN = "<!-- figures: made by bench/record.py from bench/results/*.json; a new row goes in a results file, not here -->"
END = "<!-- end of figures -->"

GOALS = {"<=": ("≤", operator.le), "<": ("<", operator.lt), ">=": ("≥", operator.ge),
         ">": (">", operator.gt), "==": ("=", operator.eq)}
HEADER = ("| figure | goal | measured | met | reproduce |\n"
          "| --- | --- | --- | --- | --- |")


def number(value: float, unit: str) -> str:
    """A figure as the page prints it: thousands apart, the unit glued to an x, spaced otherwise."""
    text = f"{value:,}" if isinstance(value, int) else f"{value:,.{decimals(value)}f}"
    return f"{text}{unit}" if unit in ("x", "") else f"{text} {unit}"


def decimals(value: float) -> int:
    # A figure is written with the digits it was measured to; repr keeps them (1.30 is stored 1.3).
    text = repr(float(value))
    return 0 if text.endswith(".0") else len(text.split(".")[1])


def met(row: dict) -> str:
    if row.get("goal") is None:
        return "(watched)"
    return "yes" if GOALS[row["goal"]][1](row["value"], row["limit"]) else "**no**"


def goal(row: dict) -> str:
    if row.get("goal") is None:
        return "-"
    return f"{GOALS[row['goal']][0]} {number(row['limit'], row.get('unit', ''))}"


def load(folder: Path = RESULTS) -> list[dict]:
    """Every row of every results file, in the files' name order, each with its command."""
    rows = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for row in data["rows"]:
            rows.append({**row, "file": path.name, "command": row.get("command", data["command"]),
                         "measured": row.get("measured", data.get("measured", ""))})
    return rows


def table(rows: list[dict]) -> str:
    lines = [HEADER]
    for row in rows:
        lines.append(f"| {row['figure']} | {goal(row)} | {number(row['value'], row.get('unit', ''))} "
                     f"| {met(row)} | `{row['command']}` |")
    return "\n".join(lines)


def page_with_table(text: str, rows: list[dict]) -> str:
    head, sep, rest = text.partition(BEGIN)
    if not sep or END not in rest:
        raise SystemExit(f"{PAGE} has no {BEGIN!r} ... {END!r} block for the table")
    return head + BEGIN + "\n" + table(rows) + "\n" + END + rest.split(END, 1)[1]


def record(name: str, rows: list[dict], command: str, measured: str, folder: Path = RESULTS) -> Path:
    """Keep a bench's figures as the last measured ones: a row of the same figure is replaced, the file's
    other rows (another command's) stay. Then make the page's table again (main_table)."""
    path = folder / f"{name}.json"
    data = (json.loads(path.read_text(encoding="utf-8")) if path.is_file()
            else {"command": command, "measured": measured, "rows": []})
    new = [{**row, "command": command, "measured": measured} for row in rows]
    figures = {row["figure"] for row in new}
    kept = [row for row in data["rows"] if row["figure"] not in figures]
    at = next((i for i, row in enumerate(data["rows"]) if row["figure"] in figures), len(kept))
    data["rows"] = kept[:at] + new + kept[at:]
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def script(path: str) -> str:
    """How a bench names itself in its command: its path from the repository's root, wherever it moved."""
    return Path(path).resolve().relative_to(ROOT).as_posix()


def main_table() -> None:
    """Make the page's table again from the files, as `bench/record.py` does."""
    PAGE.write_text(page_with_table(PAGE.read_text(encoding="utf-8"), load()), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the page's table is the files'")
    args = parser.parse_args()
    text = PAGE.read_text(encoding="utf-8")
    new = page_with_table(text, load())
    if args.check:
        if new != text:
            print(f"{PAGE.relative_to(ROOT)}: its table is not bench/results/*.json; run bench/record.py")
            return 1
        return 0
    main_table()
    return 0


if __name__ == "__main__":
    sys.exit(main())
