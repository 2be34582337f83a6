"""The paper ledgers' moves typed back as commands: one line, one command.

A line is what a banker wrote on a team's continuation ledger, in French or English, e.g.
"Verts récolte énergie 2" / "Green harvest energy 2" (harvester card 2). Names are the game's
own (config.toml labels or ids) as people write them (bank/game/typed_names.py): case, accents,
œ/oe, plural s, dashes, emoji, a leading article and a name cut on a sheet do not matter; a name
that fits two is refused naming both. An optional time first ("14:32") is read and ignored: it only
helps the lead follow the sheets. An example of each form: printables/state_syntax.py (also on the bank-down page).

`parse(line, config)` returns the command (a dict, as POST /api/commands takes it) or raises
PaperSyntaxError(code, params): the page says it in its language (templates/admin.html).
"""

from __future__ import annotations

import re

from bank.game.game_identity import created_teams
from bank.game.typed_names import ARTICLES, CUT, ROMAN, NameTable, fold, tokens, words_of  # noqa: F401 (ROMAN: the tests')
from printables.state_syntax import examples, forms

VERBS = {
    "harvest": {"recolte", "recolter", "recoltent", "harvest"},
    "build": {"construit", "construire", "construisent", "build"},
    "buy": {"achete", "acheter", "achetent", "buy"},
    "raise_tracks": {"piste", "track", "avance", "raise"},
    "redeem_jokers": {"joker"},
    "exchange": {"echange", "echanger", "exchange"},
    "trade": {"commerce", "trade"},
    "contribute": {"contribue", "contribuer", "contribute"},
    "award": {"prime", "award", "bonu"},
    "penalty": {"penalite", "penalty"},
    "inventory": {"compte", "count", "inventaire", "inventory"},
}
BEATS, LOSES = {"bat", "beat", "gagne", "win", "won"}, {"perd", "lose", "lost"}
CLOCK = {("pause",): "pause", ("reprise",): "resume", ("resume",): "resume", ("debut",): "start_clock",
         ("start",): "start_clock", ("fin", "de", "session"): "end_session", ("end", "session"): "end_session",
         ("fin", "de", "partie"): "end_game", ("end", "game"): "end_game"}
OPTIONS = {"team_bonus": ("bonu", "bonu d equipe", "team bonu", "team_bonu"),
           "everyone_fights": ("tout le monde se bat", "everyone fight", "everyone_fight"),
           "second_pirate": ("deuxieme pirate", "second pirate", "second_pirate", "pirate")}
ON, OFF = {"oui", "on", "yes", "1", "vrai", "true"}, {"non", "off", "no", "0", "faux", "false"}
FILLER = {"contre", "to", "against", "de", "du", "la", "le", "les", "l", "d", "a"}
GIVE, TAKE = {"donne", "give", "gives"}, {"recoit", "take", "takes", "prend", "receive"}
FORCED = {"force", "forced"}
TIME = re.compile(r"^\d{1,2}[:h]\d{2}$")
KEYWORDS = frozenset().union(*VERBS.values(), BEATS, LOSES, GIVE, TAKE, FORCED, FILLER)
PAPER_REASON = "paper ledger"


class PaperSyntaxError(ValueError):
    """A line the bank cannot read: `code` and `params` for the page's sentence (admin.html)."""

    def __init__(self, code: str, message: str, at: int | None = None, **params):
        super().__init__(message)
        self.code, self.message, self.params, self.at = code, message, params, at

    def as_error(self) -> dict:
        return {"code": self.code, "message": self.message, "params": self.params}


class Words(list):
    """A line's folded words; `raw`: the same words as written, `starts`: where each begins in the line."""

    raw: list
    starts: list


def line_words(line: str) -> Words:
    """The line cut into words (bank/game/typed_names.py): folded to compare, kept as written."""
    found = tokens(line)
    words = Words(w if w == CUT else fold(w) for w, _, _ in found)
    words.raw, words.starts = [w for w, _, _ in found], [start for _, start, _ in found]
    return words


class Names:
    """The game's names of one kind (teams, resources...), found as people write them (typed_names.py).

    `shown`: each id's name as the page shows it, listed when a line names none of them."""

    def __init__(self, items: dict, shown: dict | None = None, keywords=frozenset(), fallback: dict | None = None):
        self.table = NameTable(items, fallback)
        self.shown = ", ".join((shown or {}).get(key, key) for key in items)
        self.names = shown or {}
        self.keywords = keywords
        self.example = ""  # a whole line in the game's names, for a refusal that shows one

    def take(self, words: list, at: int):
        """(id, next position) of the name written at `at`, or (None, at); PaperSyntaxError naming the
        candidates when two names fit it equally well."""
        found = self.table.find(getattr(words, "raw", words), at, self.keywords)
        if found is None:
            return None, at
        if len(found.keys) > 1:
            candidates = ", ".join(self.names.get(k, k) for k in found.keys)
            written = " ".join(getattr(words, "raw", words)[at:found.end])
            raise PaperSyntaxError("paper_ambiguous", f"{written} could be {candidates}: write more of the name",
                                   at, word=written, candidates=candidates)
        return found.keys[0], found.end


