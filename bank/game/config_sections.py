"""Readers for each section of config.toml; each checks its keys and cross-references."""

from __future__ import annotations

from bank.game.config_model import (
    COST_KINDS,
    LANGUAGES,
    Animal,
    Building,
    Cooldowns,
    FightPair,
    GameConfig,
    Resource,
    Role,
    Team,
    Track,
)
from bank.game.config_reader import Reader
from bank.game.graphemes import graphemes
from bank.game.paper_sheet import is_header
from bank.game.typed_names import as_printed, typed_key

MAX_AMOUNT = 100_000  # no real game gets near this; it keeps typos like 1000000 out


def _storage_url(storage: Reader) -> str:
    """[storage] url: a PostgreSQL URL without a password; absent = the SQLite file.

    The config's text is kept in every game's journal, so a password written here would be
    copied into each game: it belongs in ~/.pgpass or the TERRABANK_DATABASE_URL variable.
    """
    from urllib.parse import urlsplit

    if storage.get("url", None) is None:
        return ""
    url = storage.str("url").strip()
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("postgresql", "postgres"):
        storage.fail("url", "must be a PostgreSQL URL such as postgresql://terrabank@localhost/terrabank "
                     "(leave it out to keep the game in the SQLite file)")
    if parts.password is not None or "password=" in parts.query:
        storage.fail("url", "must not contain a password: config.toml is copied into every game's journal; "
                     "put the password in ~/.pgpass or give the whole URL in TERRABANK_DATABASE_URL")
    return url


def _storage_queue(storage: Reader) -> str:
    """[storage] queue: the Redis URL through which several server processes of one game tell
    each other of each booked row; absent = one process. No password, as for url."""
    from urllib.parse import urlsplit

    if storage.get("queue", None) is None:
        return ""
    url = storage.str("queue").strip()
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("redis", "rediss", "unix"):
        storage.fail("queue", "must be a Redis URL such as redis://localhost:6379/0 (leave it out when "
                     "one server process runs the game)")
    if parts.password is not None:
        storage.fail("queue", "must not contain a password: config.toml is copied into every game's journal; "
                     "give the whole URL in TERRABANK_QUEUE_URL instead")
    return url


