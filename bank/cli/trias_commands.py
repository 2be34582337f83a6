"""`terrabank trias new|show|table|score|verify|play`: Trias games from the terminal.

The games are the web app's (bank/services/trias_games.py, one file each in
`<db stem>-trias/` beside the bank's database), so a game started here can be
followed in a browser and the other way round. `play` is a terminal game
against the computer opponents: numbered moves read from standard input.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import trias
from bank.cli.trias_map import board_map
from bank.cli.trias_menu import Choice, build_menu, render
from bank.cli.trias_refusals import refusal_text
from bank.cli.trias_text import describe, mode_name, narrate, status
from bank.cli.trias_words import YOU, count, kind_name, lang_of, level_name, phase_name, say
from bank.errors import BankError
from bank.game.config import load_config
from bank.store.storage_url import database_url
from bank.services.trias_games import TriasGames, open_games
from bank.web.i18n import DEFAULT, translate
from bank.web.trias.names import with_default_names
from trias.calculator import CalculatorError, score_description


def cli_url(config_path) -> str | None:
    """The database URL for `terrabank trias`: the environment, else `[storage] url` of the config
    file if there is one (the terminal's Trias commands never needed a config file before)."""
    url = database_url(None)
    if url is None and config_path and Path(config_path).is_file():
        url = database_url(load_config(config_path))
    return url



def _run(command, args, paths) -> int:
    """Open the games (folder, or database: bank/store/trias_store.py), run the subcommand, close; a refusal
    is one line and exit code 2."""
    config_path, db = paths(args)
    games = open_games(db, folder=args.games, url=None if args.games else cli_url(config_path))
    try:
        return command(args, games) or 0
    except CliError as exc:  # already in the command's language where it has one (say below)
        print(f"terrabank: {exc.message}", file=sys.stderr)
        return 2
    except trias.TriasError as exc:  # the engine's refusal, as the Trias pages word it (trias_refusals.py)
        print(f"terrabank: {refusal_text(getattr(args, 'lang', None) or DEFAULT, exc.code, exc.message)}", file=sys.stderr)
        return 2
    except BankError as exc:
        print(f"terrabank: {exc.message}", file=sys.stderr)
        return 2
    finally:
        games.close()


class CliError(trias.TriasError):
    """A problem with the command line itself."""


def _seats(specs: list, players: int | None, lang: str) -> list:
    """Seats from --seat NAME[:LEVEL] or --players N (named as the start page names them: Place 1, Posto 1)."""
    if specs and players:
        raise CliError("seats_twice", say(lang, "seats_twice"))
    if players:
        return [{"name": translate(lang, "Seat %(n)s", n=i + 1), "kind": "human"} for i in range(players)]
    seats = []
    for spec in specs:
        name, _, level = spec.rpartition(":")
        if name and level in trias.bots.LEVELS:
            seats.append({"name": name, "kind": "computer", "level": level})
        else:
            seats.append({"name": spec, "kind": "human"})
    if not seats:
        raise CliError("no_seats", say(lang, "no_seats"))
    return seats


def _game(games: TriasGames, game_id: str | None, lang: str | None):
    """The game `game_id`, or a refusal naming the latest ones in the terminal's language: --lang, else French
    (with no game found there is no game's language to speak; every sentence about a game found speaks its own)."""
    game = games.get(game_id) if game_id else None
    if game is None:
        lang = lang or DEFAULT
        known = ", ".join(g["id"] for g in games.list()[:5]) or say(lang, "none_yet")
        raise CliError("unknown_game", say(lang, "unknown_game", id=repr(str(game_id)[:40]), where=games.where,
                                           known=known))
    return game


def cmd_new(args, games: TriasGames) -> int:
    """Create a game; print its id, board page and each person's seat link."""
    game = games.create(_seats(args.seat, args.players, args.lang), args.seed, "mirror" if args.mirror else "play", args.lang)
    base, lang = (args.base or "").rstrip("/"), game.lang
    print(say(lang, "created", id=game.id, mode=mode_name(lang, game.mode), seats=count(lang, len(game.seats), "seat"),
              seed=game.seed, where=games.where))
    print(say(lang, "board_link", url=f"{base}/trias/g/{game.id}"))
    print(say(lang, "table_link", url=f"{base}/trias/g/{game.id}?t={game.table_secret}"))
    for i, seat in enumerate(game.seats, start=1):  # counted from 1, as the table and the pages count them
        if seat["kind"] == "computer":
            print(say(lang, "seat_computer", i=i, name=seat["name"], level=level_name(lang, seat["level"])))
        elif game.mode == "play":
            print(say(lang, "seat_link", i=i, name=seat["name"], url=f"{base}/trias/s/{seat['token']}"))
        else:
            print(say(lang, "seat_mirror", i=i, name=seat["name"]))
    return 0


def cmd_show(args, games: TriasGames) -> int:
    """Print a game's summary, or the list of games without an id."""
    if not args.game:
        listed = games.list()
        spoken = {g["lang"] for g in listed}
        lang = args.lang or (spoken.pop() if len(spoken) == 1 else DEFAULT)
        if not listed:
            print(say(lang, "no_games", where=games.where))
        width = max((len(mode_name(lang, g["mode"])) for g in listed), default=0)  # the modes' column
        for g in listed:
            state = say(lang, "listed_over") if g["over"] else say(lang, "listed_turn", turn=g["turn"],
                                                                   phase=phase_name(lang, g["phase"]))
            print(f"{g['id']}  {mode_name(lang, g['mode']):{width}}  {', '.join(s['name'] for s in g['seats'])}  ({state})")
        return 0
    game = _game(games, args.game, args.lang)
    print("\n".join(describe(game, None, args.lang or game.lang)))  # the game's language, as its pages
    return 0


def cmd_table(args, games: TriasGames) -> int:
    """The table's link (bank/services/trias_authority.py); a game stored before table links gets one now."""
    game = _game(games, args.game, args.lang)
    lang = args.lang or game.lang
    had = bool(game.table_secret)
    secret = game.make_table_secret("cli")
    base = (args.base or "").rstrip("/")
    print(say(lang, "table_of", id=game.id, url=f"{base}/trias/g/{game.id}?t={secret}"))
    if not had:
        print(say(lang, "table_made_now"))
    return 0


def cmd_score(args, games: TriasGames) -> int:
    """Score a described physical game; the sentence of what is wrong (in --lang, as the explanation) and exit 2
    for a bad file or a refused description."""
    path, lang = Path(args.file), args.lang
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError("no_file", say(lang, "cannot_read", path=path, why=_why_unreadable(lang, exc))) from None
    except UnicodeDecodeError:
        raise CliError("not_text", say(lang, "not_text", path=path)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:  # json's own words ("expecting value") are English: said in English only
        detail = f": {exc.msg.lower()}" if lang_of(lang) == "en" else ""
        raise CliError("bad_json", say(lang, "bad_json", path=path, line=exc.lineno, column=exc.colno,
                                       detail=detail)) from None
    except RecursionError:
        raise CliError("bad_json", say(lang, "too_nested", path=path)) from None
    except ValueError:  # Python refuses integers of thousands of digits
        raise CliError("bad_json", say(lang, "too_long_number", path=path)) from None
    try:
        result = score_description(data, args.lang)
    except CalculatorError as exc:  # the description's own mistake, in --lang too (trias_words.CALC)
        raise CliError(exc.code, f"{path}: {say(lang, 'calc_' + exc.code, **exc.params)}") from None
    if args.json:
        print(json.dumps({k: result[k] for k in ("points", "totals", "winners")}, ensure_ascii=False))
        return 0
    for line in result["lines"]:
        print(line)
    return 0


def _why_unreadable(lang: str, exc: OSError) -> str:
    """Why a file cannot be read, in words: the usual three in `lang`, else the system's own sentence."""
    for kind, key in ((FileNotFoundError, "why_missing"), (IsADirectoryError, "why_folder"),
                      (PermissionError, "why_denied")):
        if isinstance(exc, kind):
            return say(lang, key)
    return exc.strerror or str(exc)


def cmd_verify(args, games: TriasGames) -> int:
    """"ok" and the chain head in the game's language, or the problems and exit code 1. The first line is
    "ok" in every language, as the bank's own `verify` prints it: the token a script checks."""
    games.trusted = False  # an edited journal is opened here, to list every problem of it
    game = _game(games, args.game, args.lang)
    problems = game.verify()
    if problems:
        for problem in problems:
            print(problem)
        return 1
    print("ok")
    print(say(args.lang or game.lang, "chain_head", head=game._service.head(), seq=game.last_seq))
    return 0


# -- the terminal game -----------------------------------------------------------------------------

def cmd_play(args, games: TriasGames) -> int:
    """Play until the game is over or standard input ends (the game is kept and can be resumed)."""
    if args.game:
        game = _game(games, args.game, args.lang)
    else:
        if args.seat:
            seats = _seats(args.seat, None, args.lang)
        else:
            if not 1 <= args.opponents <= 4:
                raise CliError("bad_opponents", say(args.lang, "bad_opponents"))
            # The opponents are named by their level ("Computer · hard", "Ordinateur · difficile 2").
            seats = with_default_names([{"name": args.name or YOU[lang_of(args.lang)], "kind": "human"}] + [
                {"kind": "computer", "level": args.level} for _ in range(args.opponents)], args.lang)
        game = games.create(seats, args.seed, "play", args.lang)
        print(say(game.lang, "new_game", id=game.id, names=", ".join(s["name"] for s in game.seats)))
    if game.mode != "play":
        raise CliError("mirror_game", say(game.lang, "mirror_game", id=game.id))
    lang = game.lang
    while game.state.phase != "over":
        if game.computer_to_play() is not None:
            seat = game.computer_to_play()
            before = game.last_seq
            game.play_computer()
            for row in game.public_rows(before, None):
                print(say(lang, "did", name=game.seats[seat]["name"], what=narrate(game, row["events"], lang)))
            continue
        if not _human_turn(game, lang):
            print(say(lang, "stopped", id=game.id))
            return 0
    print("\n".join(describe(game, None, lang)))
    return 0


def _human_turn(game, lang) -> bool:
    """Show the map, then the grouped moves; read answers (a group opens its choices, 0 goes back) until one
    move is played, taken back or the board shown; False when input ends or asks to stop."""
    # The entry these moves were listed at: a server beside us may move the game while we read.
    state, seen = game.state, game.last_seq
    name = game.seats[state.current]["name"]
    names = [x["name"] for x in game.seats]
    screen = status(game, lang)
    if state.hands[state.current] and state.phase != "place":
        screen.append(say(lang, "hand", card=kind_name(lang, state.hands[state.current])))
    print("\n".join([""] + screen + board_map(state, names, lang)))
    stack = [Choice("", sub=build_menu(state, lang))]
    while True:
        menu = stack[-1].sub
        print("\n".join(render(menu)))
        n = len(menu)
        top = len(stack) == 1
        prompt = say(lang, "your_move", name=name, n=n) if top else say(lang, "your_pick", title=stack[-1].title, n=n)
        print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            print()
            return False
        answer = line.strip().lower()
        if not sys.stdin.isatty():  # a terminal shows what was typed; piped input is shown once, here
            print(answer)
        if answer in ("q", "quit"):
            return False
        if answer in ("b", "board"):
            print("\n".join(describe(game, state.current, lang)))
            continue
        if answer in ("0", "back") and not top:
            stack.pop()
            continue
        if not (answer.isascii() and answer.isdigit() and 1 <= int(answer) <= n) and answer not in ("u", "undo"):
            print(say(lang, "type_a_number" if top else "type_a_number_back", n=n))
            continue
        choice = None if answer in ("u", "undo") else menu[int(answer) - 1]  # isascii: not "²"
        if choice is not None and choice.cmd is None:
            stack.append(choice)
            continue
        try:
            if choice is None:
                game.undo_last(_cid(), "cli", after_seq=seen)
                print(say(lang, "taken_back"))
            else:
                result = game.execute(choice.cmd, _cid(), "cli", after_seq=seen)
                events = [trias.public_event(e, state.current) for e in result.events]
                print(say(lang, "did", name=name, what=narrate(game, events, lang)))
        except trias.TriasError as exc:
            # Said as the pages say it (with its rule), in the game's language: "Ces deux cases ne se touchent pas (T12)."
            print(refusal_text(game.lang, exc.code, exc.message))
        return True


def _cid() -> str:
    return f"cli-{uuid.uuid4().hex}"