def _labels(thing) -> list:
    label = thing.label if isinstance(thing.label, dict) else {"en": str(thing.label)}
    return [*label.values()] + [t.split(" (")[0] for t in label.values()]


def _ids(thing) -> list:
    """The id as a name too, read only where no label fits as well (NameTable's fallback): ids are never printed."""
    return [thing.id, thing.id.replace("_", " ")]


def _shown(things, lang: str) -> dict:
    """id -> the name the cards print in `lang` (a refusal lists them)."""
    return {t.id: t.label.get(lang) or next(iter(t.label.values()), t.id) for t in things}


class Grammar:
    """The names of one game (config.toml), read once per batch; `lang`: the page's, for the lists of
    names a refusal gives; `created_with`: the config text the game was created with (Bank.created_with),
    whose team names a sheet printed before a rename carries; `opened_with`: every name each team was opened with
    since (AccessRules.team_names), a name in between two reloads' among them."""

    def __init__(self, config, events: dict, lang: str | None = None, created_with: str | None = None,
                 opened_with: dict | None = None):
        self.config = config
        lang = lang or config.language

        roles = list(config.roles.values())
        # A name cut short never ends on a word of the moves: "Zoé récolte" is Zoé's harvest.
        keywords = KEYWORDS.union(w for r in roles for label in _labels(r) + _ids(r) for w in words_of(label))

        def names(things, former=None):
            things = list(things)
            fallback = {t.id: _ids(t) + (former or {}).get(t.id, []) for t in things}
            return Names({t.id: _labels(t) for t in things}, _shown(things, lang), keywords, fallback)
        self.teams = names(config.teams.values(), _former_names(created_with, config, opened_with))
        self.resources = names(config.resources.values())
        self.buildings = names(config.buildings.values())
        self.animals = names(config.animals.values())
        self.tracks = names(config.tracks.values())
        self.roles = names(roles)
        self.events = Names({e: [e, e[2:], record.get("title", "")] for e, record in events.items()},
                            {e: f"{e} ({record['title']})" if record.get("title") else e for e, record in events.items()})
        self.options = Names({k: list(v) for k, v in OPTIONS.items()})
        # Refusals show a line written with this game's names, never a team it does not have.
        lines = dict((kind, line) for line, (_, _, kind) in reversed(list(zip(examples(config, lang), forms(config)))))
        self.teams.example, self.fight_example = lines["harvest"], lines["fight"]
        resource = next(iter(self.resources.names.values()), "")
        self.refill_example = f"{'réapprovisionne' if lang == 'fr' else 'refill'} 20 {resource}"


def _former_names(created_with: str | None, config, opened_with: dict | None = None) -> dict:
    """id -> the names a team had when the game was created or was opened with since, where not its names now."""
    former = {t["id"]: list(t["label"].values()) if isinstance(t.get("label"), dict) else [t.get("label")]
              for t in created_teams(created_with)}
    for team, texts in (opened_with or {}).items():
        former[team] = former.get(team, []) + texts
    return {team: list(dict.fromkeys(t for t in texts if isinstance(t, str) and t not in config.teams[team].label.values()))
            for team, texts in former.items() if team in config.teams}


def parse(line: str, grammar: Grammar) -> dict:
    """The command a ledger line stands for, or PaperSyntaxError saying what is wrong."""
    words = line_words(line)
    if words and TIME.match(words[0]):
        words, raw, starts = Words(words[1:]), words.raw[1:], words.starts[1:]
        words.raw, words.starts = raw, starts
    grammar.line, grammar.words = line, words  # an award's reason keeps the line as written
    try:
        return _parse(words, grammar)
    except PaperSyntaxError as exc:
        if exc.at is not None and exc.at < len(words.raw) and "word" in exc.params and exc.code != "paper_ambiguous":
            exc.params["word"] = words.raw[exc.at]  # say the word as the lead typed it, not folded
        raise


def _parse(words: list, grammar: Grammar) -> dict:
    if not words:
        raise PaperSyntaxError("paper_empty", "this line holds no move")
    clock = CLOCK.get(tuple(words))
    if clock:
        return {"type": clock}
    if words[0] not in LEADS:
        return _team_move(words, grammar)
    try:
        return LEADS[words[0]](words, grammar)
    except PaperSyntaxError as refused:
        # A team whose name starts with the word ("Ferme du Lac", "La Ferme du Lac" written without its article,
        # "Rate Busters"): its move; else the refusal of the reading the line holds more of ("taux 5": the rate's).
        try:
            return _team_move(words, grammar)
        except PaperSyntaxError:
            found = grammar.teams.table.find(getattr(words, "raw", words), 0, grammar.teams.keywords)
            if found is not None and found.end > 1:
                raise
            raise refused from None


