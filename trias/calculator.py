"""The score calculator: final scoring of a physical game from a description of its land masses.

At the end of a game played with the box and no record, the table counts each
land mass's tiles and herds; this turns that count into T18's points per land
mass, the totals and T19's winners, with the arithmetic in words. The scoring
itself is scoring.py's (`mass_points`, `winners`): one rule, one place.

    score_description({"land_masses": [{"name": "A", "tiles": 3, "main": false,
                                        "herds": {"Black": 2, "Cross": 1}}, ...],
                       "stock": {"Black": 2}})
    -> {"points": {"A": {"Black": 3, "Cross": 2}}, "totals": {...}, "winners": [...], "lines": [...]}

Optional keys: `main` (the land mass of the South Pole, never scored, T18),
`stock` (herds in stock, T19's first tie-break) and `interim` (points already
on the score track from interim scorings, T16, added to the totals).
"""

from __future__ import annotations

from .errors import BadCommand
from .scoring import mass_points, winners

MAX_TILES = 36   # T2: the land tiles of the box
MAX_HERDS = 15   # T7: herds per player
MAX_PLAYERS = 5
MAX_NAME = 40
MAX_PER_TILE = 4  # T2: woods, the roomiest tile, holds 4 herds (T13)


# Every refusal of a description: a stable code and its English sentence, `{}` fields filled from the
# refusal's parameters. The pages (templates/trias/score.html, "error.<code>") and the terminal
# (bank/cli/trias_words.py, "calc_<code>") say the same code in French and Italian from those
# parameters; tests/web/trias/test_trias_calculator_words.py walks this table for a sentence in each language.
REFUSALS = {
    "not_an_object": 'the description must be a JSON object with a "land_masses" list',
    "unknown_key": "unknown key {key!r}: a description has land_masses, and optionally stock and interim",
    "no_land_masses": "land_masses must be a non-empty list of land masses, each with a name, tiles and herds",
    "too_many_land_masses": "{count} land masses are listed; a board of {max} tiles has at most {max} land masses "
                            "(T2, T3)",
    "mass_not_an_object": "{where} must be an object with a name, tiles and herds",
    "mass_unknown_key": "{where} has an unknown key {key!r}: a land mass has name, tiles, herds and optionally main",
    "bad_name": "{where} must be a name of 1 to {max} printable characters",
    "bad_player_name": "each player name in {where} must be a name of 1 to {max} printable characters",
    "name_twice": "{where} {name!r} is already the name of another land mass",
    "bad_tiles": "{where} must be a whole number from 1 to {max}",
    "bad_main": "{where} must be true or false",
    "counts_not_an_object": '{where} must be an object of player names and counts, like {{"Black": 2}}',
    "bad_count": "{where} must be a whole number from 0 to {max}",
    "player_twice": "{where} names {player} twice",
    "crowded": "{where} holds {herds} herds on {tiles} tiles, more than {per_tile} a tile can hold (T2, T13)",
    "two_main": "only one land mass can be the main one (the one holding the South Pole, T5)",
    "no_herds": 'no player has a herd anywhere: give each land mass\'s herds per player, like {{"Black": 2}}',
    "too_many_players": "{count} players are named ({names}); Trias is for 2 to {max}",
    "too_many_herds": "{player} has {held} herds on the land masses and in stock, more than the {max} a player owns "
                      "(T7)",
}


class CalculatorError(BadCommand):
    """A refused description: `code` (a key of REFUSALS) and `params` say it in any language; `message` is
    the English sentence, as `str()` and the API's `message` have always given it."""

    def __init__(self, code: str, **params):
        super().__init__(code, REFUSALS[code].format(**params), **params)


def _bad(code: str, **params) -> CalculatorError:
    return CalculatorError(code, **params)


def _whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _name(value, where: str, code: str = "bad_name") -> str:
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_NAME or not value.isprintable():
        raise _bad(code, where=where, max=MAX_NAME)
    return value.strip()


