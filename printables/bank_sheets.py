"""Bank sheets: the facilitators' one-page summary, and a paper ledger per team.

The ledger is the fallback if the bank machine dies: the facilitators keep
booking on paper and type it in later (inventory counts) when the bank is back.
"""

from __future__ import annotations

from .drawing import BOLD, FONT, GREY, INK, LIGHT, PT, colour, finish, ink_on, new_canvas, page, text
from .labels import check_language, name, short

A4 = (210.0, 297.0)
MARGIN = 12.0
LEDGER_ROWS = 32

WORDS = {
    "fr": {"title": "Banque : aide-mémoire", "harvest": "Récolte", "buildings": "Bâtiments", "animals": "Animaux",
           "tracks": "Terraformation", "fights": "Combats (manches à gagner)", "end": "Fin de partie",
           "base": "{n} jeton par récolte ; bâtiments : {doubling} ; bonus d'équipe (option) : +{bonus}, jamais doublé.",
           "lab": "Dés bonus : {dice}.", "cap": "Au plus {cap} bâtiments avant : {lifters}.",
           "step": "Un pas : {cost} {res}, +{rep} réputation.", "unlock": "Animaux : quand chaque piste atteint {level}.",
           "rate": "Change : {tokens} jetons = {points} pt. Joker rendu : {joker} pt. Un joker remplace n'importe quel jeton.",
           "cooldown": "Attente : pirate gagnant {pw} s, pirate perdant {pl} s ; « tout le monde se bat » : gagnant {ow} s.",
           "ends": "Temps écoulé ({minutes} min), ou terraformation complète et une équipe à {rep} réputation ou {animals} animaux.",
           "common": "commun", "unique": "unique", "requires": "exige", "ledger": "Registre papier",
           "ledger_help": "Si la banque informatique s'arrête : notez chaque mouvement (+ reçu, - payé), puis recomptez la boîte quand elle revient.",
           "time": "Heure", "what": "Quoi", "rep": "Rép.", "who": "Visa", "start": "Départ",
           "dice_each": "{n} par jeton récolté", "dice_built": "{n} à la construction"},
    "en": {"title": "Bank: quick reference", "harvest": "Harvest", "buildings": "Buildings", "animals": "Animals",
           "tracks": "Terraforming", "fights": "Fights (rounds to win)", "end": "End of the game",
           "base": "{n} token per harvest; buildings: {doubling}; team bonus (option): +{bonus}, never doubled.",
           "lab": "Bonus dice: {dice}.", "cap": "At most {cap} buildings before: {lifters}.",
           "step": "One step: {cost} {res}, +{rep} reputation.", "unlock": "Animals: once every track reaches {level}.",
           "rate": "Exchange: {tokens} tokens = {points} pt. Redeemed joker: {joker} pt. A joker stands in for any token.",
           "cooldown": "Waiting: winning pirate {pw} s, losing pirate {pl} s; \"everyone fights\": any winner {ow} s.",
           "ends": "Time is up ({minutes} min), or terraforming complete and a team at {rep} reputation or {animals} animals.",
           "common": "common", "unique": "unique", "requires": "needs", "ledger": "Paper ledger",
           "ledger_help": "If the bank machine stops: write every movement (+ received, - paid), then count the box when it is back.",
           "time": "Time", "what": "What", "rep": "Rep.", "who": "Initials", "start": "Start",
           "dice_each": "{n} per harvested token", "dice_built": "{n} when built"},
}


def cost_text(config, cost: dict, lang: str) -> str:
    """'5 Energy, 5 Water' in the config's resource names."""
    return ", ".join(f"{n} {short(config.resources[r].label, lang)}" for r, n in cost.items()) or "-"


def render_bank_sheets(config, lang: str | None = None) -> bytes:
    """The summary page, then one ledger page per team."""
    lang = check_language(lang or config.language)
    w = WORDS[lang]
    c, buf = new_canvas(w["title"])
    with page(c, A4):
        _summary(c, config, lang, w)
    for team in config.teams.values():
        with page(c, A4):
            _ledger(c, config, team, lang, w)
    return finish(c, buf)


class _Lines:
    """A column of text running down the page."""

    def __init__(self, c, y: float):
        self.c, self.y = c, y

    def heading(self, value: str) -> None:
        self.y -= 6
        text(self.c, value, MARGIN, self.y, 11 * PT, BOLD)
        self.y -= 1.5
        self.c.setStrokeColor(GREY)
        self.c.line(MARGIN, self.y, A4[0] - MARGIN, self.y)
        self.y -= 4

    def line(self, value: str, size: float = 9.5 * PT, font: str = FONT, x: float = MARGIN) -> None:
        text(self.c, value, x, self.y, size, font, width=A4[0] - MARGIN - x)
        self.y -= size * 1.35


