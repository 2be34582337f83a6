"""Any moment of a game as the big screen receives it, for
tests/web/field/test_tv_any_moment.py: a Hypothesis strategy of `/api/public` pictures and the
measure of what a viewer sees of one.

The pictures are real ones varied: `template` is a real game's payload (bank/web/field/payloads.py)
and its real feed entries; the strategy changes the teams (2-8, long names, FR and EN labels), the
open events (0-3, 0-8 givers each), who waits (0-12 fighters), the clock (running, session break,
pause, end) and the rate, and keeps every dict's keys those of the real payload (`same_shape`).
"""

from __future__ import annotations

import copy

from hypothesis import strategies as st

# Long names a game lead types into config.toml; the four of config.toml come first.
LONG_NAMES = [
    ("Les Gardiens de la Forêt Équatoriale", "Guardians of the Equatorial Forest"),
    ("Coopérative des Hauts-Plateaux", "High Plateaux Cooperative"),
    ("Brigade Aquatique du Lac Supérieur", "Aquatic Brigade of the Upper Lake"),
    ("Les Semeurs d'Étoiles", "The Star Sowers"),
    ("Compagnie Solaire Intercontinentale", "Intercontinental Solar Company"),
    ("Mouettes", "Gulls"),
    ("Ingénieurs Terraformeurs Associés", "Associated Terraforming Engineers"),
    ("Renards", "Foxes"),
]
COLOURS = ["#1f6fd1", "#f2c230", "#d33a2c", "#2e9e44", "#8e44ad", "#e67e22", "#16a085", "#7f8c8d"]
TITLES = ["Sécheresse : l'eau manque au village !", "Tempête",
          "Le grand marché de la coopérative intercontinentale des planètes lointaines",
          "Incendie dans la forêt du nord : apportez de l'eau et de la flore avant la nuit"]
CARDS = ["pirate-1", "pirate-2", "harvester-1", "harvester-2", "builder-1", "merchant-1"]
REASONS = ["fair play", "a lost card found under the bench by the referee of the north field"]


def same_shape(real, made, where="picture") -> None:
    """`made` has the keys of `real` at every level where `real` is a fixed record (not a map of ids)."""
    assert isinstance(made, type(real)) or real is None or made is None, (where, real, made)
    if isinstance(real, dict) and isinstance(made, dict) and real and not _is_map(real):
        assert set(made) == set(real), (where, sorted(set(made) ^ set(real)))
        for key in real:
            if real[key] is not None and made.get(key) is not None:
                same_shape(real[key], made[key], f"{where}.{key}")


def _is_map(d: dict) -> bool:
    """A dict keyed by ids (teams, events, tracks, seqs), whose keys vary from game to game."""
    return any(k.isdigit() or k.startswith("ev") or k in ("blue", "red", "phytosphere") for k in d)


