"""Trias in words for the terminal: moves, what a row did and the board summary, in English, French or Italian."""

from __future__ import annotations

import json

from bank.cli.trias_map import board_map, masses_map, mass_letters
from bank.cli.trias_words import YOU, count, is_one, kind_name, lang_of, level_name, phase_name, say
from trias.hexes import distance, label

# Moves and events, per language: {name} fields filled by command_text and narrate.
TEXT = {
    "en": {
        "place": "place 2 herds on {at} ({kind})", "play_none": "play your {card} card (no drift is possible, T11)",
        "play": "play your {card} card: drift {drift}", "draw": "draw the top card and drift it",
        "drift": "drift {drift}{cost}", "cost": " (3 points)", "move": "move a herd {a} -> {b}{fresh}",
        "fresh": " (a herd that may still reproduce)", "rescue": "rescue {pairs}", "reproduce": "reproduce on {at}",
        "end_turn": "end the turn",
        "placed": "placed {herds} on {at}", "card_played": "played {card}", "card_drawn": "drew {card}",
        "drifted": "drifted {kind} {a} -> {b}", "drift_skipped": "no drift possible (T11)", "moved": "moved {a} -> {b}",
        "rescued": "rescued {pairs}", "born": "a herd was born on {at}",
        "returned": "{herds} {of_name} back to stock from {at} ({reason})",
        "returned_n": "{herds} {of_name} back to stock from {at} ({reason})", "scored": "{reason} scoring ({rule}): {got}",
        "nobody_scores": "nobody scores", "last_round": "the Meteorite Impact: last round (T17)",
        "turn_started": "now {name}'s turn", "turn_started_you": "now your turn",
        "game_over": "game over: {names} {win}", "win1": "wins", "win2": "win", "and": " and ",
        "undone": "took back {moves}", "nothing": "(nothing to show)",
        "title": "Trias game {id} ({mode}), journal entry {seq}",
        "deck": "Deck: {cards} ({deck2} of deck 2). Cards seen: {seen}.",
        "seat": "  {i}. {name} ({kind}): {points}, {stock} in stock, {board} on the board, hand: {hand}",
        "computer": "computer {level}", "person": "person", "no_card": "no card",
        "scores_final": "Scores: {list}", "interim": "interim", "final": "final",
        "distance": "distance", "reason_swimming": "swimming", "reason_overpopulation": "overpopulation",
        "mode_play": "play", "mode_mirror": "mirror", "win_you1": "win", "win_you2": "win",
    },
    "fr": {
        "place": "poser 2 troupeaux sur {at} ({kind})", "play_none": "jouer votre carte {card} (aucune dérive possible, T11)",
        "play": "jouer votre carte {card} : dériver {drift}", "draw": "piocher la carte du dessus et la dériver",
        "drift": "dériver {drift}{cost}", "cost": " (3 points)", "move": "déplacer un troupeau {a} -> {b}{fresh}",
        "fresh": " (un troupeau qui peut encore se reproduire)", "rescue": "sauver {pairs}",
        "reproduce": "naissance sur {at}", "end_turn": "finir le tour",
        "placed": "a posé {herds} sur {at}", "card_played": "a joué {card}", "card_drawn": "a pioché {card}",
        "drifted": "a dérivé {kind} {a} -> {b}", "drift_skipped": "aucune dérive possible (T11)",
        "moved": "a déplacé {a} -> {b}", "rescued": "a sauvé {pairs}", "born": "un troupeau est né sur {at}",
        "returned": "{herds} {of_name} rendu à la réserve depuis {at} ({reason})",
        "returned_n": "{herds} {of_name} rendus à la réserve depuis {at} ({reason})",
        "scored": "décompte {reason} ({rule}) : {got}", "nobody_scores": "personne ne marque",
        "last_round": "l'Impact de météorite : dernier tour (T17)", "turn_started": "au tour de {name}", "turn_started_v": "au tour d'{name}",
        "turn_started_you": "à vous de jouer", "game_over": "partie terminée : {names} {win}",
        "win1": "gagne", "win2": "gagnent", "and": " et ", "undone": "{moves} repris", "nothing": "(rien à montrer)",
        "title": "Partie de Trias {id} ({mode}), entrée {seq} du journal",
        "deck": "Pioche : {cards} ({deck2} de la pioche 2). Cartes vues : {seen}.",
        "seat": "  {i}. {name} ({kind}) : {points}, {stock} en réserve, {board} sur le plateau, main : {hand}",
        "computer": "ordinateur {level}", "person": "personne", "no_card": "aucune carte",
        "scores_final": "Scores : {list}", "interim": "intermédiaire", "final": "final",
        "distance": "distance", "reason_swimming": "à la nage", "reason_overpopulation": "surpopulation",
        "mode_play": "jouée ici", "mode_mirror": "miroir d'une vraie table",
        "win_you1": "gagnez", "win_you2": "gagnez",
    },
    # Italian: what a row did is said without a verb's person ("carta giocata: Bosco"), so it reads right
    # after any name, "Tu" included; the moves offered are infinitives, as on the pages.
    "it": {
        "place": "piazzare 2 branchi su {at} ({kind})",
        "play_none": "giocare la tua carta {card} (nessuna deriva possibile, T11)",
        "play": "giocare la tua carta {card}, deriva: {drift}",
        "draw": "pescare la prima carta del mazzo e giocarla", "drift": "deriva: {drift}{cost}", "cost": " (3 punti)",
        "move": "spostare un branco {a} -> {b}{fresh}", "fresh": " (un branco che può ancora riprodursi)",
        "rescue": "salvare {pairs}", "reproduce": "nascita su {at}", "end_turn": "finire il turno",
        "placed": "piazzamento di {herds} su {at}", "card_played": "carta giocata: {card}",
        "card_drawn": "carta pescata: {card}", "drifted": "deriva: {kind} {a} -> {b}",
        "drift_skipped": "nessuna deriva possibile (T11)", "moved": "branco spostato {a} -> {b}",
        "rescued": "salvataggio {pairs}", "born": "è nato un branco su {at}",
        "returned": "rientro in riserva: {herds} {of_name} da {at} ({reason})",
        "returned_n": "rientro in riserva: {herds} {of_name} da {at} ({reason})",
        "scored": "conteggio {reason} ({rule}): {got}", "nobody_scores": "nessuno segna punti",
        "last_round": "Impatto del meteorite: ultimo giro (T17)", "turn_started": "tocca a {name}",
        "turn_started_v": "tocca a {name}", "turn_started_you": "tocca a te",
        "game_over": "partita finita: {names} {win}", "win1": "vince", "win2": "vincono", "and": " e ",
        "undone": "annullamento di {moves}", "nothing": "(niente da mostrare)",
        "title": "Partita di Trias {id} ({mode}), voce {seq} del registro",
        "deck": "Mazzo: {cards} ({deck2} del mazzo 2). Carte viste: {seen}.",
        "seat": "  {i}. {name} ({kind}): {points}, {stock} in riserva, {board} sulla plancia, in mano: {hand}",
        "computer": "computer {level}", "person": "persona", "no_card": "nessuna carta",
        "scores_final": "Punteggi: {list}", "interim": "intermedio", "final": "finale",
        "distance": "distanza", "reason_swimming": "a nuoto", "reason_overpopulation": "sovrappopolazione",
        "mode_play": "giocata qui", "mode_mirror": "specchio di un tavolo vero", "win_you1": "vinci",
        "win_you2": "vincete",
    },
}


