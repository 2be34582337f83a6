"""Long fuzz run of the API's command parsing (the CI test runs 400 examples; this runs thousands).

    .venv/bin/python bench/web/field/fuzz_api.py --examples 20000
    .venv/bin/python bench/web/field/fuzz_api.py --quick          # 1000 examples

Every example is checked as in tests/web/field/test_fuzz_api.py: 200/400/409 only, JSON with a code and a
sentence, refusals change neither the journal nor the state, invariants hold after accepted ones.
Prints a Markdown table: the answers seen, failures (must be 0), and the pace as a ratio against a
floor measured in the same run (the same test client posting one valid command shape).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from hypothesis import HealthCheck, given, settings  # noqa: E402

from bench.harness import machine  # noqa: E402
from fuzz_kit import Fuzzer, commands  # noqa: E402


def fuzz(examples: int, seed: int | None) -> tuple[Fuzzer, float, str]:
    fuzzer, failure = Fuzzer(), ""

    @settings(max_examples=examples, deadline=None, database=None, derandomize=seed is not None,
              suppress_health_check=list(HealthCheck))
    @given(command=commands)
    def run(command):
        fuzzer.check(command)

    start = time.perf_counter()
    try:
        run()
    except AssertionError as exc:  # hypothesis has shrunk it to the smallest failing command
        failure = str(exc)[:500]
    return fuzzer, time.perf_counter() - start, failure


def floor(count: int) -> float:
    """Seconds for `count` valid awards through the same client and checks: the floor of the pace."""
    fuzzer = Fuzzer()
    try:
        start = time.perf_counter()
        for n in range(count):
            fuzzer.check({"type": "award", "team": "red", "points": 1, "reason": f"floor {n}"})
        return time.perf_counter() - start
    finally:
        fuzzer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--quick", action="store_true", help="1000 examples")
    parser.add_argument("--seed", type=int, help="derandomize (same examples every run)")
    args = parser.parse_args()
    examples = 1000 if args.quick else args.examples
    floor_before = floor(200)
    fuzzer, seconds, failure = fuzz(examples, args.seed)
    floor_after = floor(200)
    fuzzer.close()
    total = sum(fuzzer.statuses.values())
    per_floor = (floor_before + floor_after) / 400
    print(f"Command: `{' '.join(['.venv/bin/python', 'bench/web/field/fuzz_api.py', *sys.argv[1:]])}`\n")
    print(f"Machine: {machine()}\n")
    print("| examples posted | 200 booked | 400 malformed | 409 refused by the rules | other | failures | "
          "s per example / s per valid award (floor) |")
    print("|---|---|---|---|---|---|---|")
    other = total - sum(fuzzer.statuses.get(s, 0) for s in (200, 400, 409))
    print(f"| {total} | {fuzzer.statuses.get(200, 0)} | {fuzzer.statuses.get(400, 0)} | {fuzzer.statuses.get(409, 0)} | "
          f"{other} | {1 if failure else 0} | {seconds / max(total, 1) / per_floor:.2f} |")
    if failure:
        print(f"\nFAILURE (smallest example hypothesis found):\n\n```\n{failure}\n```")
        sys.exit(1)


if __name__ == "__main__":
    main()
