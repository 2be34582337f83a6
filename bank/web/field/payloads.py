"""What each audience receives: the same views, cut to what it may see."""

from __future__ import annotations

import hashlib
import json

from bank.game import views
from bank.services import feed_tail

_VERSIONS: dict = {}  # id(config) -> (config, its version): one config per served app, kept for its life


def current(bank) -> tuple[int, object]:
    """(seq, state) of the bank, the seq read first: a payload's seq is never newer than its state."""
    seq = bank.last_seq
    state = bank.state
    return seq, state


def public(bank, config) -> dict:
    """The big screen's picture: no team's stock, but everyone's cooldowns (R19)."""
    return public_of(*current(bank), config, bank.now(), bank=bank)


def public_of(seq: int, state, config, now: float, bank=None) -> dict:
    """The public picture of `state`; its activity feed is read from `bank`'s journal (none without one:
    a test's state that no bank holds). The bank is passed, not looked up by the state."""
    return {
        "seq": seq,
        "board": views.board(state, config, now),
        "standings": views.standings(state, config, now),
        "cooldowns": {t: views.cooldowns(state, t, now) for t in config.teams},
        "feed": _feed(bank, state, seq),
        "chain": _chain(bank, seq),
        "config": config_version(config),
    }


def config_version(config) -> str:
    """A short name of what the pages draw from the config (`game_config` in every language): a page that loaded
    another (the config was reloaded since, `systemctl reload`) sees it in the next picture and loads itself again
    (static/js/live.js); before, it kept the old team names and costs until someone reloaded it by hand."""
    found = _VERSIONS.get(id(config))
    if found is None or found[0] is not config:
        if len(_VERSIONS) > 64:  # tests make many apps; a server, one per game it serves
            _VERSIONS.clear()
        text = json.dumps([_drawn(config, lang) for lang in ("fr", "en")], sort_keys=True, ensure_ascii=False)
        found = _VERSIONS[id(config)] = (config, hashlib.sha256(text.encode()).hexdigest()[:12])
    return found[1]


def _chain(bank, seq: int) -> dict | None:
    """The chain's head at this picture's entry, and which game it is (Bank.game_mark): each page keeps the
    newest it saw and checks, when it comes back, that the bank's chain still holds it."""
    if bank is None or seq <= 0:
        return None
    return {"hash": bank.head_at(seq), "game": bank.game_mark()}


def _feed(bank, state, seq: int, team_id: str | None = None) -> dict:
    """The last bookings: everyone's without tokens, or one team's own."""
    if bank is None:  # a picture of a state alone (a test's): no journal to read
        return {}
    if team_id is None:
        return feed_tail.public(bank, seq)
    return feed_tail.team(bank, seq, team_id, state.reputation.get(team_id, 0))


def team(bank, config, team_id: str) -> dict:
    """One team's page: its own stock and what it can afford, plus the shared picture."""
    return team_of(*current(bank), config, team_id, bank.now(), bank=bank)


def team_of(seq: int, state, config, team_id: str, now: float, bank=None) -> dict:
    return {"seq": seq, "view": views.team_view(state, config, team_id, now),
            "team_feed": _feed(bank, state, seq, team_id)}


def facilitators(bank, config) -> dict:
    """The console's picture: every team's view."""
    now = bank.now()
    data = public(bank, config)
    data["teams"] = {t: views.team_view(bank.state, config, t, now) for t in config.teams}
    data["reopened"] = getattr(bank, "reopened", None)  # the admin page says the bank restarted
    data["game"] = bank.game_mark()  # a command a station keeps names it (static/js/outbox.js, X-Game)
    return data


def game_config(config, lang: str) -> dict:
    """What pages need to draw: labels, colours, costs, tracks, fights, cards; and its `version`."""
    return {**_drawn(config, lang), "version": config_version(config)}


def _drawn(config, lang: str) -> dict:
    pick = lambda label: label.get(lang) or label["fr"]  # noqa: E731
    return {
        "title": pick(config.title),
        "resources": {r.id: {"label": pick(r.label), "colour": r.colour, "harvestable": r.harvestable, "joker": r.joker}
                      for r in config.resources.values()},
        "teams": {t.id: {"label": pick(t.label), "colour": t.colour, "resource": t.resource,
                         **({"short": pick(t.short)} if t.short else {})} for t in config.teams.values()},
        "roles": {r.id: {"label": pick(r.label), "strength": r.strength, "pirate": r.pirate, "harvests": r.harvests}
                  for r in config.roles.values()},
        "cards": config.cards(),
        "buildings": {b.id: {"label": pick(b.label), "cost": b.cost, "reputation": b.reputation} for b in config.buildings.values()},
        "animals": {a.id: {"label": pick(a.label), "kind": a.kind, "cost": a.cost, "reputation": a.reputation}
                    for a in config.animals.values()},
        "tracks": {t.id: {"label": pick(t.label), "resource": t.resource, "length": t.length, "step_cost": t.step_cost,
                          "reputation_per_step": t.reputation_per_step,
                          "icons": {str(k): v for k, v in t.icons.items()}} for t in config.tracks.values()},
        "fights": [{"roles": list(p.roles), "rounds": list(p.rounds), "everyone_fights_only": p.everyone_fights_only}
                   for p in config.fight_pairs],
        "animal_unlock_level": config.animal_unlock_level,
        "losing_pirate_gives_tokens": config.losing_pirate_gives_tokens,
        "low_stock_warning": config.low_stock_warning,
        "points_per_joker": config.points_per_joker,
        "reputation_threshold": config.reputation_threshold,
        "animals_threshold": config.animals_threshold,
    }