def _t(lang, key: str, **params) -> str:
    return TEXT[lang_of(lang)][key].format(**params)


def _pl(place) -> str:
    return label(tuple(place))


def _pairs(herds) -> str:
    return " + ".join(f"{_pl(a)} -> {_pl(b)}" for a, b in herds)


def command_text(cmd: dict, state, lang="en") -> str:
    """A legal command in words."""
    kind = cmd["type"]
    if kind == "place":
        return _t(lang, "place", at=_pl(cmd["at"]), kind=kind_name(lang, state.tiles[tuple(cmd["at"])]))
    if kind == "play":
        card = kind_name(lang, cmd.get("card") or state.hands[state.current])
        if "tile" not in cmd:
            return _t(lang, "play_none", card=card)
        return _t(lang, "play", card=card, drift=_drift_text(cmd, state, lang))
    if kind == "draw":
        return _t(lang, "draw")
    if kind == "drift":
        return _t(lang, "drift", drift=_drift_text(cmd, state, lang),
                  cost=_t(lang, "cost") if state.phase == "actions" else "")
    if kind == "move":
        return _t(lang, "move", a=_pl(cmd["from"]), b=_pl(cmd["to"]), fresh=_t(lang, "fresh") if cmd.get("fresh") else "")
    if kind == "rescue":
        return _t(lang, "rescue", pairs=_pairs(cmd["herds"]))
    if kind == "reproduce":
        return _t(lang, "reproduce", at=_pl(cmd["at"]))
    if kind == "end_turn":
        return _t(lang, "end_turn")
    return json.dumps(cmd)


