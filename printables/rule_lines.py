"""The bank's rules in sentences, every number read from the loaded config (no drawing here).

`sections(config, lang)` gives (title, lines) pairs: enough for facilitators to run
the game on paper if the bank machine dies. Rule numbers are those of docs/rules/field-game.md.
"""

from __future__ import annotations

from .boards import effects, requirements
from .icons import describe, in_words
from .labels import count, name, rate_text, short, t, typo, word

W = {
    "fr": {
        "start": "Départ (R3, R8)", "harvest": "Récolte (R11-R15)", "trade": "Échanges (R16, R17)",
        "fights": "Combats (R18-R20)", "buildings": "Bâtiments (R21-R23)", "tracks": "Terraformation (R24-R27)",
        "animals": "Animaux (R28-R30)", "score": "Réputation (R31-R33)", "end": "Fin de partie (R34, R35)",
        "own": "Chaque équipe reçoit {n} de sa couleur : {teams}.", "extra": "Et chacune en plus : {what}.",
        "reserve": "Boîte de la banque : {what}. Alerte sous {n} jetons d'une sorte.",
        "base": "Un récolteur reçoit {n} d'une ressource au choix ({kinds}), jamais un joker ; il rapporte "
                "sa récolte à la base avant de revenir.",
        "double": "{building} : {effect}.",
        "bonus": "Option « bonus d'équipe » : +{n} de la couleur de l'équipe, ajouté après le doublement, "
                 "jamais doublé. Exemple : {example}.",
        "example": "{team} avec {building} : récolte en {res}, {base} × {mult} + {n} = {total}",
        "dice": "{building} : {effect}. Faces du dé : {faces} (un jeton de la face par dé).",
        "interval": "Au moins {n} s entre deux récoltes d'une même carte.",
        "free": "Échange libre : le marchand et l'équipe visitée s'accordent sur ce qu'ils veulent.",
        "forced": "Sans accord, échange forcé : le marchand prend 1 jeton de son choix chez l'équipe "
                  "visitée (jamais un joker), qui prend en retour 1 jeton de son choix parmi ceux qu'il porte.",
        "pairs": "Manches de pierre-feuille-ciseaux à gagner par chaque camp (l'attaquant ne compte pas) :",
        "pair": "{a} contre {b} : {a} {x}, {b} {y}.",
        "only": "Avec l'option « tout le monde se bat », en plus :",
        "wait_base": "Attente après un combat : pirate gagnant {pw} s, pirate perdant {pl} s, autres rôles {ow} s "
                     "s'ils gagnent, {ol} s s'ils perdent.",
        "wait_all": "Avec « tout le monde se bat » : pirate gagnant {pw} s, pirate perdant {pl} s, autre gagnant "
                    "{ow} s, autre perdant {ol} s.",
        "take": "Le pirate gagnant prend tous les jetons que porte le perdant (l'arbitre les compte ; zéro "
                "est possible).",
        "take_all": "Avec « tout le monde se bat », tout gagnant, quel que soit son rôle, prend ce que porte "
                    "le perdant.",
        "pirate_lost": "Un pirate perdant ne donne rien.", "pirate_gives": "Un pirate perdant donne ce qu'il porte.",
        "second": "Option « deuxième pirate » : une carte de pirate en plus, achetée {cost}.",
        "cap": "Au plus {n} bâtiments tant que l'équipe n'a pas {lifters} ; {exempt} se construit toujours. "
               "Chaque bâtiment une fois par équipe.",
        "building": "{name} : coûte {cost} ; exige {needs} ; {effects} ; +{rep} points.",
        "jokers": "Un joker remplace n'importe quel jeton manquant dans un paiement.",
        "step": "{track} : un pas coûte {cost} {res}, +{rep} point à l'équipe qui paie ; {length} niveaux ; "
                "bonus aux niveaux {bonuses}.",
        "bonus_rule": "Un bonus va à l'équipe dont le pas atteint son niveau.",
        "unlock": "Animaux en vente dès que toutes les pistes sont au niveau {n}. Terraformation complète : "
                  "toutes les pistes au dernier niveau.",
        "animal": "{name} : {cost}, +{rep} points", "kinds": "{kind} : {animals}.",
        "common": "Communs (chaque équipe peut acheter chacun une fois)", "unique": "Uniques (un seul dans la partie)",
        "discounts": "Les réductions des bâtiments s'appliquent (jamais sous zéro).",
        "rate": "Change : {rate} (l'animation peut le changer en cours de partie). Un joker rendu : {joker}.",
        "multiple": "Seul un multiple exact du taux se change ({a} ou {b} jetons, jamais {odd}), ressources mélangées.",
        "events": "Événements : chaque équipe donne des jetons ; à la clôture, les mieux classées reçoivent "
                  "les récompenses annoncées.",
        "event_rules": "Rang selon les jetons donnés ; à égalité, le meilleur rang partagé (1, 1, 3) ; rien "
                       "donné, ni rang ni récompense. Les jetons donnés vont à la boîte de la banque.",
        "awards": "Points donnés ou retirés par l'animation : toujours avec une raison, notée au registre.",
        "time": "La partie dure {minutes} min de jeu en {sessions} sessions : quand le temps est écoulé, la "
                "meilleure réputation gagne.",
        "rep_end": "Terraformation complète et une équipe à {n} points : si la terraformation était déjà "
                   "complète, la première à {n} gagne ; si plusieurs avaient déjà {n}, la plus haute réputation.",
        "animals_end": "Terraformation complète et une équipe à {n} animaux : si elle était déjà complète, "
                       "l'équipe qui achète son {n}e animal gagne ; sinon celle qui en a le plus, puis la "
                       "meilleure réputation.",
        "tie": "Égalité restante : ex æquo.", "none": "aucun", "nothing": "rien",
    },
    "en": {
        "start": "Start (R3, R8)", "harvest": "Harvest (R11-R15)", "trade": "Trade (R16, R17)",
        "fights": "Fights (R18-R20)", "buildings": "Buildings (R21-R23)", "tracks": "Terraforming (R24-R27)",
        "animals": "Animals (R28-R30)", "score": "Reputation (R31-R33)", "end": "End of the game (R34, R35)",
        "own": "Each team gets {n} of its colour: {teams}.", "extra": "And each one also: {what}.",
        "reserve": "The bank's box: {what}. Warn below {n} tokens of a kind.",
        "base": "A harvester gets {n} of a resource they choose ({kinds}), never a joker, and takes it back "
                "to base before coming again.",
        "double": "{building}: {effect}.",
        "bonus": "Option 'team bonus': +{n} of the team's colour, added after doubling, never doubled. "
                 "Example: {example}.",
        "example": "{team} with the {building} harvesting {res}: {base} × {mult} + {n} = {total}",
        "dice": "{building}: {effect}. Die faces: {faces} (one token of the face per die).",
        "interval": "At least {n} s between two harvests of the same card.",
        "free": "Free trade: the merchant and the visited team agree on whatever they like.",
        "forced": "No deal, forced swap: the merchant takes 1 token of their choice from the visited team "
                  "(never a joker), which takes back 1 token of its choice from what the merchant carries.",
        "pairs": "Rounds of rock-paper-scissors each side must win (who attacked does not matter):",
        "pair": "{a} against {b}: {a} {x}, {b} {y}.",
        "only": "With the 'everyone fights' option, also:",
        "wait_base": "Wait after a fight: winning pirate {pw} s, losing pirate {pl} s, other roles {ow} s "
                     "if they win, {ol} s if they lose.",
        "wait_all": "With 'everyone fights': winning pirate {pw} s, losing pirate {pl} s, other winner {ow} s, "
                    "other loser {ol} s.",
        "take": "The winning pirate takes every token the loser carries (the referee counts them; zero is allowed).",
        "take_all": "With 'everyone fights', any winner, whatever their role, takes what the loser carries.",
        "pirate_lost": "A losing pirate gives nothing.", "pirate_gives": "A losing pirate gives what they carry.",
        "second": "Option 'second pirate': one more pirate card, bought for {cost}.",
        "cap": "At most {n} buildings until the team owns {lifters}; {exempt} may always be built. "
               "Each building once per team.",
        "building": "{name}: costs {cost}; needs {needs}; {effects}; +{rep} points.",
        "jokers": "A joker stands in for any missing token in a payment.",
        "step": "{track}: a step costs {cost} {res}, +{rep} point to the paying team; {length} levels; "
                "bonus at levels {bonuses}.",
        "bonus_rule": "A bonus goes to the team whose step reaches its level.",
        "unlock": "Animals on sale once every track is at level {n}. Terraforming complete: every track at "
                  "its last level.",
        "animal": "{name}: {cost}, +{rep} points", "kinds": "{kind}: {animals}.",
        "common": "Common (each team may buy each one once)", "unique": "Unique (one in the whole game)",
        "discounts": "Building discounts apply (never below zero).",
        "rate": "Exchange: {rate} (the facilitators may change it during play). A redeemed joker: {joker}.",
        "multiple": "Only an exact multiple of the rate is exchanged ({a} or {b} tokens, never {odd}), resources mixed.",
        "events": "Events: every team gives tokens; at closing, the best ranked get the announced rewards.",
        "event_rules": "Rank by tokens given; equal givers share the better rank (1, 1, 3); gave nothing, no "
                       "rank and no reward. The tokens given go to the bank's box.",
        "awards": "Points given or taken by the facilitators: always with a reason, written in the ledger.",
        "time": "The game lasts {minutes} min of play in {sessions} sessions: when time is up, most reputation wins.",
        "rep_end": "Terraforming complete and a team at {n} points: if terraforming was already complete, the "
                   "first team to reach {n} wins; if several already had {n}, most reputation wins.",
        "animals_end": "Terraforming complete and a team with {n} animals: if it was already complete, the team "
                       "buying its {n}th animal wins; otherwise the one with most animals, then most reputation.",
        "tie": "A tie left after that: shared win.", "none": "none", "nothing": "nothing",
    },
}


