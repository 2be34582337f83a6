"""The default config with 2 to 6 teams of chosen names, for the pages' tests of long, accented and emoji names.

config.toml ships four short names; a game day had six such as "Les Verts 🌱 qui Poussent Vite". The
teams here keep the default ids and colours for the first four and add two more, each harvesting one
of the config's harvestable resources in turn.
"""

from __future__ import annotations

import itertools
import logging
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEAMS = (("blue", "#1f6fd1"), ("yellow", "#f2c230"), ("red", "#d33a2c"), ("green", "#2e9e44"),
         ("purple", "#7b3fa0"), ("orange", "#e8731c"))
HARVESTED = ("water", "energy", "dioxygen", "flora")
# The game day's names, at or near the 30-character limit, with accents, emoji and articles.
LONG_NAMES = ("Mégalosaure-Anticonstitutionné", "Les Verts 🌱 qui Poussent Vite", "Zoé, Ève, Noël, Anaïs — Équipe",
              "Les Œufs 🥚 de Dinosaures", "🦖🦖 Rex & Compagnie 🦖🦖", "Les Jaunes qui Brillent ☀️")


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def teams_toml(names, shorts=None) -> str:
    """The [[teams]] tables for `names` (2 to 6; a name for both languages, or a (fr, en) pair)."""
    out = []
    for n, name in enumerate(names):
        fr, en = (name, name) if isinstance(name, str) else name
        tid, colour = TEAMS[n]
        short = ""
        if shorts and shorts[n]:
            short = f"short = {{ fr = {_quoted(shorts[n])}, en = {_quoted(shorts[n])} }}\n"
        out.append(f'[[teams]]\nid = "{tid}"\nlabel = {{ fr = {_quoted(fr)}, en = {_quoted(en)} }}\n{short}'
                   f'colour = "{colour}"\nresource = "{HARVESTED[n % len(HARVESTED)]}"\n')
    return "\n".join(out)


def config_text(names, shorts=None, lang: str | None = None) -> str:
    """config.toml's text with its teams replaced (and its language set to `lang` if given)."""
    text = (ROOT / "config.toml").read_text(encoding="utf-8")
    start, end = text.index("[[teams]]"), text.index("# Roles (R9, R10)")
    text = text[:start] + teams_toml(names, shorts) + "\n" + text[end:]
    if lang:
        text, found = re.subn(r'(?m)^language = "\w+"', f'language = "{lang}"', text, count=1)
        assert found, "config.toml has no language line"
    return text


def config_file(folder: Path, names, shorts=None, lang: str | None = None) -> str:
    """The config written to `folder`/config.toml; its path (create_app's CONFIG)."""
    path = Path(folder) / "config.toml"
    path.write_text(config_text(names, shorts, lang), encoding="utf-8")
    return str(path)


_ids = itertools.count(1)


def game_with_names(folder: Path, names, lang: str | None = None):
    """The app on a new game with these team names, the lead "lea" (password "password1") made, and
    `run(**command)`, which books a command as her: (app, services, teams, run)."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_app({"DB": str(Path(folder) / "game.db"), "CONFIG": config_file(folder, names, lang=lang),
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    services.access.add_user("lea", "password1", "lead")

    def run(**command):
        return services.bank.execute({"id": f"names-{next(_ids)}", "actor": "lea", **command})
    return app, services, list(services.config.teams), run
