"""The report's "why": awards and penalties with their reasons, events, exchanges, options, sessions, animals (item 16)."""

from __future__ import annotations

from .drawing import BOLD, FONT, PT, fit_size, paragraph, text, wrap
from .geometry import A4, Box
from .icons import in_words
from .labels import count, name, typo

# The report's page area, here because report.py draws its pages from these sections too.
AREA = Box(14, 14, A4[0] - 28, A4[1] - 28)

# A team's name is never the subject of a conjugated verb: names are often plural ("Verts") and
# facilitators type their own, so "Verts achète" would be wrong as often as right. A colon, a noun
# or "en tête" reads right whatever the name's number.
W = {
    "fr": {"title": "Ce qui a fait la partie", "none": "Rien de plus à signaler.",
           "award": "{team} : {points} par l'animation, raison : « {reason} »",
           "penalty": "{team} : pénalité de {points}, raison : « {reason} »",
           "exchange": "{team} : échange de {tokens} contre {points}",
           "option_on": "option « {option} » activée", "option_off": "option « {option} » désactivée",
           "session_ended": "fin de la session {n}", "clock_resumed": "reprise du jeu",
           "event_closed": "événement « {title} » clos : {ranks}", "rank": "{n}. {team} ({reward})",
           "nothing": "rien", "animal_bought": "{team} : achat de l'animal unique {animal}",
           "animals_unlocked": "toutes les pistes au niveau voulu : animaux en vente",
           "game_ended": "fin de la partie",
           "building_built": "{team} : construction du bâtiment {building}",
           "terraformation_complete": "terraformation complète : toutes les pistes au dernier niveau",
           "new_leader": "{team} en tête avec {points}", "new_leader_from": "{team} en tête avec {points}, devant {was}",
           "inventory": "{team} : stock corrigé après comptage ({changes}), raison : « {reason} »",
           "inventory_bare": "{team} : stock corrigé après comptage ({changes}), sans raison notée",
           "refill": "jetons remis dans les bols de la banque : {tokens}",
           "animal_common": "{team} : achat de l'animal {animal}",
           "clock_started": "début de la partie", "clock_paused": "jeu en pause",
           "session_started": "début de la session {n}",
           "bank_down": "la banque était arrêtée (environ {n} min) : à son redémarrage elle a mis le jeu en pause, ce temps ne compte pas",
           "clock_back": "au redémarrage de la banque, l'horloge de la machine avait reculé de {n} s : jeu mis en pause",
           "clock_jump": "l'horloge de la machine a sauté de {n} s : la banque a mis le jeu en pause",
           "paper_1": "1 écriture ressaisie depuis les registres papier{by}",
           "paper_n": "{n} écritures ressaisies depuis les registres papier{by}", "by": " par {actor}",
           "paper_undone_1": ", dont 1 annulée ensuite, raison : « {reasons} »",
           "paper_undone_n": ", dont {k} annulées ensuite, raison : « {reasons} »",
           "undone": "écriture de la minute {m} annulée ({what}{team}), raison : « {reason} »",
           "what": {"award": "points de l'animation", "trade": "échange", "fight": "combat", "harvest": "récolte",
                    "build": "construction", "buy_animal": "achat d'animal", "exchange": "change",
                    "contribute": "don à un événement", "raise_tracks": "avancée des pistes",
                    "inventory": "comptage", "refill": "bols remplis", "redeem_jokers": "jokers rendus"},
           "options": {"team_bonus": "bonus d'équipe", "everyone_fights": "tout le monde se bat",
                       "second_pirate": "deuxième pirate"}},
    "en": {"title": "What made the game", "none": "Nothing else to tell.",
           "award": "{team}: {points} from the facilitators, reason: '{reason}'",
           "penalty": "{team}: penalty of {points}, reason: '{reason}'",
           "exchange": "{team}: {tokens} exchanged for {points}",
           "option_on": "option '{option}' switched on", "option_off": "option '{option}' switched off",
           "session_ended": "end of session {n}", "clock_resumed": "play resumes",
           "event_closed": "event '{title}' closed: {ranks}", "rank": "{n}. {team} ({reward})",
           "nothing": "nothing", "animal_bought": "{team}: bought the unique animal {animal}",
           "animals_unlocked": "every track at the level needed: animals on sale",
           "game_ended": "end of the game",
           "building_built": "{team}: built {building}",
           "terraformation_complete": "terraformation complete: every track at its last level",
           "new_leader": "{team} in the lead with {points}", "new_leader_from": "{team} in the lead with {points}, ahead of {was}",
           "inventory": "{team}: stock corrected after a count ({changes}), reason: '{reason}'",
           "inventory_bare": "{team}: stock corrected after a count ({changes}), no reason noted",
           "refill": "tokens put back in the bank's bowls: {tokens}",
           "animal_common": "{team}: bought the animal {animal}",
           "clock_started": "the game starts", "clock_paused": "play paused",
           "session_started": "start of session {n}",
           "bank_down": "the bank was down (about {n} min): on restarting it paused the game, that time does not count",
           "clock_back": "on the bank's restart the machine's clock had gone back {n} s: play paused",
           "clock_jump": "the machine's clock jumped by {n} s: the bank paused the game",
           "paper_1": "1 move re-entered from the paper ledgers{by}",
           "paper_n": "{n} moves re-entered from the paper ledgers{by}", "by": " by {actor}",
           "paper_undone_1": ", 1 of them undone afterwards, reason: '{reasons}'",
           "paper_undone_n": ", {k} of them undone afterwards, reason: '{reasons}'",
           "undone": "entry of minute {m} undone ({what}{team}), reason: '{reason}'",
           "what": {"award": "facilitators' points", "trade": "trade", "fight": "fight", "harvest": "harvest",
                    "build": "building", "buy_animal": "animal bought", "exchange": "exchange",
                    "contribute": "gift to an event", "raise_tracks": "tracks raised",
                    "inventory": "count", "refill": "bowls refilled", "redeem_jokers": "jokers redeemed"},
           "options": {"team_bonus": "team bonus", "everyone_fights": "everyone fights",
                       "second_pirate": "second pirate"}},
}


