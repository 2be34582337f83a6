"""The words of the game-state sheet, the continuation ledgers and the bank-down page."""

from __future__ import annotations

from .labels import NBSP, name, short, typo

WORDS = {
    "fr": {
        "title": "État de la partie", "printed": "Imprimé le {date} à {time} · entrée n° {seq} du journal",
        "chain": "Chaîne du journal à l'entrée n° {seq} : {hash}",
        "clock": "Horloge", "elapsed": "{elapsed} de jeu sur {duration}", "session": "session {n} sur {of}",
        "running": "en cours", "paused": "en pause", "session_over": "session terminée, la suivante pas encore lancée",
        "setup": "pas encore lancée", "ended": "partie terminée", "tracks": "Pistes de terraformation",
        "level": "niveau {n} sur {of}", "unlocked": "animaux en vente", "locked": "animaux en vente au niveau {n} partout",
        "rate": "Taux de change", "options": "Options", "on": "oui", "off": "non",
        "opt.team_bonus": "bonus d'équipe", "opt.everyone_fights": "tout le monde se bat",
        "opt.second_pirate": "deuxième pirate", "pirate_cost": "prix {cost}",
        "teams": "Équipes", "rep": "Réput.", "buildings": "Bâtiments", "animals": "Animaux", "none": "aucun",
        "harvest": "Récolte", "dice": "{n} dé bonus par jeton", "discount": "réduction {what} : {cost}",
        "what.buildings": "bâtiments", "what.animals": "animaux", "waiting": "En attente après un combat",
        "seconds": "{card} encore {s} s", "extra": "Cartes en plus", "events": "Événements ouverts",
        "no_event": "Aucun événement ouvert.", "accepts": "accepte {what}", "any": "toute ressource",
        "target": "objectif {n}", "deadline": "clôture à {t} de jeu", "rewards": "récompenses {list}",
        "given": "Reçu", "nothing": "rien", "reserve": "Réserve de la banque",
        "keep": "Si la banque s'arrête : cette feuille est le point de départ. Les registres de reprise partent "
                "de ces totaux ; la page « Banque en panne » dit quoi faire.",
        "ledger": "Registre de reprise", "from": "suite de l'état n° {seq} ({time})",
        "start": "Stock à l'état n° {seq}", "time": "Heure", "no": "N°", "move": "Mouvement (tel qu'il sera saisi)",
        "who": "Visa", "pm": "±", "total": "total",
        "ledger_help": "Une ligne numérotée par mouvement, écrite comme elle sera saisie au retour de la banque "
                       "(« {example} »), puis + reçu ou - payé et le nouveau total. À la saisie : "
                       "« feuille\u00a0{sheet} » (ses 2 derniers caractères : la clé de cette partie), puis chaque "
                       "ligne avec son numéro (« 1 {example} ») ; renvoyée d'un autre appareil, une ligne n'est jamais "
                       "comptée deux fois. Un échange ou un combat : écrit sur les deux registres, compté une fois "
                       "même saisi des deux.",
        "carry": "Page pleine : recopiez les totaux sur la ligne de départ d'une autre copie de ce registre et "
                 "écrivez 2, puis 3, dans sa case « copie » : elle se saisit « feuille\u00a0{sheet}/2 ».",
        "sheet": "Feuille", "copy": "copie",
        "points": "pts",
    },
    "en": {
        "title": "Game state", "printed": "Printed on {date} at {time} · journal entry {seq}",
        "chain": "Journal chain at entry {seq}: {hash}",
        "clock": "Clock", "elapsed": "{elapsed} played of {duration}", "session": "session {n} of {of}",
        "running": "running", "paused": "paused", "session_over": "session over, the next not started yet",
        "setup": "not started yet", "ended": "game over", "tracks": "Terraforming tracks",
        "level": "level {n} of {of}", "unlocked": "animals on sale", "locked": "animals on sale at level {n} everywhere",
        "rate": "Exchange rate", "options": "Options", "on": "on", "off": "off",
        "opt.team_bonus": "team bonus", "opt.everyone_fights": "everyone fights",
        "opt.second_pirate": "second pirate", "pirate_cost": "price {cost}",
        "teams": "Teams", "rep": "Rep.", "buildings": "Buildings", "animals": "Animals", "none": "none",
        "harvest": "Harvest", "dice": "{n} bonus die per token", "discount": "{what} discount: {cost}",
        "what.buildings": "buildings", "what.animals": "animals", "waiting": "Waiting after a fight",
        "seconds": "{card} {s} s more", "extra": "Extra cards", "events": "Open events",
        "no_event": "No open event.", "accepts": "accepts {what}", "any": "any resource",
        "target": "target {n}", "deadline": "closes at {t} of play", "rewards": "rewards {list}",
        "given": "Given", "nothing": "nothing", "reserve": "The bank's reserve",
        "keep": "If the bank stops: this sheet is where paper takes over. The continuation ledgers start "
                "from these totals; the 'Bank down' page says what to do.",
        "ledger": "Continuation ledger", "from": "continues game state {seq} ({time})",
        "start": "Stock at state {seq}", "time": "Time", "no": "No.", "move": "Move (as it will be typed)",
        "who": "Initials", "pm": "±", "total": "total",
        "ledger_help": "One numbered line per move, written as it will be typed back when the bank returns "
                       "('{example}'), then + received or - paid and the new total. To type it back: "
                       "'sheet\u00a0{sheet}' (its last 2 characters: this game's check), then each line with its "
                       "number ('1 {example}'); sent again from another device, a line is never counted twice. A trade "
                       "or a fight: written on both ledgers, counted once even if typed from both.",
        "carry": "Page full: copy the totals onto the starting row of another copy of this ledger and write 2 "
                 "(then 3...) in its 'copy' box: it is typed 'sheet\u00a0{sheet}/2'.",
        "sheet": "Sheet", "copy": "copy",
        "points": "pts",
    },
}


def w(lang: str, key: str, **fields) -> str:
    """A sentence of this module in `lang`, with French spacing."""
    return typo(lang, WORDS[lang][key].format(**fields))


def clock_text(seconds: float) -> str:
    """Game time with its units ('8 min', '1 h 05 min', '3 h'): a bare '0:08' on the sheet read as seconds."""
    hours, minutes = divmod(int(seconds // 60), 60)
    if not hours:
        return f"{minutes}{NBSP}min"
    return f"{hours}{NBSP}h" + (f" {minutes:02d}{NBSP}min" if minutes else "")


def amounts_text(config, amounts: dict, lang: str) -> str:
    """'5 Eau, 2 Flore' in the config's names; '-' when empty."""
    return ", ".join(f"{n}{NBSP}{short(config.resources[r].label, lang)}" for r, n in amounts.items() if n) or "-"


def names_text(things: dict, ids: list, lang: str, none: str) -> str:
    """Config labels of `ids` joined by commas, or `none`."""
    return ", ".join(name(things[i].label, lang) for i in ids) or none


def card_text(config, card: str, lang: str) -> str:
    """'Pirate 1' for 'pirate-1'."""
    role = config.role_of(card)
    number = card.rpartition("-")[2]
    return f"{name(role.label, lang)} {number}" if role else card
