"""The game-state sheet: the whole game on one page, where paper takes over.

Each team's stock and reputation in a table, then its buildings, animals, harvest per
resource, discounts and cards waiting after a fight; the tracks, the rate, the options,
the open events with each team's contribution, the clock and the session; when it was
printed and up to which journal entry, with the journal chain's head at that entry (a
journal rolled back or rebuilt later no longer holds it). Drawn from printables/state_data.py's snapshot.
"""

from __future__ import annotations

import time

from . import geometry as geo
from .drawing import BOLD, FONT, GREY, INK, LIGHT, MONO, PT, colour, finish, ink_on, new_canvas, page, paragraph, stringWidth, text
from .geometry import Box
from .labels import check_language, name, rate_text, short, typo
from .name_lines import fit_name
from .state_words import amounts_text, card_text, clock_text, names_text, w

MARGIN = 12.0
SMALL = 8.5 * PT  # the smallest type on the sheet, above the pack's 8 pt floor


def render_state(snap: dict, config, lang: str | None = None, paper: str = "a4") -> bytes:
    """One page, portrait, on A4 or Letter."""
    lang = check_language(lang or config.language)
    c, buf = new_canvas(w(lang, "title"))
    draw_state(c, snap, config, lang, geo.paper_size(paper))
    return finish(c, buf)


def printed_words(snap: dict, lang: str) -> dict:
    """The date and time of printing, as the sheet and the ledgers say them."""
    moment = time.localtime(snap["printed_at"])
    return {"date": time.strftime("%d/%m/%Y" if lang == "fr" else "%Y-%m-%d", moment),
            "time": time.strftime("%H:%M", moment), "seq": snap["seq"]}


def draw_state(c, snap: dict, config, lang: str, sheet: tuple) -> None:
    """The sheet as one page of `c` (the autosaved file puts the ledgers after it)."""
    with page(c, sheet):
        x, width = MARGIN, sheet[0] - 2 * MARGIN
        y = sheet[1] - MARGIN
        text(c, w(lang, "title"), x, y - 6, 18 * PT, BOLD)
        text(c, w(lang, "printed", **printed_words(snap, lang)), x + width, y - 5.5, 10 * PT, BOLD, INK, "right",
             width=width * 0.55)
        y -= 9
        if snap.get("chain"):  # the whole hash: `terrabank verify --at <entry>` prints the same
            text(c, w(lang, "chain", seq=snap["seq"], hash=snap["chain"]), x, y - 3, SMALL, MONO, INK, width=width)
            y -= 5
        y -= paragraph(c, w(lang, "keep"), Box(x, y - 8, width, 8), 9 * PT, smallest=SMALL) + 2
        y = _clock_rate_options(c, snap, config, lang, x, y, width)
        y = _tracks(c, snap, config, lang, x, y, width)
        y = _teams(c, snap, config, lang, x, y, width)
        _events(c, snap, config, lang, Box(x, MARGIN, width, y - MARGIN))


NAME_W = 34.0  # the stock table's name column


def team_name_lines(label, lang: str) -> tuple:
    """(size, lines) of a team's name in the stock table: one line at 11 pt or 9.5 pt, else two lines
    at 9.5 pt or 8.5 pt, broken and, past that, cut by printables/name_lines.py's rule."""
    value = name(label, lang)
    for size in (11 * PT, 9.5 * PT):
        if stringWidth(value, BOLD, size) <= NAME_W - 4:
            return size, [value]
    return fit_name(value, BOLD, (9.5 * PT, SMALL), NAME_W - 4, 2)


def _heading(c, title: str, x: float, y: float, width: float) -> float:
    text(c, title, x, y - 4.5, 11 * PT, BOLD)
    c.setStrokeColor(GREY)
    c.setLineWidth(0.3)
    c.line(x, y - 6, x + width, y - 6)
    return y - 7.5