def moment_line(config, event: dict, titles: dict, lang: str) -> str:
    """One moment of the game as a sentence starting with its game minute."""
    w = W[lang]
    team = name(config.teams[event["team"]].label, lang) if event.get("team") in config.teams else ""
    kind = event["type"]
    if kind == "award":
        key = "award" if event["points"] >= 0 else "penalty"
        said = w[key].format(team=team, points=count(lang, "point", abs(event["points"])), reason=event["reason"])
    elif kind == "exchange":
        said = w["exchange"].format(team=team, tokens=in_words(config, event["tokens"], lang),
                                    points=count(lang, "point", event["points"]))
    elif kind == "option_set":
        option = w["options"].get(event["option"], event["option"])
        said = w["option_on" if event["value"] else "option_off"].format(option=option)
    elif kind == "session_ended":
        said = w["session_ended"].format(n=event["session"])
    elif kind == "event_closed":
        said = w["event_closed"].format(title=titles.get(event["event"], event["event"]),
                                        ranks=", ".join(_rank(config, entry, lang) for entry in event["ranking"]) or "-")
    elif kind == "building_built":
        building = name(config.buildings[event["building"]].label, lang)
        said = w["building_built"].format(team=team, building=building)
    elif kind == "new_leader":
        was = name(config.teams[event["was"]].label, lang) if event.get("was") in config.teams else ""
        said = w["new_leader_from" if was else "new_leader"].format(team=team, was=was,
                                                                    points=count(lang, "point", event["points"]))
    elif kind == "animal_bought":
        unique = config.animals[event["animal"]].kind != "common"
        said = w["animal_bought" if unique else "animal_common"].format(
            team=team, animal=name(config.animals[event["animal"]].label, lang))
    elif kind in EXTRA:
        said = EXTRA[kind](config, event, w, team, lang)
    else:
        said = w.get(kind, kind)
    return typo(lang, f"{round(event['minute'])} min · {said}")


def _inventory(config, event: dict, w: dict, team: str, lang: str) -> str:
    changes = ", ".join(f"{'+' if n > 0 else '−'}{in_words(config, {r: abs(n)}, lang)}"
                        for r, n in event["changes"].items()) or "="
    key = "inventory" if event.get("reason") else "inventory_bare"
    return w[key].format(team=team, changes=changes, reason=event.get("reason", ""))


def _paused(config, event: dict, w: dict, team: str, lang: str) -> str:
    """A facilitator's pause, or the bank's own after it was down or the machine's clock jumped (R34)."""
    cause = event.get("cause")
    if not cause:
        return w["clock_paused"]
    seconds = round(cause.get("seconds", 0))
    if cause.get("kind") == "clock_jump_at_start":
        return w["bank_down"].format(n=max(1, round(seconds / 60))) if seconds > 0 else w["clock_back"].format(n=-seconds)
    return w["clock_jump"].format(n=f"{seconds:+d}")


def _paper(config, event: dict, w: dict, team: str, lang: str) -> str:
    by = w["by"].format(actor=event["actor"]) if event.get("actor") else ""
    said = w["paper_1" if event["moves"] == 1 else "paper_n"].format(n=event["moves"], by=by)
    undone = event.get("undone") or []
    if undone:  # the duplicates typed twice and undone: counted above, so said here
        reasons = " ; ".join(dict.fromkeys(r for r in undone if r)) or "-"
        said += w["paper_undone_1" if len(undone) == 1 else "paper_undone_n"].format(k=len(undone), reasons=reasons)
    return said


def _undone(config, event: dict, w: dict, team: str, lang: str) -> str:
    """An entry undone (a reversal), with what it was and why: the standings no longer count it."""
    what = w["what"].get(event.get("what"), event.get("what") or "?")
    minute = round(event["was_minute"]) if event.get("was_minute") is not None else "?"
    teams = [name(config.teams[x].label, lang) for x in event.get("teams", []) if x in config.teams]
    return w["undone"].format(m=minute, what=what, team="".join(f", {x}" for x in teams), reason=event.get("reason", ""))


