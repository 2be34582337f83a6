"""Random draws exactly as `random.Random` makes them, with fewer Python calls.

`Random.shuffle` and `Random.choice` call `_randbelow` once per draw, a Python method calling
`getrandbits`; a random game makes some 800 such draws. `shuffle` and `below` here ask
`getrandbits` for the same bits in the same order, so a seeded game draws alike either way.
Any other generator (a subclass, a stand-in) keeps its own methods; so does a Python whose
`Random` draws otherwise (checked once, on import).
"""

from __future__ import annotations

import random

_Random = random.Random


def below(rng, n: int) -> int:
    """`rng._randbelow(n)` for n >= 1: a uniform integer in 0..n-1, as `choice` draws its index."""
    if type(rng) is not _Random or not _SAME or n <= 0:
        return rng.choice(range(n))  # (IndexError for n = 0, as choice gives)
    getrandbits = rng.getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def shuffle(rng, items: list) -> None:
    """`rng.shuffle(items)`: the same permutation from the same draws."""
    if type(rng) is not _Random or not _SAME:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def _same() -> bool:
    """Whether this Python's Random shuffles and chooses as the functions above do."""
    for seed in range(20):
        ours, theirs = _Random(seed), _Random(seed)
        a, b = list(range(seed + 2)), list(range(seed + 2))
        shuffle(ours, a)
        theirs.shuffle(b)
        if a != b or below(ours, seed + 5) != theirs.choice(range(seed + 5)) or ours.getstate() != theirs.getstate():
            return False
    return True


_SAME = True  # while _same() checks the functions above
_SAME = _same()