def read_all(root: Reader, text: str) -> GameConfig:
    """Read every section in dependency order: resources first, then what cites them."""
    game = root.sub("game")
    resources = _resources(root)
    res_ids = tuple(resources)
    harvestable = tuple(r for r, res in resources.items() if res.harvestable)
    teams = _teams(root, harvestable)
    roles = _roles(root)
    buildings = _buildings(root, res_ids)
    tracks = _tracks(root, res_ids)
    animals = _animals(root, res_ids)
    bank, start, harvest = root.sub("bank"), root.sub("start"), root.sub("harvest")
    dice, jokers, exchange = root.sub("dice"), root.sub("jokers"), root.sub("exchange")
    options, fights, end = root.sub("options"), root.sub("fights"), root.sub("end")
    cap, track_rules = root.sub("building_rules"), root.sub("track_rules")
    server, wifi, storage = root.sub("server", {}), root.sub("wifi", {}), root.sub("storage", {})
    printing = root.sub("print", {})
    config = GameConfig(
        text=text,
        title=game.label("title"),
        duration_seconds=game.int("duration_minutes", minimum=1, maximum=24 * 60) * 60,
        sessions=game.int("sessions", minimum=1, maximum=10),
        language=game.str("language", "fr", choices=LANGUAGES),
        clock_tolerance=game.int("clock_jump_tolerance_seconds", 120, minimum=5, maximum=3600),
        reserve=bank.amounts("reserve", res_ids),
        low_stock_warning=bank.int("low_stock_warning", 0, maximum=MAX_AMOUNT),
        refuse_when_empty=bank.bool("refuse_when_empty", False),
        own_colour_tokens=start.int("own_colour_tokens", maximum=MAX_AMOUNT),
        extra_start=start.amounts("extra", res_ids, {}),
        resources=resources,
        teams=teams,
        roles=roles,
        harvest_base=harvest.int("base", minimum=1, maximum=100),
        team_bonus=harvest.int("team_bonus", 1, maximum=100),
        harvest_interval=harvest.int("min_interval_seconds", 0, maximum=3600),
        dice_faces=_dice_faces(dice, res_ids),
        points_per_joker=jokers.int("points_per_joker", 1, maximum=100),
        exchange_tokens=exchange.int("tokens", minimum=1, maximum=MAX_AMOUNT),
        exchange_points=exchange.int("points", minimum=1, maximum=MAX_AMOUNT),
        options={name: options.bool(name, False) for name in ("team_bonus", "everyone_fights", "second_pirate")},
        second_pirate_cost=options.amounts("second_pirate_cost", res_ids, {}),
        losing_pirate_gives_tokens=fights.bool("losing_pirate_gives_tokens", False),
        fight_pairs=_fight_pairs(fights, roles),
        cooldowns=_cooldowns(fights),
        building_cap=cap.int("cap", minimum=0, maximum=100),
        buildings=buildings,
        animal_unlock_level=track_rules.int("animal_unlock_level", minimum=0),
        tracks=tracks,
        animals=animals,
        reputation_threshold=end.int("reputation_threshold", minimum=1, maximum=MAX_AMOUNT),
        animals_threshold=end.int("animals_threshold", minimum=1, maximum=1000),
        host=server.str("host", "0.0.0.0"),
        port=server.int("port", 5000, minimum=1, maximum=65535),
        phones_per_team=server.int("phones_per_team", 50, minimum=1, maximum=1000),
        spare_pages_per_link=server.int("spare_pages_per_link", 10, minimum=0, maximum=1000),
        wifi_ssid=_plain_text(wifi, "ssid"),
        wifi_password=_plain_text(wifi, "password"),
        print_paper=printing.str("paper", "a4", choices=("a4", "letter")),
        state_every_minutes=printing.int("state_every_minutes", 10, minimum=0, maximum=240),
        storage_url=_storage_url(storage),
        storage_queue=_storage_queue(storage),
    )
    for section in (server, wifi, storage, printing, game, bank, start, harvest, dice, jokers, exchange, options, fights, end, cap, track_rules, root):
        section.done()
    _cross_checks(root, config)
    return config


def _plain_text(section: Reader, name: str) -> str:
    """A text that may be empty (the Wi-Fi name and password)."""
    value = section.get(name, "")
    if not isinstance(value, str):
        section.fail(name, f"must be a text in quotes, got {value!r}")
    return value


def _resources(root: Reader) -> dict:
    """The kinds of token (R5), exactly one of them the joker (R6)."""
    table = root.sub("resources")
    resources = {}
    for rid in table.table:
        r = table.sub(rid)
        resources[rid] = Resource(rid, r.label(), r.colour("colour"), r.bool("harvestable"), r.bool("joker", False))
        r.done()
    jokers = [r.id for r in resources.values() if r.joker]
    if len(jokers) != 1:
        root.fail("resources", f"must have exactly one resource with joker = true (R6), found {len(jokers)}")
    if resources[jokers[0]].harvestable:
        table.fail(f"{jokers[0]}.harvestable", "must be false: jokers are never harvested (R7)")
    return resources


def _teams(root: Reader, harvestable: tuple) -> dict:
    teams = {}
    entries = root.subs("teams")
    if not 2 <= len(entries) <= 6:
        root.fail("teams", f"must list 2 to 6 teams (R1), found {len(entries)}")
    for t in entries:
        tid = t.str("id")
        if tid in teams:
            t.fail("id", f"repeats the team id {tid!r}; each team needs its own id")
        if not tid.isidentifier():
            t.fail("id", f"must be a short word of letters, digits or _ (it goes in links), got {tid!r}")
        teams[tid] = Team(tid, _team_label(t), t.colour("colour"), t.str("resource", choices=harvestable),
                          _team_short(t) if "short" in t.table else None)
        _typed_apart(t, teams)
        t.done()
    return teams