def sections(config, lang: str) -> list:
    """(title, [sentences]) for every part of the game the bank runs."""
    w = W[lang]
    parts = [(w[key], [typo(lang, line) for line in builder(config, lang, w)]) for key, builder in (
        ("start", _start), ("harvest", _harvest), ("trade", _trade), ("fights", _fights), ("buildings", _buildings),
        ("tracks", _tracks), ("animals", _animals), ("score", _score), ("end", _end))]
    return parts


def _label(config, kind: str, lang: str) -> str:
    return short(config.resources[kind].label, lang)


def _start(config, lang, w):
    teams = ", ".join(f"{name(t.label, lang)} {_label(config, t.resource, lang)}" for t in config.teams.values())
    lines = [w["own"].format(n=count(lang, "token", config.own_colour_tokens), teams=teams)]
    if config.extra_start:
        lines.append(w["extra"].format(what=in_words(config, config.extra_start, lang)))
    lines.append(w["reserve"].format(what=in_words(config, config.reserve, lang), n=config.low_stock_warning))
    return lines


def _harvest(config, lang, w):
    kinds = ", ".join(_label(config, r.id, lang) for r in config.resources.values() if r.harvestable)
    lines = [w["base"].format(n=count(lang, "token", config.harvest_base), kinds=kinds)]
    for b in config.buildings.values():
        if b.harvest_multiplier:
            phrases = [t(lang, {2: "eff_double", 3: "eff_triple"}.get(n, "eff_times"), res=_label(config, r, lang), n=n)
                       for r, n in b.harvest_multiplier.items()]
            lines.append(w["double"].format(building=name(b.label, lang), effect=", ".join(phrases)))
    lines.append(w["bonus"].format(n=config.team_bonus, example=_example(config, lang, w)))
    for b in config.buildings.values():
        if b.dice_per_harvested_token or b.dice_on_build:
            faces = ", ".join(_label(config, f, lang) for f in config.dice_faces)
            phrases = [t(lang, key, n=n, dice=word(lang, "dice", n)) for key, n in
                       (("eff_dice_harvest", b.dice_per_harvested_token), ("eff_dice_build", b.dice_on_build)) if n]
            lines.append(w["dice"].format(building=name(b.label, lang), faces=faces, effect=", ".join(phrases)))
    if config.harvest_interval:
        lines.append(w["interval"].format(n=config.harvest_interval))
    return lines