def _counts(value, where: str, high: int, players: list) -> dict:
    """A {player: whole number} map, adding new player names to `players` in order of appearance."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _bad("counts_not_an_object", where=where)
    found = {}
    for key, k in value.items():
        player = _name(key, where, "bad_player_name")
        if not _whole(k, 0, high):
            raise _bad("bad_count", where=f"{where}.{player}", max=high)
        if player in found:
            raise _bad("player_twice", where=where, player=player)
        found[player] = k
        if player not in players:
            players.append(player)
    return found


def parse(data) -> dict:
    """The description checked and normalised, or a BadCommand naming the first problem in one sentence."""
    if not isinstance(data, dict):
        raise _bad("not_an_object")
    unknown = sorted(set(data) - {"land_masses", "stock", "interim"})
    if unknown:
        raise _bad("unknown_key", key=unknown[0])
    masses = data.get("land_masses")
    if not isinstance(masses, list) or not masses:
        raise _bad("no_land_masses")
    if len(masses) > MAX_TILES:  # each has a tile at least; also bounds the work and the lines printed
        raise _bad("too_many_land_masses", count=len(masses), max=MAX_TILES)
    players, parsed, names = [], [], set()
    for i, mass in enumerate(masses):
        where = f"land_masses[{i}]"
        if not isinstance(mass, dict):
            raise _bad("mass_not_an_object", where=where)
        extra = sorted(set(mass) - {"name", "tiles", "main", "herds"})
        if extra:
            raise _bad("mass_unknown_key", where=where, key=extra[0])
        name = _name(mass.get("name", str(i + 1)), f"{where}.name")
        if name in names:
            raise _bad("name_twice", where=f"{where}.name", name=name)
        names.add(name)
        tiles = mass.get("tiles")
        if not _whole(tiles, 1, MAX_TILES):
            raise _bad("bad_tiles", where=f"{where}.tiles", max=MAX_TILES)
        main = mass.get("main", False)
        if not isinstance(main, bool):
            raise _bad("bad_main", where=f"{where}.main")
        herds = _counts(mass.get("herds"), f"{where}.herds", MAX_HERDS, players)
        if sum(herds.values()) > MAX_PER_TILE * tiles:
            raise _bad("crowded", where=where, herds=sum(herds.values()), tiles=tiles, per_tile=MAX_PER_TILE)
        parsed.append({"name": name, "tiles": tiles, "main": main, "herds": herds})
    if sum(m["main"] for m in parsed) > 1:
        raise _bad("two_main")
    stock = _counts(data.get("stock"), "stock", MAX_HERDS, players)
    interim = _counts(data.get("interim"), "interim", 999, players)
    if not players:
        raise _bad("no_herds")
    if len(players) > MAX_PLAYERS:
        raise _bad("too_many_players", count=len(players), names=", ".join(players), max=MAX_PLAYERS)
    for player in players:
        held = sum(m["herds"].get(player, 0) for m in parsed) + stock.get(player, 0)
        if held > MAX_HERDS:
            raise _bad("too_many_herds", player=player, held=held, max=MAX_HERDS)
    return {"players": players, "land_masses": parsed, "stock": stock, "interim": interim}


def score_description(data, lang: str = "en") -> dict:
    """T18 points per land mass, totals, T19 winners and the arithmetic in words (`lang`: en, fr or it)."""
    d = parse(data)
    players, words = d["players"], WORDS.get(lang, WORDS["en"])
    totals = [d["interim"].get(p, 0) for p in players]
    points, lines = {}, []
    for mass in d["land_masses"]:
        counts = [mass["herds"].get(p, 0) for p in players]
        won = [0] * len(players) if mass["main"] else mass_points(mass["tiles"], counts)
        points[mass["name"]] = {p: won[s] for s, p in enumerate(players) if won[s]}
        totals = [t + w for t, w in zip(totals, won)]
        lines.append(_explain(mass, players, counts, won, words))
    stock = [d["stock"].get(p, 0) for p in players]
    present = [sum(1 for m in d["land_masses"] if m["herds"].get(p, 0)) for p in players]
    won = [players[s] for s in winners(totals, stock, present)]
    if any(d["interim"].values()):
        lines.append(words["interim"].format(", ".join(f"{p} {d['interim'].get(p, 0)}" for p in players)))
    lines.append(words["totals"].format(", ".join(f"{p} {t}" for p, t in zip(players, totals))))
    lines.append(_explain_winners(players, totals, stock, present, won, words))
    return {"points": points, "totals": dict(zip(players, totals)), "winners": won, "lines": lines}


def _num(x: float, words: dict) -> str:
    text = f"{x:g}"
    return text.replace(".", words["decimal"])


def _share(total: float, k: int, got: int, words: dict) -> str:
    """'12 / 5 = 2.4, rounded up to 3' or '12 / 2 = 6' (T18: each share rounded up)."""
    exact = total / k
    if k == 1 and exact == got:
        return _num(total, words)
    text = f"{_num(total, words)} / {k} = {_num(exact, words)}" if k > 1 else _num(total, words)
    return text if exact == got else f"{text}, {words['rounded']} {got}"


def _explain(mass: dict, players: list, counts: list, won: list, words: dict) -> str:
    """One land mass's arithmetic, in words."""
    n = mass["tiles"]
    head = words["head"].format(name=mass["name"], n=n, tiles=words["tile" if n == 1 else "tiles"])
    herds = ", ".join(f"{p} {k}" for p, k in zip(players, counts) if k) or words["no_herds"]
    if mass["main"]:
        return f"{head}{words['sep']}{herds}; {words['main']} (T18)"
    levels = sorted({k for k in counts if k}, reverse=True)
    if not levels:
        return f"{head}{words['sep']}{words['nobody']} (T18)"
    firsts = [p for p, k in zip(players, counts) if k == levels[0]]
    got = dict(zip(players, won))
    if len(levels) == 1 and len(firsts) == 1:
        return f"{head}{words['sep']}{herds}; {words['sole'].format(p=firsts[0], n=n)} (T18)"
    if len(firsts) > 1:
        pool = n + n / 2
        share = _share(pool, len(firsts), got[firsts[0]], words)
        return (f"{head}{words['sep']}{herds}; " + words["tied_firsts"].format(ps=_and(firsts, words), n=n, half=_num(n / 2, words),
                                                                   share=share) + " (T18)")
    seconds = [p for p, k in zip(players, counts) if k == levels[1]]
    second = words["seconds" if len(seconds) > 1 else "second"].format(
        ps=_and(seconds, words), share=_share(n / 2, len(seconds), got[seconds[0]], words))
    return f"{head}{words['sep']}{herds}; {words['first'].format(p=firsts[0], n=n)}; {second} (T18)"