def _typed_apart(t: Reader, teams: dict) -> None:
    """A team's name must be writable by hand and told apart from the others' once written: the paper
    re-entry reads names without case, accents, emoji, dashes or a leading article
    (bank/game/typed_names.py), so 'Les Verts' and 'Verts', or 'Écureuils' and 'ecureuils 🐿', are one name."""
    team = list(teams.values())[-1]
    for lang, text in team.label.items():
        if not typed_key(text):
            t.sub("label").fail(lang, f"{text!r} has no letter or digit: a banker writes the team's name by hand "
                                "on the paper ledgers and types it back")
        if text.lstrip().startswith("#") or is_header(f"{text} récolte"):  # book_lines reads such a line first
            t.sub("label").fail(lang, f"{text!r} would start a typed ledger line as a note (#) or a sheet's id "
                                "(feuille 412C): the paper re-entry would not read the move; start the name otherwise")
    mine = {typed_key(form) for text in team.label.values() for form in as_printed(text)}
    for other in list(teams.values())[:-1]:
        same = mine & {typed_key(form) for text in other.label.values() for form in as_printed(text)}
        if same:
            t.sub("label").fail(next(iter(team.label)), f"is typed as {' '.join(next(iter(same)))!r}, as team "
                                f"{other.id!r}'s name is: without case, accents, emoji, dashes or a leading article "
                                "the paper re-entry cannot tell them apart; give the teams names that differ in a letter")


# A team's name sits beside its score on a 360 px phone header, a console button and the fight
# page: up to 30 characters wrap onto two or three lines there (or are cut with "…" in the
# standings) and leave the score in view; longer names would only be cut.
TEAM_NAME_MAX = 30


TEAM_SHORT_MAX = 14  # the big screen's chips and chart labels hold about this many letters at 1280x720


def _longer_than(reader: Reader, key: str, texts: dict, most: int, what: str, why: str) -> None:
    """Refuse a text of more than `most` seen characters, suggesting it cut there (never inside an emoji)."""
    for lang, text in texts.items():
        chars = graphemes(text.strip())
        if len(chars) > most:
            reader.sub(key).fail(lang, f"is {len(chars)} characters long; {what} has at most {most} {why}, "
                                 f"e.g. {''.join(chars[:most]).strip()!r}")


def _team_short(t: Reader) -> dict:
    shorts = t.label("short")
    _longer_than(t, "short", shorts, TEAM_SHORT_MAX, "a short name", "(it stands for the team where room is tight)")
    return {lang: text.strip() for lang, text in shorts.items()}


def _team_label(t: Reader) -> dict:
    labels = t.label()
    _longer_than(t, "label", labels, TEAM_NAME_MAX, "a team name", "so it fits beside the score on a phone")
    return labels


def _roles(root: Reader) -> dict:
    """Roles with their cards (R9) and strength, printed on the cards (R10)."""
    table = root.sub("roles")
    roles = {}
    for rid in table.table:
        r = table.sub(rid)
        roles[rid] = Role(rid, r.label(), r.int("strength", minimum=1, maximum=10), r.int("cards", minimum=0, maximum=10),
                          r.bool("harvests", False), r.bool("pirate", False))
        r.done()
    if sum(r.pirate for r in roles.values()) != 1:
        root.fail("roles", "must have exactly one role with pirate = true (R18)")
    if not any(r.harvests for r in roles.values()):
        root.fail("roles", "must have a role with harvests = true (R11)")
    return roles


def _building(b: Reader, bid: str, res_ids: tuple, building_ids: tuple) -> Building:
    return Building(
        id=bid,
        label=b.label(),
        cost=b.amounts("cost", res_ids),
        reputation=b.int("reputation", maximum=MAX_AMOUNT),
        requires_buildings=b.ids("requires_buildings", building_ids, (), what="building"),
        requires_animals=b.int("requires_animals", 0, maximum=100),
        cap_exempt=b.bool("cap_exempt", False),
        lifts_cap=b.bool("lifts_cap", False),
        harvest_multiplier=b.amounts("harvest_multiplier", res_ids, {}),
        discount=b.amounts("discount", res_ids, {}),
        discount_applies_to=b.ids("discount_applies_to", COST_KINDS, (), what="kind of cost"),
        dice_per_harvested_token=b.int("dice_per_harvested_token", 0, maximum=10),
        dice_on_build=b.int("dice_on_build", 0, maximum=100),
    )