@st.composite
def moments(draw, template: dict, feed_entries: list, config: dict) -> dict:
    """{"config_teams": {...}, "picture": {...}, "previous_rate": {...} or None, "summary": str}."""
    n = draw(st.integers(2, 8))
    real_ids = [row["team"] for row in template["standings"]]
    ids = (real_ids + [f"team{i}" for i in range(5, 9)])[:n]
    names = draw(st.permutations(LONG_NAMES))[:n]
    teams = {t: {"label": {"fr": fr, "en": en}, "colour": COLOURS[i], "resource": "water"}
             for i, (t, (fr, en)) in enumerate(zip(ids, names))}
    pic = copy.deepcopy(template)
    board = pic["board"]
    elapsed = draw(st.integers(0, 10700))
    phase = draw(st.sampled_from(["running", "session break", "paused", "ended"]))
    clock = board["clock"]
    clock.update(elapsed=elapsed, status="running", session=1 if elapsed < 5400 else 2, session_over=False)
    if phase == "session break":
        clock.update(status="paused", session=1, session_over=True, elapsed=5400)
    elif phase == "paused":
        clock["status"] = "paused"
    scores = {t: draw(st.integers(0, 140)) for t in ids}
    ranked = sorted(ids, key=lambda t: -scores[t])
    board["ended"] = None
    if phase == "ended":
        clock["status"] = "ended"
        best = scores[ranked[0]]
        board["ended"] = {"reason": draw(st.sampled_from(["time", "reputation", "animals", "stopped"])),
                          "winners": [t for t in ranked if scores[t] == best], "elapsed": clock["elapsed"]}
    animal_ids = list(config["animals"])
    board["animals"] = {t: draw(st.lists(st.sampled_from(animal_ids), max_size=4)) for t in ids}
    for track in board["tracks"].values():
        track["level"] = draw(st.integers(0, track["length"]))
    board["animals_unlocked"] = draw(st.booleans())
    pic["standings"] = [{**template["standings"][0], "team": t, "label": teams[t]["label"], "colour": teams[t]["colour"],
                         "reputation": scores[t], "animals": len(board["animals"][t]), "buildings": draw(st.integers(0, 12)),
                         "rank": 1 + sum(scores[o] > scores[t] for o in ids)} for t in ranked]
    real_event = next(iter(template["board"]["events"].values()))
    events = {}
    for i in range(draw(st.integers(0, 3))):
        givers = draw(st.lists(st.sampled_from(ids), unique=True, max_size=min(8, n)))
        events[f"ev{i + 1}"] = {**real_event, "title": draw(st.sampled_from(TITLES)),
                                "accepts": draw(st.lists(st.sampled_from(["water", "flora", "dioxygen", "energy"]), unique=True, max_size=3)),
                                "target": draw(st.sampled_from([None, 20, 120])),
                                "deadline": draw(st.sampled_from([None, clock["elapsed"] + 1200])),
                                "rewards": draw(st.lists(st.sampled_from([{"points": 5}, {"points": 12}, {"jokers": 2}]), min_size=1, max_size=4)),
                                "given": {t: draw(st.integers(1, 40)) for t in givers}, "status": "open", "ranking": None}
    board["events"] = events
    waiting = draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(CARDS)), unique=True, max_size=12))
    pic["cooldowns"] = {t: {} for t in ids}
    for t, card in waiting:
        pic["cooldowns"][t][card] = draw(st.integers(1, 300))
    rate = draw(st.sampled_from([{"tokens": 10, "points": 1}, {"tokens": 8, "points": 1}, {"tokens": 12, "points": 3}]))
    board["rate"] = rate
    flash = draw(st.booleans())
    previous = {"tokens": rate["tokens"] + 1, "points": rate["points"]} if flash else None
    pic["feed"] = _feed(draw, feed_entries, ids, draw(st.integers(3, 12)))
    pic["seq"] = 0  # the test numbers the pictures it sends
    same_shape(template, pic)
    summary = (f"{n} teams, {len(events)} open events ({[len(e['given']) for e in events.values()]} givers), "
               f"{len(waiting)} waiting, {phase}, rate flash {flash}, {len(pic['feed'])} bookings")
    return {"config_teams": teams, "picture": pic, "previous_rate": previous, "summary": summary}


def _feed(draw, entries: list, ids: list, count: int) -> dict:
    """`count` real feed entries (their words and shapes), their teams moved onto this moment's teams."""
    feed = {}
    for seq in range(1, count + 1):
        entry = copy.deepcopy(draw(st.sampled_from(entries)))
        mapping = dict(zip(sorted({t for t in entry.get("teams", [])} | set(entry.get("rep", {}))),
                           draw(st.permutations(ids))))
        entry["teams"] = [mapping[t] for t in entry.get("teams", [])]
        if "rep" in entry:
            entry["rep"] = {mapping[t]: v for t, v in entry["rep"].items()}
        what = entry.get("what") or {}
        for key in ("attacker_team", "defender_team", "winner", "merchant_team", "visited_team"):
            if key in what:
                what[key] = mapping.get(what[key], ids[0])
        if "reason" in entry:
            entry["reason"] = draw(st.sampled_from(REASONS))
        entry["seq"] = seq
        feed[str(seq)] = entry
    return feed