def _and(names: list, words: dict) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {words['and']} {names[-1]}"


def _explain_winners(players, totals, stock, present, won, words) -> str:
    """T19: who wins, and which tie-break decided it."""
    best = max(totals)
    tied = [s for s, t in enumerate(totals) if t == best]
    if len(tied) == 1:
        return words["wins"].format(p=won[0], t=best) + " (T19)"
    tied_names = _and([players[s] for s in tied], words)
    text = words["tie"].format(ps=tied_names, t=best)
    stocks = ", ".join(f"{players[s]} {stock[s]}" for s in tied)
    text += "; " + words["stock"].format(stocks)
    top = max(stock[s] for s in tied)
    tied = [s for s in tied if stock[s] == top]
    if len(tied) > 1:
        masses = ", ".join(f"{players[s]} {present[s]}" for s in tied)
        text += "; " + words["presence"].format(masses)
    verb = words["win_one"] if len(won) == 1 else words["win_all"]
    return f"{text}: {_and(won, words)} {verb} (T19)"


WORDS = {
    "en": {
        "decimal": ".", "sep": ": ", "and": "and", "tile": "tile", "tiles": "tiles", "head": "{name} ({n} {tiles})",
        "no_herds": "no herds", "main": "the main land mass is not scored", "nobody": "no herds, nobody scores",
        "sole": "{p} alone scores first place only: {n}",
        "tied_firsts": "{ps} tie for first and share first and second place, {n} + {half}: {share} each",
        "first": "{p} first: {n}", "second": "{ps} second: {share}",
        "seconds": "{ps} tie for second and share half of it: {share} each",
        "rounded": "rounded up to",
        "interim": "Interim scoring points already on the track (T16): {}",
        "totals": "Totals: {}", "wins": "{p} wins with {t} points",
        "tie": "{ps} tie on {t} points", "stock": "herds in stock: {}", "presence": "land masses with a herd: {}",
        "win_one": "wins", "win_all": "all win",
    },
    "fr": {
        "decimal": ",", "sep": " : ", "and": "et", "tile": "tuile", "tiles": "tuiles", "head": "{name} ({n} {tiles})",
        "no_herds": "aucun troupeau", "main": "le continent principal ne compte pas",
        "nobody": "aucun troupeau, personne ne marque",
        "sole": "{p} est seul et ne marque que la première place : {n}",
        "tied_firsts": "{ps} sont premiers ex æquo et partagent première et deuxième places, {n} + {half} : "
                       "{share} chacun",
        "first": "{p} premier : {n}", "second": "{ps} deuxième : {share}",
        "seconds": "{ps} sont deuxièmes ex æquo et en partagent la moitié : {share} chacun",
        "rounded": "arrondi à",
        "interim": "Points des décomptes intermédiaires déjà sur la piste (T16) : {}",
        "totals": "Totaux : {}", "wins": "{p} gagne avec {t} points",
        "tie": "{ps} sont à égalité avec {t} points", "stock": "troupeaux en réserve : {}",
        "presence": "continents occupés : {}", "win_one": "gagne", "win_all": "gagnent tous",
    },
    # Italian: the terms of the game's Italian rules (continente, branchi, tessere, riserva).
    "it": {
        "decimal": ",", "sep": ": ", "and": "e", "tile": "tessera", "tiles": "tessere", "head": "{name} ({n} {tiles})",
        "no_herds": "nessun branco", "main": "il continente del Polo Sud non conta",
        "nobody": "nessun branco, nessuno segna punti",
        "sole": "{p} è solo e segna soltanto il primo posto: {n}",
        "tied_firsts": "{ps} sono primi a pari merito e si dividono primo e secondo posto, {n} + {half}: "
                       "{share} ciascuno",
        "first": "{p} primo: {n}", "second": "{ps} secondo: {share}",
        "seconds": "{ps} sono secondi a pari merito e se ne dividono la metà: {share} ciascuno",
        "rounded": "arrotondato a",
        "interim": "Punti dei conteggi intermedi già sulla tavola segnapunti (T16): {}",
        "totals": "Totali: {}", "wins": "{p} vince con {t} punti",
        "tie": "{ps} sono pari con {t} punti", "stock": "branchi in riserva: {}",
        "presence": "continenti occupati: {}", "win_one": "vince", "win_all": "vincono tutti",
    },
}
