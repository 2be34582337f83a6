"""Whether every name of a game's config prints whole, asked by `terrabank config check` before a game.

A name the print fonts cannot draw (fonts.py: Latin, Greek and Cyrillic letters, symbols,
emoji) would print with a gap where the character was, and a team would not find its own
sheet. The check names the team (or building, animal...), the language, the character and
what to write instead.
"""

from __future__ import annotations

from .fonts import describe, fallbacks, undrawable

KINDS = (("teams", "team"), ("buildings", "building"), ("animals", "animal"), ("roles", "role"),
         ("tracks", "track"), ("resources", "resource"))


def _labels(config):
    """(config key, label dict) of every name the print pack draws."""
    yield "game.title", config.title
    for attribute, key in KINDS:
        for item_id, item in getattr(config, attribute).items():
            yield f"{attribute}[{item_id}].label", item.label


def unprintable(config) -> list:
    """[(key, language, name, [characters]), ...] for every label with a character no print font draws."""
    found = []
    for key, label in _labels(config):
        values = label.items() if isinstance(label, dict) else [("", str(label))]
        for lang, value in values:
            missing = undrawable(value)
            if missing:
                found.append((key, lang, value, missing))
    return found


def refusal(config, source: str) -> str | None:
    """The sentence `config check` ends on when a name cannot be printed whole, or None."""
    found = unprintable(config)
    if not found:
        return None
    key, lang, value, missing = found[0]
    chars = ", ".join(describe(ch) for ch in missing)
    where = f"{key}.{lang}" if lang else key
    fonts = "" if fallbacks() else (" (the print fonts are not installed: run `python3 run.py install` "
                                    "so emoji and letters beyond French and English print)")
    more = f"; {len(found) - 1} more name(s) after it" if len(found) > 1 else ""
    kept = "".join(ch for ch in value if ch not in missing).strip()
    example = f"e.g. {kept!r}" if kept else "in Latin letters"
    return (f"{source}: '{where}' = {value!r} has a character the print pack cannot draw: {chars}{fonts}. "
            f"It would print as a gap on the team's sheets and cards. The print fonts draw Latin, Greek and "
            f"Cyrillic letters, symbols and emoji; write the name with those ({example}){more}.")