def _drift_text(cmd: dict, state, lang="en") -> str:
    tile, to = tuple(cmd["tile"]), tuple(cmd["to"])
    return (f"{kind_name(lang, state.tiles[tile])} {_pl(tile)} -> {_pl(to)} "
            f"({_t(lang, 'distance')} {distance(tile)} -> {distance(to)})")


def _reason(lang, reason: str) -> str:
    """Why herds went back to stock (T14): 'swimming' or 'overpopulation', in words."""
    key = f"reason_{reason}"
    return _t(lang, key) if key in TEXT[lang_of(lang)] else reason


def mode_name(lang, mode: str) -> str:
    """'play' / 'mirror' in words ('jouée ici', 'miroir d'une vraie table')."""
    key = f"mode_{mode}"
    return _t(lang, key) if key in TEXT[lang_of(lang)] else mode


def _you(name: str, lang) -> bool:
    return name == YOU[lang_of(lang)]


def narrate(game, events: list, lang="en") -> str:
    """What a row's events did, in words."""
    names = [s["name"] for s in game.seats]
    said = []
    for e in events:
        kind = e["type"]
        if kind == "placed":
            said.append(_t(lang, "placed", herds=count(lang, e["herds"], "herd"), at=_pl(e["at"])))
        elif kind in ("card_played", "card_drawn"):
            said.append(_t(lang, kind, card=kind_name(lang, e["card"])))
        elif kind == "drifted":
            said.append(_t(lang, kind, kind=kind_name(lang, e["kind"]), a=_pl(e["tile"]), b=_pl(e["to"])))
        elif kind in ("drift_skipped", "last_round"):
            said.append(_t(lang, kind))
        elif kind == "moved":
            said.append(_t(lang, kind, a=_pl(e["from"]), b=_pl(e["to"])))
        elif kind == "rescued":
            said.append(_t(lang, kind, pairs=_pairs(e["herds"])))
        elif kind == "born":
            said.append(_t(lang, kind, at=_pl(e["at"])))
        elif kind == "returned":
            key = kind if is_one(lang, e["count"]) else "returned_n"  # "1 troupeau rendu", "2 troupeaux rendus"
            said.append(_t(lang, key, herds=count(lang, e["count"], "herd"), of_name=of_name(lang, names[e["player"]]),
                           at=_pl(e["at"]), reason=_reason(lang, e["reason"])))
        elif kind == "scored":
            got = ", ".join(f"{names[s]} +{p}" for s, p in enumerate(e["points"]) if p) or _t(lang, "nobody_scores")
            reason = _t(lang, e["reason"]) if e["reason"] in ("interim", "final") else e["reason"]
            said.append(_t(lang, kind, reason=reason, rule=e["rule"], got=got))
        elif kind == "turn_started":
            name = names[e["player"]]
            vowel = lang_of(lang) == "fr" and name[:1].lower() in "aeiouyéèêàâîôû"  # au tour d'Ordinateur
            key = "turn_started_you" if _you(name, lang) else "turn_started_v" if vowel else kind
            said.append(_t(lang, key, name=name))
        elif kind == "game_over":
            who = e["winners"]
            you = any(_you(names[s], lang) for s in who)  # "Vous gagnez", "Tu e Ada vincete"
            win = ("win_you" if you else "win") + ("1" if len(who) == 1 else "2")
            said.append(_t(lang, kind, names=_t(lang, "and").join(names[s] for s in who), win=_t(lang, win)))
        elif kind == "undone":
            said.append(_t(lang, kind, moves=count(lang, len(e["seqs"]), "move")))
    return "; ".join(said) or _t(lang, "nothing")


