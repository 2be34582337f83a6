"""Reading a command's fields: each mistake becomes a CommandError naming the field."""

from __future__ import annotations

import unicodedata

from bank.game.config_model import GameConfig
from bank.errors import CommandError

MAX_TOKENS = 10_000   # more tokens than a whole game holds: surely a typo
MAX_TEXT = 200


def _get(cmd: dict, name: str):
    if name not in cmd or cmd[name] is None:
        raise CommandError("missing_field", f"the command needs '{name}'", field=name)
    return cmd[name]


def choice(cmd: dict, name: str, allowed, what: str) -> str:
    """A field that must name one of `allowed` (a team, a resource, a building...)."""
    value = _get(cmd, name)
    if value not in allowed:
        known = ", ".join(allowed)
        raise CommandError("unknown_" + what.replace(" ", "_"), f"'{name}' is {value!r}, which is not a {what}; choose one of: {known}",
                           field=name, value=str(value)[:50])
    return value


def team(cmd: dict, config: GameConfig, name: str = "team") -> str:
    return choice(cmd, name, list(config.teams), "team")


def whole(cmd: dict, name: str, minimum: int = 1, maximum: int = MAX_TOKENS, default=None) -> int:
    """A whole number within bounds."""
    value = cmd.get(name, default)
    if value is None:
        value = _get(cmd, name)
    return check_whole(value, name, minimum, maximum)


def check_whole(value, label: str, minimum: int = 1, maximum: int = MAX_TOKENS) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CommandError("not_a_whole_number", f"'{label}' must be a whole number, got {str(value)[:30]!r}", field=label)
    if not minimum <= value <= maximum:
        raise CommandError("out_of_range", f"'{label}' must be between {minimum} and {maximum}, got {value}",
                           field=label, minimum=minimum, maximum=maximum)
    return value


def flag(cmd: dict, name: str) -> bool:
    value = _get(cmd, name)
    if not isinstance(value, bool):
        raise CommandError("not_true_or_false", f"'{name}' must be true or false", field=name)
    return value


def text(cmd: dict, name: str, required: bool = True) -> str:
    """A short human text such as a reason or an event title."""
    value = cmd.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise CommandError("missing_text", f"'{name}' must be a short text saying why; it cannot be empty", field=name)
    if len(value) > MAX_TEXT:
        raise CommandError("text_too_long", f"'{name}' is {len(value)} characters long; keep it under {MAX_TEXT}", field=name)
    if has_control(value):
        # Line breaks and bidi overrides would garble or disguise the journal, the exports and the printed report.
        raise CommandError("control_character", f"'{name}' contains a control character (a line break, tab or "
                           "invisible character); type it on one line with visible characters only", field=name)
    if not visible(value):
        # Zero-width spaces or a lone accent pass strip() but book a reason that shows blank.
        raise CommandError("invisible_text", f"'{name}' has no visible character (only spaces, zero-width "
                           "characters or accents on nothing); type a few words saying why", field=name)
    return value.strip()


_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Letters and symbols that draw nothing: Hangul fillers, the blank Braille pattern, the Khmer inherent vowels.
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5")


def has_control(value: str) -> bool:
    """Whether a text holds a C0/C1 control (line break, tab...) or a bidi override."""
    return any(ord(c) < 32 or 127 <= ord(c) < 160 or c in _BIDI_CONTROLS for c in value)


def visible(value: str) -> bool:
    """Whether a text has at least one character a reader can see (not only spaces, format or combining marks)."""
    return any(unicodedata.category(c)[0] not in "ZCM" and c not in _BLANK_GLYPHS for c in value)


def amounts(cmd: dict, name: str, allowed, allow_empty: bool = False) -> dict:
    """A table of {resource: whole number > 0}, e.g. tokens paid or moved."""
    value = cmd.get(name, {} if allow_empty else None)
    if value is None:
        value = _get(cmd, name)
    if not isinstance(value, dict):
        raise CommandError("not_amounts", f"'{name}' must map resources to numbers, like {{\"water\": 2}}", field=name)
    result = {}
    for resource, n in value.items():
        if resource not in allowed:
            raise CommandError("unknown_resource", f"'{name}' names {str(resource)[:30]!r}, which is not a resource; choose from: {', '.join(allowed)}",
                               field=name, value=str(resource)[:30])
        result[resource] = check_whole(n, f"{name}.{resource}", 0)
    result = {r: n for r, n in result.items() if n}
    if not result and not allow_empty:
        raise CommandError("nothing_given", f"'{name}' must give at least one token", field=name)
    if sum(result.values()) > MAX_TOKENS:
        raise CommandError("out_of_range", f"'{name}' moves more than {MAX_TOKENS} tokens; check the numbers", field=name)
    return result


# The fields each command type reads (besides type, id, actor). A field not listed
# here is refused rather than ignored, so a misspelt optional field such as
# "deadline" for "deadline_minutes" says so instead of booking without it.
COMMON_FIELDS = frozenset({"type", "id", "actor"})
COMMAND_FIELDS = {
    "harvest": {"team", "card", "resource"},
    "build": {"team", "building"},
    "buy_animal": {"team", "animal"},
    "buy_second_pirate": {"team"},
    "raise_tracks": {"team", "steps"},
    "redeem_jokers": {"team", "jokers"},
    "exchange": {"team", "tokens"},
    "trade": {"merchant_team", "visited_team", "kind", "give", "take"},
    "fight": {"attacker_team", "attacker_card", "defender_team", "defender_card", "winner", "tokens"},
    "contribute": {"event", "team", "tokens"},
    "award": {"team", "points", "reason"},
    "refill": {"resource", "amount"},
    "inventory": {"team", "counted", "reason"},
    "set_rate": {"tokens", "points"},
    "set_option": {"option", "value", "cost"},
    "open_event": {"title", "accepts", "rewards", "target", "deadline_minutes"},
    "close_event": {"event"},
    "reverse": {"seq", "reason"},
    "start_clock": set(), "pause": set(), "resume": set(), "end_session": set(), "end_game": set(),
}


def unknown_fields(cmd: dict) -> str:
    """A sentence naming the fields this command type does not know, or "" when there are none."""
    known = COMMAND_FIELDS.get(cmd.get("type"))
    if known is None:
        return ""  # an unknown type is refused by the engine, with the list of known types
    extra = sorted(str(k)[:30] for k in cmd if k not in known and k not in COMMON_FIELDS)
    if not extra:
        return ""
    expected = ", ".join(sorted(known)) or "no other field"
    return f"a {cmd['type']} command has no field {', '.join(map(repr, extra[:5]))}; it takes: {expected}"