def _summary(c, config, lang: str, w: dict) -> None:
    out = _Lines(c, A4[1] - MARGIN)
    text(c, w["title"], MARGIN, out.y - 4, 16 * PT, BOLD)
    out.y -= 8
    out.heading(w["harvest"])
    doubling = ", ".join(f"{name(b.label, lang)} x{m} {short(config.resources[r].label, lang)}"
                         for b in config.buildings.values() for r, m in b.harvest_multiplier.items())
    out.line(w["base"].format(n=config.harvest_base, doubling=doubling or "-", bonus=config.team_bonus))
    dice = ", ".join(f"{name(b.label, lang)} ({w['dice_each'].format(n=b.dice_per_harvested_token)}, "
                     f"{w['dice_built'].format(n=b.dice_on_build)})"
                     for b in config.buildings.values() if b.dice_per_harvested_token or b.dice_on_build)
    out.line(w["lab"].format(dice=dice or "-"))
    out.heading(w["buildings"])
    lifters = ", ".join(name(b.label, lang) for b in config.buildings.values() if b.lifts_cap)
    out.line(w["cap"].format(cap=config.building_cap, lifters=lifters or "-"))
    for b in config.buildings.values():
        needs = [name(config.buildings[r].label, lang) for r in b.requires_buildings]
        needs += [f"{b.requires_animals} {w['animals'].lower()}"] if b.requires_animals else []
        extra = f"  ({w['requires']} {', '.join(needs)})" if needs else ""
        out.line(f"{name(b.label, lang)}: {cost_text(config, b.cost, lang)}  ->  +{b.reputation}{extra}")
    out.heading(w["animals"])
    for a in config.animals.values():
        out.line(f"{name(a.label, lang)} ({w[a.kind]}): {cost_text(config, a.cost, lang)}  ->  +{a.reputation}")
    out.heading(w["tracks"])
    for t in config.tracks.values():
        out.line(f"{name(t.label, lang)}: " + w["step"].format(cost=t.step_cost, res=short(config.resources[t.resource].label, lang),
                                                             rep=t.reputation_per_step) + f" ({t.length})")
    out.line(w["unlock"].format(level=config.animal_unlock_level))
    out.heading(w["fights"])
    for p in config.fight_pairs:
        roles = " / ".join(name(config.roles[r].label, lang) for r in p.roles)
        out.line(f"{roles}: {p.rounds[0]} / {p.rounds[1]}" + ("  *" if p.everyone_fights_only else ""))
    base, every = config.cooldowns["base"], config.cooldowns["everyone_fights"]
    out.line(w["cooldown"].format(pw=base.pirate_wins, pl=base.pirate_loses, ow=every.other_wins))
    out.heading(w["end"])
    out.line(w["rate"].format(tokens=config.exchange_tokens, points=config.exchange_points, joker=config.points_per_joker))
    out.line(w["ends"].format(minutes=config.duration_seconds // 60, rep=config.reputation_threshold, animals=config.animals_threshold))


def _ledger(c, config, team, lang: str, w: dict) -> None:
    """A ruled table: time, what, one column per resource, reputation, initials."""
    top = A4[1] - MARGIN
    c.setFillColor(colour(team.colour))
    c.rect(MARGIN, top - 12, A4[0] - 2 * MARGIN, 12, stroke=0, fill=1)
    text(c, f"{w['ledger']} - {name(team.label, lang)}", MARGIN + 3, top - 8.5, 14 * PT, BOLD, fill=ink_on(team.colour))
    text(c, w["ledger_help"], MARGIN, top - 17, 8 * PT, fill=INK, width=A4[0] - 2 * MARGIN)
    resources = list(config.resources.values())
    columns = [(w["time"], 14), (w["what"], 52)] + [(short(r.label, lang), 15) for r in resources] + [(w["rep"], 12), (w["who"], 0)]
    fixed = sum(width for _, width in columns)
    columns[-1] = (w["who"], A4[0] - 2 * MARGIN - fixed)
    row_h, y0 = 7.0, top - 24
    for i in range(LEDGER_ROWS + 1):
        y = y0 - i * row_h
        if i % 2 == 0 and i:
            c.setFillColor(LIGHT)
            c.rect(MARGIN, y - row_h, A4[0] - 2 * MARGIN, row_h, stroke=0, fill=1)
    x = MARGIN
    for label, width in columns:
        text(c, label, x + 1, y0 - 5, 7 * PT, BOLD, width=width - 2)
        x += width
        c.setStrokeColor(GREY)
        c.line(x, y0, x, y0 - (LEDGER_ROWS + 1) * row_h)
    for i in range(LEDGER_ROWS + 2):
        c.line(MARGIN, y0 - i * row_h, A4[0] - MARGIN, y0 - i * row_h)
    c.line(MARGIN, y0, MARGIN, y0 - (LEDGER_ROWS + 1) * row_h)
    text(c, w["start"], MARGIN + 15, y0 - row_h - 5, 8 * PT)
    x = MARGIN + 14 + 52
    for r in resources:
        start = config.own_colour_tokens * (r.id == team.resource) + config.extra_start.get(r.id, 0)
        if start:
            text(c, str(start), x + 7.5, y0 - row_h - 5, 9 * PT, BOLD, align="centre")
        x += 15
