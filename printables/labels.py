"""The printed words, in French and English; game names come from config.toml."""

from __future__ import annotations

import re
import sys

from bank.game.config_model import LANGUAGES

# Texts written for the print pack (not copied from the rules). {name} fields are
# filled by the renderers.
TEXTS = {
    "fr": {
        "strength": "Force",
        "card_all": "Une carte pour quitter la base. Portez autant de jetons que vous voulez.",
        "role_harvester": "À la banque : récoltez {tokens} d'une ressource au choix, jamais un joker. "
                          "Rapportez-le à la base avant de récolter à nouveau.",
        "role_merchant": "Allez échanger dans la base d'une autre équipe. Sans accord : échange forcé, "
                         "un jeton contre un jeton.",
        "role_builder": "À la banque : construisez, achetez des animaux et faites avancer les pistes de "
                        "terraformation.",
        "role_pirate": "Touchez un joueur d'une autre équipe : combat à la banque. Victoire : prenez ce qu'il porte.",
        "role_other": "Présentez cette carte à la banque.",
        "rounds": "Manches à gagner", "vs": "contre", "you": "vous", "them": "eux",
        "everyone_only": "* option « tout le monde se bat »",
        "wait": "Attente après un combat", "base_rule": "Règle de base", "won": "gagné", "lost": "perdu",
        "at_once": "aussitôt", "no_wait": "aucune", "card_no": "n°\u00a0{n}", "optional": "option", "extra_card": "Carte en option, achetée à la banque :",
        "back_hint": "Carte de rôle",
        "print_note": "Imprimer à 100 % (taille réelle), recto verso bord long ; chaque dos nomme le rôle de sa face. Couper sur les traits.",
        "board_bonuses": "Bonus de terraformation", "board_resources": "Ressources",
        "board_buildings": "Bâtiments", "board_animals": "Animaux", "cost": "Coût",
        "requires": "Prérequis", "effect": "Effet", "reputation": "Réputation",
        "level": "Niveau", "unlock": "Animaux en vente quand toutes les pistes atteignent ce niveau",
        "step": "Un pas : {n} {res}, +{rep} réputation", "common": "Animaux communs : un par équipe",
        "unique": "Animaux uniques : un seul dans la partie", "glue": "coller ici",
        "dice": "dé", "dice_plural": "dés", "token": "jeton", "token_plural": "jetons", "tracks_title": "Pistes de terraformation",
        "cap": "Au plus {n} bâtiments tant que vous n'avez pas de bâtiment qui lève la limite.",
        "eff_cap_exempt": "se construit toujours", "eff_lifts_cap": "lève la limite de bâtiments",
        "eff_double": "{res} : récolte doublée", "eff_triple": "{res} : récolte triplée",
        "eff_times": "{res} : récolte multipliée par {n}", "eff_discount": "les {what} achetés ensuite coûtent {n} {res} de moins",
        "eff_dice_harvest": "{n} {dice} bonus par jeton récolté", "eff_dice_build": "{n} {dice} bonus à la construction",
        "what_buildings": "bâtiments", "what_animals": "animaux", "and": "et",
        "unlock_short": "Achat d'animaux dès que toutes les pistes sont au niveau {n}.",
        "join_wifi": "1. Wi-Fi", "join_page": "2. Page de l'équipe", "network": "Réseau", "password": "Mot de passe",
        "join_scan": "Scannez avec l'appareil photo du téléphone.", "join_title": "Rejoindre la partie",
        "wifi_ask": "Demandez le Wi-Fi à l'animation.", "join_type": "ou tapez l'adresse :",
        "join_type_joined": "ou tapez l'adresse : ses {n} lignes à la suite, sans espace",
        "join_keep": "Gardez cette carte dans l'équipe : le lien est secret.",
        "poster_title": "Le tableau de la partie", "poster_open": "Ouvrez cette adresse sur le grand écran :",
        "report_title": "Bilan de la partie", "standings": "Classement", "winner": "Vainqueur",
        "report_chain": "Chaîne du journal à l'entrée n° {seq} : {hash}",
        "winners": "Ex æquo", "ended_by": "Fin de la partie", "not_ended": "La partie n'est pas terminée.",
        "end_time": "temps écoulé", "end_stopped": "arrêtée par l'animation",
        "end_reputation": "terraformation complète et {n} points de réputation atteints",
        "end_animals": "terraformation complète et {n} animaux possédés",
        "rep_over_time": "Réputation au fil du temps", "track_progress": "Progression des pistes",
        "minutes": "minutes de jeu", "rank": "Rang", "team": "Équipe", "trades": "Échanges",
        "fights": "Combats", "contributions": "Contributions aux événements", "rate_changes": "Taux de change",
        "rate": "{tokens} = {points}", "fights_line": "{won}, {lost}", "won_1": "{n} gagné", "won_n": "{n} gagnés", "lost_1": "{n} perdu",
        "lost_n": "{n} perdus",
        "board_1": "Plateau d'équipe 1 : terraformation et bâtiments",
        "board_2": "Plateau d'équipe 2 : animaux", "bank_copy": "Exemplaire de la banque",
        "discounts_apply": "Les réductions de vos bâtiments s'appliquent aux animaux.",
        "joker_note": "remplace tout jeton, ou +{n} réputation", "your_colour": "votre couleur",
        "kind_common": "commun", "kind_unique": "unique", "animals_needed": "{n} animaux",
        "end_goal": "Fin : après {minutes} min de jeu (la meilleure réputation gagne), ou terraformation "
                    "complète et une équipe à {rep} points ou {animals} animaux.",
        "kind": "Type", "bonus_hint": "Bonus pour l'équipe qui amène la piste à ce niveau",
        "animals_title": "Animaux", "slot_hint": "Posez un jeton de votre équipe sur l'animal acheté.",
        "start": "Départ", "after": "après {n} min", "free": "libre", "forced": "forcé",
        "trade_line": "{m} min · avec {other} ({kind}) : donné {gave}, reçu {got}",
        "fight_line": "{m} min · {card} contre {other} ({other_card}) : {result}",
        "more": "… et {n} de plus", "rate_line": "{m} min : {was} devient {now}", "by": "par {actor}",
        "unlock_mark": "animaux en vente (niveau {n})", "end_mark": "bout des pistes ({n})",
        "tokens_given": "{n} {tokens}", "point": "point", "point_plural": "points",
        "ruler": "100 mm : vérifiez à la règle (impression à 100 %)",
        "half_1": "1/2 · moitié gauche, posée dessus : coupez-la le long du pointillé de droite.",
        "half_2": "2/2 · moitié droite, dessous : encollez la bande en pointillés, posez la moitié gauche dessus.",
    },
    "en": {
        "strength": "Strength",
        "card_all": "You need a card to leave the base. Carry as many tokens as you like.",
        "role_harvester": "At the bank: collect {tokens} of a resource you choose, never a joker. "
                          "Bring it back to base before harvesting again.",
        "role_merchant": "Go and trade at another team's base. No deal? A forced swap, one token for one token.",
        "role_builder": "At the bank: build, buy animals and pay steps on the terraforming tracks.",
        "role_pirate": "Tag a player of another team: you fight at the bank. Win and take what they carry.",
        "role_other": "Show this card at the bank.",
        "rounds": "Rounds to win", "vs": "against", "you": "you", "them": "them",
        "everyone_only": "* only with 'everyone fights'",
        "wait": "Wait after a fight", "base_rule": "Base rule", "won": "won", "lost": "lost",
        "at_once": "at once", "no_wait": "none", "card_no": "no.\u00a0{n}", "optional": "optional", "extra_card": "Optional card, bought at the bank:",
        "back_hint": "Role card",
        "print_note": "Print at 100% (actual size), two-sided, flip on long edge; each back names its front's role. Cut on the marks.",
        "board_bonuses": "Terraforming bonuses", "board_resources": "Resources",
        "board_buildings": "Buildings", "board_animals": "Animals", "cost": "Cost",
        "requires": "Needs", "effect": "Effect", "reputation": "Reputation",
        "level": "Level", "unlock": "Animals on sale when every track reaches this level",
        "step": "One step: {n} {res}, +{rep} reputation", "common": "Common animals: one per team",
        "unique": "Unique animals: one in the whole game", "glue": "glue here",
        "dice": "die", "dice_plural": "dice", "token": "token", "token_plural": "tokens", "tracks_title": "Terraforming tracks",
        "cap": "At most {n} buildings until you own one that lifts the limit.",
        "eff_cap_exempt": "may always be built", "eff_lifts_cap": "lifts the building limit",
        "eff_double": "{res} harvest doubled", "eff_triple": "{res} harvest tripled",
        "eff_times": "{res} harvest multiplied by {n}", "eff_discount": "later {what} cost {n} {res} less",
        "eff_dice_harvest": "{n} bonus {dice} per harvested token", "eff_dice_build": "{n} bonus {dice} when built",
        "what_buildings": "buildings", "what_animals": "animals", "and": "and",
        "unlock_short": "Animals on sale once every track reaches level {n}.",
        "join_wifi": "1. Wi-Fi", "join_page": "2. Team page", "network": "Network", "password": "Password",
        "join_scan": "Scan with the phone's camera.", "join_title": "Join the game",
        "wifi_ask": "Ask the facilitators for the Wi-Fi.", "join_type": "or type the address:",
        "join_type_joined": "or type the address: its {n} lines run together, no space",
        "join_keep": "Keep this card in your team: the link is secret.",
        "poster_title": "The game board", "poster_open": "Open this address on the big screen:",
        "report_title": "Game report", "standings": "Standings", "winner": "Winner",
        "report_chain": "Journal chain at entry {seq}: {hash}",
        "winners": "Tie", "ended_by": "End of the game", "not_ended": "The game is not over.",
        "end_time": "time is up", "end_stopped": "stopped by the facilitators",
        "end_reputation": "terraforming complete and {n} reputation reached",
        "end_animals": "terraforming complete and {n} animals owned",
        "rep_over_time": "Reputation over time", "track_progress": "Track progress",
        "minutes": "minutes played", "rank": "Rank", "team": "Team", "trades": "Trades",
        "fights": "Fights", "contributions": "Event contributions", "rate_changes": "Exchange rate",
        "rate": "{tokens} = {points}", "fights_line": "{won}, {lost}", "won_1": "{n} won", "won_n": "{n} won", "lost_1": "{n} lost",
        "lost_n": "{n} lost",
        "board_1": "Team board 1: terraforming and buildings",
        "board_2": "Team board 2: animals", "bank_copy": "Bank's copy",
        "discounts_apply": "Your buildings' discounts apply to animals.",
        "joker_note": "any token, or +{n} reputation", "your_colour": "your colour",
        "kind_common": "common", "kind_unique": "unique", "animals_needed": "{n} animals",
        "end_goal": "End: after {minutes} min of play (most reputation wins), or terraforming complete "
                    "and a team at {rep} points or {animals} animals.",
        "kind": "Kind", "bonus_hint": "Bonus for the team whose step reaches the level",
        "animals_title": "Animals", "slot_hint": "Put one of your team's markers on the animal you buy.",
        "start": "Start", "after": "after {n} min", "free": "free", "forced": "forced",
        "trade_line": "{m} min · with {other} ({kind}): gave {gave}, got {got}",
        "fight_line": "{m} min · {card} against {other} ({other_card}): {result}",
        "more": "… and {n} more", "rate_line": "{m} min: {was} became {now}", "by": "by {actor}",
        "unlock_mark": "animaux en vente (niveau {n})", "end_mark": "bout des pistes ({n})",
        "unlock_mark": "animals on sale (level {n})", "end_mark": "end of the tracks ({n})",
        "tokens_given": "{n} {tokens}", "point": "point", "point_plural": "points",
        "ruler": "100 mm: check with a ruler (printed at 100%)",
        "half_1": "1/2 · left half, on top: cut it along the dashed line on the right.",
        "half_2": "2/2 · right half, underneath: glue the dashed strip, lay the left half on it.",
    },
}