def _clock_rate_options(c, snap, config, lang, x, y, width) -> float:
    clock = snap["clock"]
    status = "ended" if snap["ended"] else "session_over" if clock["session_over"] else clock["status"]
    clock_line = " · ".join((w(lang, "elapsed", elapsed=clock_text(clock["elapsed"]), duration=clock_text(clock["duration"])),
                             w(lang, "session", n=max(1, clock["session"]), of=clock["sessions"]), w(lang, status)))
    rate = snap["rate"]
    options = []
    for option in ("team_bonus", "everyone_fights", "second_pirate"):
        value = w(lang, "on" if snap["options"].get(option) else "off")
        extra = f" ({w(lang, 'pirate_cost', cost=amounts_text(config, snap['second_pirate_cost'], lang))})" \
            if option == "second_pirate" and snap["options"].get(option) else ""
        options.append(f"{w(lang, 'opt.' + option)} : {value}{extra}" if lang == "fr" else f"{w(lang, 'opt.' + option)}: {value}{extra}")
    rows = ((w(lang, "clock"), clock_line), (w(lang, "rate"), rate_text(lang, rate["tokens"], rate["points"])),
            (w(lang, "options"), " · ".join(typo(lang, o) for o in options)))
    for label, value in rows:
        text(c, label, x, y - 4.2, 10 * PT, BOLD)
        text(c, value, x + 34, y - 4.2, 10 * PT, BOLD if label == w(lang, "rate") else FONT, width=width - 34)
        y -= 5.2
    return y - 1.5


def _tracks(c, snap, config, lang, x, y, width) -> float:
    unlock = config.animal_unlock_level
    note = w(lang, "unlocked") if snap["animals_unlocked"] else w(lang, "locked", n=unlock)
    y = _heading(c, f"{w(lang, 'tracks')} · {note}", x, y, width)
    label_w, box_h = 38.0, 5.5
    for track_id, track in config.tracks.items():
        level, length = snap["tracks"][track_id]["level"], track.length
        text(c, name(track.label, lang), x, y - 4.2, 10 * PT, BOLD, width=label_w - 2)
        cell = min(9.0, (width - label_w - 34) / length)
        for n in range(1, length + 1):
            bx = x + label_w + (n - 1) * cell
            c.setFillColor(colour(config.resources[track.resource].colour) if n <= level else LIGHT)
            c.setStrokeColor(INK)
            c.setLineWidth(0.3 if n != unlock else 0.9)
            c.rect(bx, y - box_h, cell, box_h, stroke=1, fill=1)
            text(c, str(n), bx + cell / 2, y - 4.1, 8.5 * PT, BOLD,
                 ink_on(config.resources[track.resource].colour) if n <= level else GREY, "centre")
        text(c, w(lang, "level", n=level, of=length), x + label_w + length * cell + 3, y - 4.2, 10 * PT, BOLD,
             width=width - label_w - length * cell - 3)
        y -= box_h + 1.5
    return y - 1.5


def _teams(c, snap, config, lang, x, y, width) -> float:
    """The stock table, then each team's lines (buildings, animals, harvest, waiting cards)."""
    y = _heading(c, w(lang, "teams"), x, y, width)
    resources = list(config.resources.values())
    name_w = NAME_W
    col = (width - name_w) / (len(resources) + 1)
    for i, res in enumerate(resources):
        text(c, short(res.label, lang), x + name_w + (i + 0.5) * col, y - 4, 9 * PT, BOLD, INK, "centre", width=col - 1)
    text(c, w(lang, "rep"), x + name_w + (len(resources) + 0.5) * col, y - 4, 9 * PT, BOLD, INK, "centre", width=col - 1)
    y -= 5.5
    for team in snap["teams"]:
        size, lines = team_name_lines(team["label"], lang)
        row_h = 6.5 if len(lines) == 1 else 9.0
        c.setFillColor(colour(team["colour"]))
        c.rect(x, y - row_h, name_w - 1, row_h, stroke=0, fill=1)
        if len(lines) == 1:
            text(c, lines[0], x + 1.5, y - 4.7, size, BOLD, ink_on(team["colour"]))
        else:
            for i, line in enumerate(lines):
                text(c, line, x + 1.5, y - 3.6 - i * size * 1.05, size, BOLD, ink_on(team["colour"]))
        c.setFillColor(LIGHT)
        c.rect(x + name_w, y - row_h, width - name_w, row_h, stroke=0, fill=1)
        values = [team["stock"].get(r.id, 0) for r in resources] + [team["reputation"]]
        for i, value in enumerate(values):
            text(c, str(value), x + name_w + (i + 0.5) * col, y - row_h / 2 - 1.6, 12 * PT, BOLD, INK, "centre")
        y -= row_h + 1
        for line in _team_lines(team, config, lang):
            y -= paragraph(c, line, Box(x + 2, y - 8, width - 2, 8), 9 * PT, smallest=SMALL) + 0.4
        y -= 1.5
    return y


