"""The paper moves as the lead types them back: one example per form, French and English.

Printed on the bank-down page and the ledgers, and shown beside the admin page's batch form; the
web reads these lines with bank/web/field/paper_syntax.py (tests/web/field/test_paper_syntax.py parses every
one). The examples say the game's own names (config.toml), never a team the game does not have:
`forms(config)` fills FORMS' fields with its first two teams (a team's ledger: that team and the next), its
resources, buildings, animals, tracks and roles. Kept here because the print pack may not import the web.
"""

from __future__ import annotations

from .labels import name, short

# (French, English, command type); the fields are the game's names (`names`).
FORMS = (
    ("{A} récolte {r1} 2", "{A} harvest {r1} 2", "harvest"),
    ("{A} construit {building}", "{A} build {building}", "build"),
    ("{A} achète {animal}", "{A} buy {animal}", "buy_animal"),
    ("{A} achète {pirate}", "{A} buy {pirate}", "buy_second_pirate"),
    ("{A} piste {t1} 2 {t2} 1", "{A} track {t1} 2 {t2} 1", "raise_tracks"),
    ("{A} jokers 3", "{A} jokers 3", "redeem_jokers"),
    ("{A} échange 10 {r1}", "{A} exchange 10 {r1}", "exchange"),
    ("{A} commerce {B} donne 2 {r1} reçoit 2 {r2}", "{A} trade {B} give 2 {r1} take 2 {r2}", "trade"),
    ("{A} commerce {B} donne 1 {r1} reçoit 1 {r2} forcé", "{A} trade {B} give 1 {r1} take 1 {r2} forced", "trade"),
    ("{B} {pirate} 1 bat {A} {harvester} 1 prend 2 {r1}", "{B} {pirate} 1 beats {A} {harvester} 1 takes 2 {r1}", "fight"),
    ("{A} {pirate} 1 perd contre {B} {builder} 1", "{A} {pirate} 1 loses to {B} {builder} 1", "fight"),
    ("{A} contribue ev1 3 {r1}", "{A} contribute ev1 3 {r1}", "contribute"),
    ("{A} prime 2 fair-play", "{A} award 2 fair play", "award"),
    ("{A} pénalité 1 triche", "{A} penalty 1 cheating", "award"),
    ("{A} compte 3 {r1} 2 {r2}", "{A} count 3 {r1} 2 {r2}", "inventory"),
    ("taux 5 1", "rate 5 1", "set_rate"),
    ("option bonus oui", "option team bonus on", "set_option"),
    ("ferme ev1", "close ev1", "close_event"),
    ("pause", "pause", "pause"),
    ("reprise", "resume", "resume"),
    ("fin de session", "end session", "end_session"),
    ("fin de partie", "end game", "end_game"),
)

NOTES = {
    "fr": ("Le nombre après la ressource est la carte de récolteur (1 si rien). Une heure en tête "
           "(« 14:32 ») est permise. Majuscules, accents, pluriels, tirets, emoji et article (« Les ») "
           "ne comptent pas ; un nom coupé sur la feuille se tape tel quel."),
    "en": ("The number after the resource is the harvester card (1 if none). A time first ('14:32') "
           "is allowed. Capitals, accents, plurals, dashes, emoji and a leading 'The' do not matter; "
           "a name cut on the sheet is typed as it is."),
}


def names(config, lang: str, team: int = 0) -> dict:
    """The fields of FORMS in the game's names, in `lang`; {A} the team at index `team`, {B} the next one."""
    teams = list(config.teams.values())
    harvestable = [r for r in config.resources.values() if r.harvestable] or list(config.resources.values())
    roles = list(config.roles.values())
    harvester = next((r for r in roles if r.harvests), roles[0])
    pirate = config.pirate_role()
    builder = next((r for r in roles if r not in (harvester, pirate)), harvester)
    tracks = list(config.tracks.values())
    return {"A": name(teams[team].label, lang), "B": name(teams[(team + 1) % len(teams)].label, lang),
            "r1": short(harvestable[0].label, lang), "r2": short(harvestable[min(1, len(harvestable) - 1)].label, lang),
            "building": name(next(iter(config.buildings.values())).label, lang),
            "animal": name(next(iter(config.animals.values())).label, lang),
            "t1": name(tracks[0].label, lang), "t2": name(tracks[min(1, len(tracks) - 1)].label, lang),
            "harvester": short(harvester.label, lang), "pirate": short(pirate.label, lang),
            "builder": short(builder.label, lang)}


def forms(config, team: int = 0) -> list:
    """FORMS in the game's names: (French, English, command type); `team`: the index of the team they name first."""
    fr, en = names(config, "fr", team), names(config, "en", team)
    return [(f.format(**fr), e.format(**en), kind) for f, e, kind in FORMS]


def examples(config, lang: str, team: int = 0) -> list:
    """One example of each form in `lang` ('it' reads the English moves), in the game's names; on a team's
    ledger (`team`: its index), that team's moves: a line written under another team's sheet is refused."""
    column = 0 if lang == "fr" else 1
    return [form[column] for form in forms(config, team)]


def notes(lang: str) -> str:
    return NOTES["fr" if lang == "fr" else "en"]
