"""What ties a stored game to a config: the ids it was made with, and the order of its teams.

A game's rows name teams, resources, buildings... by id, so a config without one of them (or with one
more) cannot run it. The teams' order counts too: the paper ledgers name a team's sheet by its letter in
that order (bank/game/paper_sheet.py). Names may change (a reload renames a team): the sheets printed
before keep the old name, and the paper re-entry reads it (bank/web/field/paper_syntax.py), so no team may
take a name another team had then.
"""

from __future__ import annotations

import copy
import functools
import tomllib

from bank.game.typed_names import as_printed, typed_key


def identity_problems(stored: dict, current: dict) -> list[str]:
    """Per kind of id, which ids the game has that the config lacks and the reverse."""
    problems = []
    for kind in sorted(set(stored) | set(current)):
        old, new = set(stored.get(kind, [])), set(current.get(kind, []))
        if old - new:
            problems.append(f"{kind} {', '.join(sorted(old - new))} missing from the config")
        if new - old:
            problems.append(f"{kind} {', '.join(sorted(new - old))} not in the game")
    return problems


def created_teams(config_text: str | None) -> list:
    """The [[teams]] tables (id, label...) of the config text a game was created with, in its order; [] when
    that text is not a game config (a game stored before, a Trias game's kind)."""
    return copy.deepcopy(_created_teams(config_text))


@functools.lru_cache(maxsize=8)
def _created_teams(config_text: str | None) -> list:
    # Read once per text: opening a game read it twice (order_problems, name_problems), and a process opening
    # many games of one config (a worker's restart, hosted games, the tests) read the same text each time.
    try:
        teams = tomllib.loads(config_text or "").get("teams")
    except (tomllib.TOMLDecodeError, TypeError):
        return []
    return [t for t in teams if isinstance(t, dict) and isinstance(t.get("id"), str)] if isinstance(teams, list) else []


def order_problems(config_text: str | None, config) -> list:
    """[a sentence] when `config` lists the game's teams in another order than the config it was created with
    (`config_text`): a ledger's letter is its team's place in that order, so sheet 0A, printed for the first
    team, would be read as the new first team's (its trades and fights booked again from the other sheet)."""
    created = [t["id"] for t in created_teams(config_text)]
    now = list(config.teams)
    if sorted(created) != sorted(now) or created == now:
        return []  # other ids are identity_problems' to name
    return [f"teams are listed as {', '.join(now)}, the game was created with them as {', '.join(created)}: the paper "
            f"ledgers name a team's sheet by its letter in that order (sheet 0A is {created[0]}'s), so a sheet printed "
            f"before would be read as another team's; list the teams in the game's order"]


def name_problems(config_text: str | None, config) -> list:
    """Sentences for each team now called as another team was when the game was created (`config_text`): the
    sheets printed then carry that name for the other team, and the paper re-entry would give their lines to
    this one (names swapped by a reload). A team may keep or change its own name."""
    created = {t["id"]: list(t["label"].values()) if isinstance(t.get("label"), dict) else [t.get("label")]
               for t in created_teams(config_text)}
    return _taken(created, config, "when the game was created")


def kept_name_problems(kept: dict, config) -> list:
    """The same for every name the teams were opened with since (AccessRules.team_names: {id: [names]}), a name a
    reload gave a team in between two others among them: the sheets printed under it are typed back by it."""
    return _taken(kept, config, "at a start of this game")


def _taken(names: dict, config, when: str) -> list:
    problems = []
    for owner, texts in names.items():
        then = {typed_key(form) for text in texts if isinstance(text, str) for form in as_printed(text)} - {()}
        for team in config.teams.values():
            now = {typed_key(form) for text in team.label.values() for form in as_printed(text)}
            if team.id != owner and then & now:
                name = next(text for text in team.label.values() if then & {typed_key(f) for f in as_printed(text)})
                problems.append(f"team {team.id} is called {name!r}, as team {owner} was {when}: the paper ledgers "
                                f"printed then would be typed back as {team.id}'s; give {team.id} a name no other team had")
    return problems


def config_problems(journal, config) -> list:
    """What keeps `config` from running the stored game `journal` (its identity and creation meta), as sentences."""
    created = journal.meta("config_text")
    return identity_problems(journal.identity(), config.identity()) + order_problems(created, config) + \
        name_problems(created, config)