def _team_lines(team: dict, config, lang: str) -> list:
    sep = " : " if lang == "fr" else ": "
    none = w(lang, "none")
    harvest = ", ".join(f"{short(config.resources[r].label, lang)} {n}" for r, n in team["harvest"].items())
    extras = [harvest]
    if team["dice_per_token"]:
        word = "dé" if lang == "fr" else "die"
        plural = {"fr": "dés", "en": "dice"}[lang] if team["dice_per_token"] > 1 else word
        extras.append(w(lang, "dice", n=team["dice_per_token"]).replace(f" {word} ", f" {plural} "))
    for kind, cost in team["discounts"].items():
        extras.append(w(lang, "discount", what=w(lang, "what." + kind), cost=amounts_text(config, cost, lang)))
    lines = [typo(lang, f"{w(lang, 'buildings')}{sep}{names_text(config.buildings, team['buildings'], lang, none)} · "
                        f"{w(lang, 'animals')}{sep}{names_text(config.animals, team['animals'], lang, none)}"),
             typo(lang, f"{w(lang, 'harvest')}{sep}{' · '.join(extras)}")]
    if team["extra_cards"]:
        lines.append(typo(lang, f"{w(lang, 'extra')}{sep}{', '.join(card_text(config, k, lang) for k in team['extra_cards'])}"))
    if team["waiting"]:
        waits = ", ".join(w(lang, "seconds", card=card_text(config, k, lang), s=s) for k, s in team["waiting"].items())
        lines.append(typo(lang, f"{w(lang, 'waiting')}{sep}{waits}"))
    return lines


def _events(c, snap, config, lang, box: Box) -> None:
    y = _heading(c, w(lang, "events"), box.x, box.top, box.w)
    if not snap["events"]:
        text(c, w(lang, "no_event"), box.x, y - 4, 10 * PT)
        y -= 6
    teams = {t["id"]: t for t in snap["teams"]}
    sep = " : " if lang == "fr" else ": "
    for event in snap["events"]:
        accepts = ", ".join(short(config.resources[r].label, lang) for r in event["accepts"]) or w(lang, "any")
        facts = [w(lang, "accepts", what=accepts)]
        if event.get("target"):
            facts.append(w(lang, "target", n=event["target"]))
        if event.get("deadline") is not None:
            facts.append(w(lang, "deadline", t=clock_text(event["deadline"])))
        rewards = " · ".join(_reward(r, lang) for r in event["rewards"])
        facts.append(w(lang, "rewards", list=rewards))
        given = ", ".join(f"{name(teams[t]['label'], lang)} {n}" for t, n in event["given"].items()) or w(lang, "nothing")
        line = typo(lang, f"{event['id'][2:]}. {event['title']} · {' · '.join(facts)} · {w(lang, 'given')}{sep}{given}")
        if y - 9 < box.y:
            break
        y -= paragraph(c, line, Box(box.x, y - 9, box.w, 9), 9.5 * PT, smallest=SMALL) + 1
    reserve = amounts_text(config, snap["reserve"], lang)
    if y - 6 >= box.y:
        text(c, typo(lang, f"{w(lang, 'reserve')}{sep}{reserve}"), box.x, max(box.y + 1, y - 5), 9 * PT, FONT, GREY, width=box.w)


def _reward(reward: dict, lang: str) -> str:
    if "points" in reward:
        n = reward["points"]
        return f"{n} {'point' if n == 1 else 'points'}"
    n = reward.get("jokers", 0)
    return f"{n} {'joker' if n == 1 else 'jokers'}"
