"""The rules' worked examples as data (docs/rules/trias.md): what the engine, the calculator and the
terminal are each checked against."""

# T20: Example 3, land mass by land mass: (tiles, herds of Black, White, Cross, Grey), points.
EXAMPLE_3 = {
    "A": (3, (2, 0, 1, 0), [3, 0, 2, 0]),
    "B": (4, (0, 1, 1, 1), [0, 2, 2, 2]),
    "C": (8, (2, 0, 2, 0), [6, 0, 6, 0]),
    "D": (6, (0, 1, 1, 0), [0, 5, 5, 0]),
    "E": (1, (0, 1, 0, 1), [0, 1, 0, 1]),
    "F": (5, (1, 0, 0, 2), [3, 0, 0, 5]),
    "G": (4, (1, 1, 0, 0), [3, 3, 0, 0]),
    "H": (5, (1, 1, 0, 0), [4, 4, 0, 0]),
}

PLAYERS = ("Black", "White", "Cross", "Grey")


def example_3(**extra) -> dict:
    """T20: Example 3 as the table would describe it, plus a main land mass that never scores."""
    masses = [{"name": name, "tiles": size, "herds": {p: k for p, k in zip(PLAYERS, counts) if k}}
              for name, (size, counts, _) in EXAMPLE_3.items()]
    masses.append({"name": "Pole", "tiles": 7, "main": True, "herds": {"Grey": 3, "Black": 1}})
    return {"land_masses": masses, **extra}