EXTRA = {
    "inventory": _inventory,
    "refill": lambda config, e, w, team, lang: w["refill"].format(tokens=in_words(config, e["amounts"], lang)),
    "clock_paused": _paused,
    "session_started": lambda config, e, w, team, lang: w["session_started"].format(n=e["session"]),
    "paper_reentry": _paper,
    "undone": _undone,
}


def _rank(config, entry: dict, lang: str) -> str:
    """'1. Blue (3 points)' for one team in an event's ranking."""
    reward = entry.get("reward") or {}
    parts = ([count(lang, "point", reward["points"])] if reward.get("points") else []) + \
            ([f"{reward['jokers']} {'joker' if reward['jokers'] == 1 else 'jokers'}"] if reward.get("jokers") else [])
    return W[lang]["rank"].format(n=entry["rank"], team=name(config.teams[entry["team"]].label, lang),
                                  reward=", ".join(parts) or W[lang]["nothing"])


def moments_section(flow, summary, config, lang: str, titles: dict | None = None) -> None:
    """The moments, in game order, under a title; a new page when they do not fit."""
    titles = titles or summary.event_titles

    lines = [moment_line(config, m, titles, lang) for m in summary.moments] or [W[lang]["none"]]
    top = flow.need(10)
    text(flow.c, W[lang]["title"], AREA.x, top - 5, 12 * PT, BOLD)
    for line in lines:  # each moment whole, on as many lines as it takes: a correction's reason is never cut
        height = whole_height(line, AREA.w - 3)
        top = flow.need(height + 0.4)
        paragraph(flow.c, line, Box(AREA.x + 3, top - height - 0.4, AREA.w - 3, height + 0.4), LINE_SIZE,
                  smallest=LINE_SIZE)
        flow.y = top - height - 0.4


LINE_SIZE = 9 * PT


def whole_height(line: str, width: float, size: float = LINE_SIZE) -> float:
    """The height `line` takes wrapped to `width` at `size` (1.2 leading): room for every word."""
    return len(wrap(line, FONT, size, width, "any")) * size * 1.2


HEADS = {
    "fr": {"title": "D'où viennent les points", "building": "Bâtiments", "track": "Pistes", "animal": "Animaux",
           "redeem_jokers": "Jokers", "exchange": "Change", "event": "Événements", "award": "Animation",
           "total": "Total"},
    "en": {"title": "Where the points came from", "building": "Buildings", "track": "Tracks", "animal": "Animals",
           "redeem_jokers": "Jokers", "exchange": "Exchange", "event": "Events", "award": "Facilitators",
           "total": "Total"},
}


NAME_WIDTH = 38  # mm of the sources table's name column
NAME_LEADING = 3.4  # mm between the lines of a name on two lines


def name_lines(label: str) -> tuple:
    """(size, lines) of a team's name in the sources table: one line at 10 pt down to 8.5, else
    wrapped at 8.5 pt (a 30-letter name shrunk to one line fell to 6 pt)."""
    size = fit_size(label, BOLD, 10 * PT, NAME_WIDTH)
    if size >= 8.5 * PT:
        return size, [label]
    return 8.5 * PT, wrap(label, BOLD, 8.5 * PT, NAME_WIDTH, "any")


def sources_table(flow, summary, config, lang: str) -> None:
    """Each team's points by source, in ranking order: why the winner is ahead (R31)."""
    from .report_data import SOURCES

    heads = HEADS[lang]
    rows = summary.standings
    names = [name_lines(name(row["label"], lang)) for row in rows]
    top = flow.need(14 + sum(6.5 + (len(lines) - 1) * NAME_LEADING for _, lines in names))
    c = flow.c
    text(c, heads["title"], AREA.x, top - 5, 12 * PT, BOLD)
    first, step = AREA.x + 40, (AREA.w - 40) / (len(SOURCES) + 1)
    y = top - 11
    keys = (*SOURCES, "total")
    # One size for every header: each shrunk on its own made the longest one ("Événements") look smaller.
    size = min(fit_size(heads[key], BOLD, 9 * PT, step - 1) for key in keys)
    for i, key in enumerate(keys):
        text(c, heads[key], first + (i + 0.5) * step, y, size, BOLD, align="centre")
    for row, (name_size, lines) in zip(rows, names):
        y -= 6.5
        for k, line in enumerate(lines):
            text(c, line, AREA.x, y - k * NAME_LEADING, name_size, BOLD)
        sources = summary.teams[row["team"]].sources
        values = [sources.get(key, 0) for key in SOURCES] + [row["reputation"]]
        for i, value in enumerate(values):
            total = i == len(SOURCES)  # a total of 0 is a score (the standings say 0), not an empty source
            text(c, str(value) if value or total else "·", first + (i + 0.5) * step, y, 10 * PT,
                 BOLD if i == len(SOURCES) else FONT, align="centre")
        y -= (len(lines) - 1) * NAME_LEADING
    flow.y = y - 4