def _team_move(words: list, grammar: Grammar) -> dict:
    team, at = _name(grammar.teams, words, 0, "team")
    if at < len(words) and grammar.roles.take(words, at)[0]:
        return _fight(grammar, words, team, at)
    verb = next((v for v, forms in VERBS.items() if at < len(words) and words[at] in forms), None)
    if verb is None:
        raise PaperSyntaxError("paper_unknown_move", f"{' '.join(words[at:at + 1]) or 'nothing'} is not a move",
                               at, word=" ".join(words[at:at + 1]))
    return MOVES[verb](grammar, words, team, at + 1)


def _rate(words: list, grammar: Grammar) -> dict:
    """'taux 5 1', 'rate 5 tokens = 1 point'."""
    numbers = [int(w) for w in words[1:] if w.isdigit()]
    if len(numbers) != 2 or len(numbers) + len([w for w in words[1:] if w in ("jeton", "token", "point")]) != len(words) - 1:
        raise PaperSyntaxError("paper_rate", "write the rate as two numbers: tokens, then points", word=" ".join(words[1:])[:40])
    return {"type": "set_rate", "tokens": numbers[0], "points": numbers[1]}


def _close(words: list, grammar: Grammar) -> dict:
    event, at = _name(grammar.events, words, 1, "event")
    _done(words, at)
    return {"type": "close_event", "event": event}


def _option(words: list, grammar: Grammar) -> dict:
    option, at = _name(grammar.options, words, 1, "option")
    if at >= len(words) or words[at] not in ON | OFF:
        raise PaperSyntaxError("paper_on_off", "write on or off (oui or non) after the option", word=" ".join(words[at:])[:40])
    _done(words, at + 1)
    return {"type": "set_option", "option": option, "value": words[at] in ON}


def _refill(words: list, grammar: Grammar) -> dict:
    amounts, at = _amounts(grammar, words, 1)
    _done(words, at)
    if len(amounts) != 1:
        raise PaperSyntaxError("paper_one_resource", f"refill one resource per line, such as {grammar.refill_example}",
                               example=grammar.refill_example)
    (resource, amount), = amounts.items()
    return {"type": "refill", "resource": resource, "amount": amount}


# The moves a line names by its first word, not by a team.
LEADS = {"taux": _rate, "rate": _rate, "ferme": _close, "close": _close, "option": _option,
         "reapprovisionne": _refill, "refill": _refill}


def _done(words: list, at: int) -> None:
    rest = [w for w in words[at:] if w not in FILLER]
    if rest:
        raise PaperSyntaxError("paper_extra_words", f"words left over: {' '.join(rest)}", words=" ".join(words[at:])[:60])


def _name(names: Names, words: list, at: int, what: str):
    key, after = names.take(words, at)
    if key is None:
        word, extra = " ".join(words[at:at + 1])[:40], {"example": names.example} if names.example else {}
        code, then = f"paper_unknown_{what}", f"write one of: {names.shown}"
        if what == "event":  # one announced on paper has no id until opened in the bank: say so
            code, then = code if names.shown else "paper_no_event", f"events: {names.shown or 'none yet'}; " \
                "one announced on paper: open it under Events first, then send this line again (its title names it)"
        raise PaperSyntaxError(code, f"{word or 'nothing'} is not a {what} of this game; {then}", at, word=word,
                               known=names.shown, **extra)
    return key, after


def _number(words: list, at: int, after: str):
    if at < len(words) and words[at].lstrip("-").isdigit():
        return int(words[at]), at + 1
    raise PaperSyntaxError("paper_number_missing", f"a number is missing after {after}", word=after)


def _amounts(grammar: Grammar, words: list, at: int, stop=frozenset()) -> tuple:
    """'2 eau 3 flore' (or 'eau 2'): {resource: n}; stops at a word of `stop` or the end."""
    found = {}
    while at < len(words) and words[at] not in stop:
        if words[at].isdigit():
            n, at = int(words[at]), at + 1
            resource, at = _name(grammar.resources, words, at, "resource")
        else:
            resource, at = _name(grammar.resources, words, at, "resource")
            n, at = _number(words, at, resource)
        found[resource] = found.get(resource, 0) + n
    return found, at


def _harvest(g, words, team, at):
    resource, at = _name(g.resources, words, at, "resource")
    number = 1
    if at < len(words) and words[at].isdigit():
        number, at = int(words[at]), at + 1
    _done(words, at)
    role = next(r.id for r in g.config.roles.values() if r.harvests)
    return {"type": "harvest", "team": team, "card": f"{role}-{number}", "resource": resource}


