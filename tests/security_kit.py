"""Shared by the security tests: a game with something in it, one valid command per type, and a fingerprint
of everything a refused request must leave alone (journal, state, team links)."""

from __future__ import annotations

import json

from bank.game.engine import COMMANDS

KINDS = sorted(k for k, (_, phase) in COMMANDS.items() if phase != "system")
CALLERS = [None, "team", "referee", "banker", "lead"]


def services(app):
    return app.extensions["terrabank"]


def prepare(app) -> None:
    """Clock running, blue rich in every resource, one open event: most commands can then succeed."""
    bank = services(app).bank
    plain = {r: 30 for r in bank.config.resources}
    for n, cmd in enumerate([
        {"type": "start_clock"},
        {"type": "inventory", "team": "blue", "counted": plain, "reason": "test set-up"},
        {"type": "inventory", "team": "red", "counted": plain, "reason": "test set-up"},
        {"type": "open_event", "title": "Drought", "rewards": [{"points": 3}]},
        {"type": "harvest", "team": "green", "card": "harvester-1", "resource": "water"},  # seq 6, for the reverse command
    ], 1):
        bank.execute({"id": f"prep-{n}", "actor": "lead", **cmd})


def valid_command(kind: str, config) -> dict:
    """A command of this type that is well formed and, after prepare(), allowed by the rules."""
    track = next(iter(config.tracks))
    building = next(iter(config.buildings))
    animal = next(iter(config.animals))
    return {
        "harvest": {"team": "blue", "card": "harvester-1", "resource": "water"},
        "build": {"team": "blue", "building": building},
        "buy_animal": {"team": "blue", "animal": animal},  # locked until the tracks rise: a 409 from the rules
        "buy_second_pirate": {"team": "blue"},  # the option is off: a 409 from the rules
        "raise_tracks": {"team": "blue", "steps": {track: 1}},
        "redeem_jokers": {"team": "blue", "jokers": 1},
        "exchange": {"team": "blue", "tokens": {"water": 10}},
        "trade": {"merchant_team": "blue", "visited_team": "red", "kind": "free", "give": {"water": 1}, "take": {"flora": 1}},
        "fight": {"attacker_team": "blue", "attacker_card": "pirate-1", "defender_team": "red",
                  "defender_card": "harvester-1", "winner": "attacker", "tokens": {}},
        "contribute": {"event": "ev1", "team": "blue", "tokens": {"water": 1}},
        "award": {"team": "red", "points": 1, "reason": "fair play"},
        "refill": {"resource": "water", "amount": 1},
        "inventory": {"team": "red", "counted": {"water": 3}, "reason": "box counted"},
        "set_rate": {"tokens": 5, "points": 1},  # not the starting rate: a change to the same rate is refused (R32)
        "set_option": {"option": "team_bonus", "value": True},
        "open_event": {"title": "Flood", "rewards": [{"points": 2}]},
        "close_event": {"event": "ev1"},
        "reverse": {"seq": 6, "reason": "booked for the wrong team"},
        "start_clock": {},  # already running: a 409 from the rules
        "pause": {},
        "resume": {},  # not paused: a 409 from the rules
        "end_session": {},
        "end_game": {},
    }[kind] | {"type": kind}


def snapshot(app) -> str:
    """Everything a refused request must not change, as one comparable text."""
    s = services(app)
    return json.dumps({"seq": s.bank.last_seq, "state": s.bank.state.to_dict(),
                       "tokens": s.access.team_tokens(), "users": s.access.users()}, sort_keys=True, default=repr)


def is_sentence(message) -> bool:
    """A refusal a person can act on: several words, not a bare code."""
    return isinstance(message, str) and len(message.split()) >= 3


def refusal(reply) -> dict:
    """The {code, message} of a JSON refusal; fails the test if the reply is not one."""
    assert reply.is_json, f"{reply.status_code} is not JSON: {reply.data[:200]!r}"
    body = reply.get_json()
    assert isinstance(body, dict) and "error" in body, body
    error = body["error"]
    assert isinstance(error.get("code"), str) and is_sentence(error.get("message")), error
    return error


def cookie(web_client) -> str:
    """The session cookie's value a test client holds."""
    return web_client.client.get_cookie("session").value


def replay(web, value: str):
    """Another device (or a stolen copy) sending this cookie value, with the CSRF token the server gives it."""
    other = web()
    other.client.set_cookie("session", value)
    other.csrf = other.client.get("/api/csrf").get_json()["csrf"]
    return other