def _buildings(root: Reader, res_ids: tuple) -> dict:
    table = root.sub("buildings")
    ids = tuple(table.table)
    buildings = {}
    for bid in ids:
        b = table.sub(bid)
        buildings[bid] = _building(b, bid, res_ids, ids)
        b.done()
    return buildings


def _tracks(root: Reader, res_ids: tuple) -> dict:
    table = root.sub("tracks")
    tracks = {}
    for tid in table.table:
        t = table.sub(tid)
        length = t.int("length", minimum=1, maximum=100)
        icons = {}
        icon_table = t.sub("icons", {})
        for level in icon_table.table:
            if not level.isdigit() or not 1 <= int(level) <= length:
                icon_table.fail(level, f"must be a level from 1 to {length}")
            icons[int(level)] = icon_table.amounts(level, res_ids + ("dice",), what="bonus (a resource or dice)")
        icon_table.done()
        tracks[tid] = Track(tid, t.label(), t.str("resource", choices=res_ids), length,
                            t.int("step_cost", minimum=1, maximum=MAX_AMOUNT), t.int("reputation_per_step", maximum=100), icons)
        t.done()
    if not tracks:
        root.fail("tracks", "must define at least one terraformation track (R24)")
    return tracks


def _animals(root: Reader, res_ids: tuple) -> dict:
    table = root.sub("animals")
    animals = {}
    for aid in table.table:
        a = table.sub(aid)
        animals[aid] = Animal(aid, a.label(), a.str("kind", choices=("common", "unique")), a.amounts("cost", res_ids),
                              a.int("reputation", maximum=MAX_AMOUNT))
        a.done()
    return animals


def _dice_faces(dice: Reader, res_ids: tuple) -> tuple:
    faces = dice.ids("faces", res_ids, what="resource")
    if not faces:
        dice.fail("faces", "must list at least one face (R15)")
    return faces


def _fight_pairs(fights: Reader, roles: dict) -> tuple:
    pairs, seen = [], set()
    for p in fights.subs("pairs"):
        names = p.ids("roles", tuple(roles), what="role")
        rounds = p.get("rounds")
        if len(names) != 2:
            p.fail("roles", f"must name exactly two roles, got {len(names)}")
        if not (isinstance(rounds, list) and len(rounds) == 2 and all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 20 for n in rounds)):
            p.fail("rounds", "must be two whole numbers from 1 to 20, e.g. [1, 3]")
        if frozenset(names) in seen:
            p.fail("roles", f"repeats the pair {names[0]} / {names[1]}; keep one line per pair")
        seen.add(frozenset(names))
        pairs.append(FightPair(tuple(names), tuple(rounds), p.bool("everyone_fights_only", False)))
        p.done()
    return tuple(pairs)


def _cooldowns(fights: Reader) -> dict:
    table = fights.sub("cooldowns")
    result = {}
    for name in ("base", "everyone_fights"):
        c = table.sub(name)
        result[name] = Cooldowns(*(c.int(k, maximum=3600) for k in ("pirate_wins", "pirate_loses", "other_wins", "other_loses")))
        c.done()
    table.done()
    return result


def _cross_checks(root: Reader, config: GameConfig):
    """Checks that span sections: what the rules assume of the whole config."""
    joker = config.joker
    for bid, b in config.buildings.items():
        if joker in b.cost:
            root.fail(f"buildings.{bid}.cost", "must not ask for jokers: jokers stand in for other tokens (R23)")
    for tid, t in config.tracks.items():
        if t.resource == joker:
            root.fail(f"tracks.{tid}.resource", "cannot be the joker (R24)")
    if not config.roles[config.pirate_role().id].cards:
        root.fail(f"roles.{config.pirate_role().id}.cards", "must be at least 1: every team starts with a pirate (R9)")
    longest = min(t.length for t in config.tracks.values())
    if config.animal_unlock_level > longest:
        root.fail("track_rules.animal_unlock_level", f"must be at most {longest}, the length of the shortest track")