def _build(g, words, team, at):
    building, at = _name(g.buildings, words, at, "building")
    _done(words, at)
    return {"type": "build", "team": team, "building": building}


def _buy(g, words, team, at):
    pirate = g.config.pirate_role().id
    rest = tuple(w for w in words[at:] if w not in ("carte", "card", "deuxieme", "second"))
    if rest and g.roles.take(list(rest), 0) == (pirate, len(rest)):
        return {"type": "buy_second_pirate", "team": team}
    animal, at = _name(g.animals, words, at, "animal")
    _done(words, at)
    return {"type": "buy_animal", "team": team, "animal": animal}


def _tracks(g, words, team, at):
    steps = {}
    while at < len(words):
        track, at = _name(g.tracks, words, at, "track")
        n, at = (int(words[at]), at + 1) if at < len(words) and words[at].isdigit() else (1, at)
        steps[track] = steps.get(track, 0) + n
    if not steps:
        raise PaperSyntaxError("paper_unknown_track", f"name the track: {g.tracks.shown}", word="", known=g.tracks.shown)
    return {"type": "raise_tracks", "team": team, "steps": steps}


def _jokers(g, words, team, at):
    n, at = _number(words, at, "jokers")
    _done(words, at)
    return {"type": "redeem_jokers", "team": team, "jokers": n}


def _exchange(g, words, team, at):
    tokens, at = _amounts(g, words, at)
    return {"type": "exchange", "team": team, "tokens": tokens}


def _trade(g, words, team, at):
    visited, at = _name(g.teams, words, at, "team")
    give, take, kind = {}, {}, "free"
    while at < len(words):
        word = words[at]
        if word in GIVE:
            give, at = _amounts(g, words, at + 1, GIVE | TAKE | FORCED)
        elif word in TAKE:
            take, at = _amounts(g, words, at + 1, GIVE | TAKE | FORCED)
        elif word in FORCED:
            kind, at = "forced", at + 1
        else:
            raise PaperSyntaxError("paper_extra_words", f"words left over: {' '.join(words[at:])}", words=" ".join(words[at:])[:60])
    return {"type": "trade", "kind": kind, "merchant_team": team, "visited_team": visited, "give": give, "take": take}


def _card(g, words, at):
    role, at = _name(g.roles, words, at, "role")
    number = 1
    if at < len(words) and words[at].isdigit():
        number, at = int(words[at]), at + 1
    return f"{role}-{number}", at


def _fight(g, words, team, at):
    """'Rouge pirate 1 bat Bleu récolteur 1 prend 2 eau': the first team attacked (R18-R20)."""
    a_card, at = _card(g, words, at)
    if at >= len(words) or words[at] not in BEATS | LOSES:
        raise PaperSyntaxError("paper_fight_result", "write beats or loses to (bat or perd contre) after the card",
                               word=" ".join(words[at:at + 1]), example=g.fight_example)
    winner = "attacker" if words[at] in BEATS else "defender"
    at += 1
    while at < len(words) and words[at] in FILLER - ARTICLES:  # "perd contre Les Verts": the article is the name's
        at += 1
    defender, at = _name(g.teams, words, at, "team")
    d_card, at = _card(g, words, at)
    tokens = {}
    if at < len(words) and words[at] in TAKE:
        tokens, at = _amounts(g, words, at + 1)
    _done(words, at)
    return {"type": "fight", "attacker_team": team, "attacker_card": a_card, "defender_team": defender,
            "defender_card": d_card, "winner": winner, "tokens": tokens}


def _contribute(g, words, team, at):
    event, at = _name(g.events, words, at, "event")
    tokens, at = _amounts(g, words, at)
    return {"type": "contribute", "event": event, "team": team, "tokens": tokens}


def _award(g, words, team, at, sign=1):
    points, at = _number(words, at, "points")
    at += words[at:at + 1] == ["point"]
    reason = g.line[g.words.starts[at]:].strip() if at < len(words) else ""
    reason = reason or PAPER_REASON  # as written, accents, capitals and dashes kept
    return {"type": "award", "team": team, "points": sign * points, "reason": reason}


def _inventory(g, words, team, at):
    counted, at = _amounts(g, words, at)
    return {"type": "inventory", "team": team, "counted": counted, "reason": PAPER_REASON}


MOVES = {"harvest": _harvest, "build": _build, "buy": _buy, "raise_tracks": _tracks, "redeem_jokers": _jokers,
         "exchange": _exchange, "trade": _trade, "contribute": _contribute, "award": _award,
         "penalty": lambda g, w, t, a: _award(g, w, t, a, -1), "inventory": _inventory}