def check_language(lang: str) -> str:
    """The language, or ValueError naming the ones we print."""
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    return lang


NBSP = "\u00a0"  # in Helvetica's WinAnsi encoding, unlike the narrow U+202F
_BEFORE_MARK = re.compile(r"[ \u00a0]*([:;!?»])(?=\s|$|[.,)])")
_AFTER_GUILLEMET = re.compile(r"« *")


def typo(lang: str, value: str) -> str:
    """French spacing: a no-break space before : ; ! ? and », after «; other languages unchanged.

    Only a mark followed by a space or the end is touched, so '10.0.0.2:5000' and
    'http://' stay as they are.
    """
    if lang != "fr":
        return value
    value = _BEFORE_MARK.sub(lambda m: NBSP + m.group(1), value)
    return _AFTER_GUILLEMET.sub("«" + NBSP, value)


def t(lang: str, key: str, **fields) -> str:
    """A printed sentence in `lang` with its fields filled in (French spacing applied)."""
    return typo(lang, TEXTS[check_language(lang)][key].format(**fields))


def colon(lang: str, left: str, right: str) -> str:
    """'left: right', with the no-break space French puts before a colon."""
    return f"{left}{NBSP}: {right}" if lang == "fr" else f"{left}: {right}"


def name(label, lang: str) -> str:
    """A config label ({fr, en}) in `lang`, falling back to any language given.

    On paper, a name the print fonts cannot draw whole (Hebrew, Chinese...: `config check` refuses it,
    but a game may be started without the check) is printed in another language of the label that
    they draw, which re-entry reads back too; with none, the characters they draw, or "?" rather than
    nothing: a team's row, card or ledger was left with no name at all. Only while something draws
    (fonts.py is loaded): the same words on a web page keep the name as written, the browser draws it."""
    if not isinstance(label, dict):
        return str(label)
    chosen = label.get(lang) or next(iter(label.values()), "")
    fonts = sys.modules.get("printables.fonts")
    if fonts is None or not chosen or not fonts.undrawable(chosen):
        return chosen
    whole = next((value for value in label.values() if value and not fonts.undrawable(value)), None)
    if whole is not None:
        return whole
    missing = set(fonts.undrawable(chosen))
    kept = "".join(ch for ch in chosen if ch not in missing).strip()
    return kept if any(ch.isalnum() for ch in kept) else "?"


def short(label, lang: str) -> str:
    """A config label without its parenthesis: 'Joker (reputation)' -> 'Joker'."""
    return name(label, lang).split(" (")[0]


def word(lang: str, key: str, n: int) -> str:
    """A noun agreeing with its number: word('en', 'dice', 2) -> 'dice'."""
    return t(lang, key if n == 1 else f"{key}_plural")


def count(lang: str, key: str, n: int) -> str:
    """'1 jeton', '3 jetons': a number with its agreeing noun."""
    return f"{n} {word(lang, key, n)}"


def rate_text(lang: str, tokens: int, points: int) -> str:
    """An exchange rate in words: '10 jetons = 1 point'."""
    return t(lang, "rate", tokens=count(lang, "token", tokens), points=count(lang, "point", points))