def status(game, lang="en") -> list:
    """Whose turn, the phase and the action points (or the set-up, or the end), then the scores."""
    s = game.state
    names = [x["name"] for x in game.seats]
    name = names[s.current]
    if s.phase == "over":
        lines = [say(lang, "over")]
    elif s.phase == "place":
        lines = [say(lang, "setup_you") if _you(name, lang) else say(lang, "setup", name=name)]
    else:
        last = say(lang, "last_round") if s.last_round is not None else ""
        key = "turn_you" if _you(name, lang) else "turn"
        lines = [say(lang, key, turn=s.turn, last=last, name=name, phase=phase_name(lang, s.phase),
                     ap=count(lang, s.ap, "ap"))]
    lines.append(say(lang, "scores", list=", ".join(
        f"{n} {count(lang, p, 'point')} ({say(lang, 'stock', herds=count(lang, k, 'herd'))})"
        for n, p, k in zip(names, s.score, s.stock))))
    return lines


def describe(game, seat: int | None, lang="en") -> list:
    """The board summary: turn and phase, each seat's score, stock and hand, the map, the result."""
    s = game.state
    names = [x["name"] for x in game.seats]
    lines = [_t(lang, "title", id=game.id, mode=mode_name(lang, game.mode), seq=game.last_seq), status(game, lang)[0]]
    deck2 = min(len(s.deck), s.rules.deck2_size)
    lines.append(_t(lang, "deck", cards=count(lang, len(s.deck), "card"), deck2=deck2, seen=len(s.seen)))
    for i, x in enumerate(game.seats):
        hand = s.hands[i]
        shown = kind_name(lang, hand) if (hand and (i == seat or hand == "meteorite")) else (
            count(lang, 1, "card") if hand else _t(lang, "no_card"))
        on_board = sum(c[i] for c in s.herds.values())
        computer = x["kind"] == "computer"
        kind = _t(lang, "computer", level=level_name(lang, x["level"])) if computer else _t(lang, "person")
        lines.append(_t(lang, "seat", i=i, name=x["name"], kind=kind, points=count(lang, s.score[i], "point"),
                        stock=count(lang, s.stock[i], "herd"), board=on_board, hand=shown))
    lines += board_map(s, names, lang)
    if s.result:
        lines += final_table(game, lang)
    return lines


def final_table(game, lang="en") -> list:
    """T18's table, each land mass by its letter on the land-mass map (A, B, C...), then scores and winners."""
    s = game.state
    names = [x["name"] for x in game.seats]
    lines = masses_map(s, lang) + [say(lang, "final")]
    letters = mass_letters(s)
    for row in s.result["table"]:
        letter = letters.get(tuple(int(v) for v in row["tiles"][0].split(",")), "?")
        got = ", ".join(f"{names[i]} {p}" for i, p in enumerate(row["points"]) if p) or say(lang, "nobody")
        herds = ", ".join(f"{names[i]} {k}" for i, k in enumerate(row["herds"]) if k) or say(lang, "no_herds")
        lines.append(say(lang, "mass_row", letter=letter, tiles=count(lang, row["size"], "tile"), herds=herds, got=got))
    lines.append(_t(lang, "scores_final", list=", ".join(f"{n} {p}" for n, p in zip(names, s.result["scores"]))))
    winners = s.result["winners"]  # one, or several still tied after T19's tie-breaks
    lines.append(say(lang, "winner" if len(winners) == 1 else "winners", names=_t(lang, "and").join(names[i] for i in winners)))
    return lines


def of_name(lang: str, name: str) -> str:
    """Whose herds: "of Ana"; in French "d'Ana" before a vowel or an h, "de Bruno" otherwise; "di Ana"."""
    if lang == "fr":
        return f"d'{name}" if name[:1].lower() in "aâàeéèêëiîïoôuùûüyh" else f"de {name}"
    return f"{'di' if lang == 'it' else 'of'} {name}"