def _example(config, lang, w) -> str:
    """R12's worked example, from the first team whose colour a building multiplies."""
    for team in config.teams.values():
        for b in config.buildings.values():
            mult = b.harvest_multiplier.get(team.resource)
            if mult:
                base = config.harvest_base
                return w["example"].format(team=name(team.label, lang), building=name(b.label, lang).lower(),
                                           res=_label(config, team.resource, lang), base=base, mult=mult,
                                           n=config.team_bonus, total=base * mult + config.team_bonus)
    return "-"


def _trade(config, lang, w):
    return [w["free"], w["forced"]]


def _fights(config, lang, w):
    role = {r: name(config.roles[r].label, lang) for r in config.roles}
    def pair(p):
        return w["pair"].format(a=role[p.roles[0]], b=role[p.roles[1]], x=p.rounds[0], y=p.rounds[1])
    # The pairs one after the other in a paragraph, not a line each: the summary stays on one page.
    optional = " ".join(pair(p) for p in config.fight_pairs if p.everyone_fights_only)
    lines = [w["pairs"], " ".join(pair(p) for p in config.fight_pairs if not p.everyone_fights_only)]
    lines += [w["only"], optional] if optional else []
    base, every = config.cooldowns["base"], config.cooldowns["everyone_fights"]
    lines.append(w["wait_base"].format(pw=base.pirate_wins, pl=base.pirate_loses, ow=base.other_wins, ol=base.other_loses))
    lines.append(w["wait_all"].format(pw=every.pirate_wins, pl=every.pirate_loses, ow=every.other_wins, ol=every.other_loses))
    lines.append(w["take"] + " " + w["pirate_gives" if config.losing_pirate_gives_tokens else "pirate_lost"])
    lines.append(w["take_all"])
    lines.append(w["second"].format(cost=in_words(config, config.second_pirate_cost, lang)))
    return lines


