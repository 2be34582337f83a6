"""How the benches turn samples into figures, one way for all of them."""

from __future__ import annotations


def percentile(values: list, p: float) -> float:
    """Nearest-rank percentile; nan when there is no sample."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))] if ordered else float("nan")
