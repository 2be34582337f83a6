"""The commands a facilitator sends over a game afternoon, as the benches send them (the soak's mix).

Shared by the soak (bench/system/bench_soak.py), the fan-out and bytes benches (bench/web/push/), the
load of several processes (processes_load.py) and the long games of late_game.py: one mix, one place.
"""

from __future__ import annotations

import random

RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]
BUILDINGS = ["power_plant_1", "purification_centre", "greenhouse", "reserve"]


def pick_command(rng: random.Random, teams: list) -> tuple[str, dict, set]:
    """(kind, command, statuses it may get): a facilitator's mix over a game afternoon."""
    a, b = rng.sample(teams, 2)
    r1, r2 = rng.choice(RESOURCES), rng.choice(RESOURCES)
    roll = rng.random()
    if roll < 0.45:
        return "harvest", {"type": "harvest", "team": a, "card": rng.choice(["harvester-1", "harvester-2"]),
                           "resource": r1}, {200}
    if roll < 0.60:  # refused once a team owns it or hits its cap
        return "build", {"type": "build", "team": a, "building": rng.choice(BUILDINGS)}, {200, 409}
    if roll < 0.75:  # refused when a team lacks the tokens
        return "trade", {"type": "trade", "kind": "free", "merchant_team": a, "visited_team": b,
                         "give": {r1: 1}, "take": {r2: 1}}, {200, 409}
    if roll < 0.88:  # refused while the pirate cools down, or when the loser lacks the tokens
        winner = rng.choice(["attacker", "defender"])
        tokens = {r1: 1} if winner == "attacker" else {}
        return "fight", {"type": "fight", "attacker_team": a, "attacker_card": "pirate-1", "defender_team": b,
                         "defender_card": "harvester-1", "winner": winner, "tokens": tokens}, {200, 409}
    if roll < 0.94:
        return "bad card", {"type": "harvest", "team": a, "card": "harvester-9", "resource": r1}, {400, 409}
    return "bad building", {"type": "build", "team": a, "building": "castle"}, {400, 409}