def _buildings(config, lang, w):
    lifters = ", ".join(name(b.label, lang) for b in config.buildings.values() if b.lifts_cap) or w["none"]
    exempt = ", ".join(name(b.label, lang) for b in config.buildings.values() if b.cap_exempt) or w["none"]
    lines = [w["cap"].format(n=config.building_cap, lifters=lifters, exempt=exempt)]
    for b in config.buildings.values():
        needs = requirements(config, b, lang)
        lines.append(w["building"].format(name=name(b.label, lang), cost=in_words(config, b.cost, lang),
                                          needs=w["nothing"] if needs == "-" else needs,
                                          effects=" ; ".join(effects(config, b, lang)) if lang == "fr"
                                          else "; ".join(effects(config, b, lang)), rep=b.reputation))
    lines.append(w["jokers"])
    return lines


def _tracks(config, lang, w):
    lines = []
    for tr in config.tracks.values():
        bonuses = ", ".join(f"{level} : {describe(config, tr.icons[level], lang)}" if lang == "fr"
                            else f"{level}: {describe(config, tr.icons[level], lang)}" for level in sorted(tr.icons))
        lines.append(w["step"].format(track=name(tr.label, lang), cost=tr.step_cost, res=_label(config, tr.resource, lang),
                                      rep=tr.reputation_per_step, length=tr.length, bonuses=bonuses or w["none"]))
    lines.append(w["bonus_rule"])
    lines.append(w["unlock"].format(n=config.animal_unlock_level))
    return lines


def _animals(config, lang, w):
    lines = []
    for kind in ("common", "unique"):
        listed = [w["animal"].format(name=name(a.label, lang), cost=in_words(config, a.cost, lang), rep=a.reputation)
                  for a in config.animals.values() if a.kind == kind]
        if listed:
            lines.append(w["kinds"].format(kind=w[kind], animals=" ; ".join(listed) if lang == "fr" else "; ".join(listed)))
    return lines + [w["discounts"]]


def _score(config, lang, w):
    n = config.exchange_tokens
    rate = rate_text(lang, n, config.exchange_points)
    multiple = w["multiple"].format(a=n, b=2 * n, odd=n + n // 2 if n > 1 else "-")
    return [w["rate"].format(rate=rate, joker=count(lang, "point", config.points_per_joker)), multiple,
            w["events"], w["event_rules"], w["awards"]]


def _end(config, lang, w):
    return [w["time"].format(minutes=config.duration_seconds // 60, sessions=config.sessions),
            w["rep_end"].format(n=config.reputation_threshold),
            w["animals_end"].format(n=config.animals_threshold) + " " + w["tie"]]
