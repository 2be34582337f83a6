"""`terrabank trias`'s command line: its subcommands and options, without the commands themselves.

Every `terrabank` start builds the whole parser, `trias` included: the commands (bank/cli/trias_commands.py)
load the Trias engine, its computer players and the games' store, imported only when a `trias` command runs.
"""

from __future__ import annotations

from bank.web.i18n import TRIAS_LANGUAGES

LEVELS = ("random", "easy", "medium", "hard")  # trias.bots.LEVELS, the same (tests/cli/test_cli_trias.py)
LANGS = TRIAS_LANGUAGES  # fr, en, it: the terminal game speaks the Trias pages' languages (trias_words.py)
LANG_HELP = "language of what is printed (default: the game's; French when the game is not found)"
SEAT_HELP = ("a seat, in turn order: NAME for a person, NAME:LEVEL for a computer opponent "
             f"(LEVEL: {', '.join(LEVELS)}); repeat for 2 to 5 seats")


def add_parser(sub, paths) -> None:
    """Register `trias` and its subcommands; `paths(args)` gives (config path, database path)."""
    p = sub.add_parser("trias", help="Trias games: new, show, score, verify, play in the terminal")
    p.add_argument("--games", help="folder of the Trias games (default: <db name>-trias beside the database, or "
                   "the database itself when a database URL is set)")
    tsub = p.add_subparsers(dest="trias_command", required=True, metavar="TRIAS_COMMAND")

    q = tsub.add_parser("new", help="create a game and print its board and seat links")
    q.add_argument("--players", type=int, metavar="N", help="N people at the table (2 to 5), named Seat 1...")
    q.add_argument("--seat", action="append", default=[], metavar="NAME[:LEVEL]", help=SEAT_HELP)
    q.add_argument("--seed", type=int, help="the seed of the set-up (default: random)")
    q.add_argument("--mirror", action="store_true", help="mirror a physical table: moves are recorded, cards named")
    q.add_argument("--lang", choices=LANGS, default="fr")
    q.add_argument("--base", help="the address phones use, e.g. http://192.168.4.1:5000, to print whole links")
    q.set_defaults(func=lambda args: _run("cmd_new", args, paths))

    q = tsub.add_parser("show", help="print a game's board, turn, scores and hands")
    q.add_argument("game", help="the game's id (terrabank trias show lists them when omitted)", nargs="?")
    q.add_argument("--lang", choices=LANGS, help="language of the summary (default: the game's; the list: its games' "
                   "language when they share one, else French)")
    q.set_defaults(func=lambda args: _run("cmd_show", args, paths))

    q = tsub.add_parser("table", help="print a game's table link (made now for a game stored before table links)")
    q.add_argument("game", help="the game's id")
    q.add_argument("--base", help="the address the table's screen uses, e.g. http://192.168.4.1:5000")
    q.add_argument("--lang", choices=LANGS, help=LANG_HELP)
    q.set_defaults(func=lambda args: _run("cmd_table", args, paths))

    q = tsub.add_parser("score", help="final scoring of a physical game from a JSON file of its land masses")
    q.add_argument("file", help='JSON: {"land_masses": [{"name": "A", "tiles": 3, "main": false, '
                                '"herds": {"Black": 3}}, ...], "stock": {"Black": 2}}')
    q.add_argument("--json", action="store_true", help="print {points, totals, winners} as JSON")
    q.add_argument("--lang", choices=LANGS, default="en", help="language of the explanation")
    q.set_defaults(func=lambda args: _run("cmd_score", args, paths))

    q = tsub.add_parser("verify", help="check a game's journal: chain, rows and a full replay")
    q.add_argument("game")
    q.add_argument("--lang", choices=LANGS, help=LANG_HELP)
    q.set_defaults(func=lambda args: _run("cmd_verify", args, paths))

    q = tsub.add_parser("play", help="play in the terminal against computer opponents (moves read from stdin)")
    q.add_argument("game", nargs="?", help="resume this game (default: start a new one)")
    q.add_argument("--name", help="your name (new game; default You, Vous in French, Tu in Italian)")
    q.add_argument("--opponents", type=int, default=1, metavar="N", help="computer opponents, 1 to 4 (new game)")
    q.add_argument("--level", choices=LEVELS, default="easy", help="their level (new game; default easy)")
    q.add_argument("--seat", action="append", default=[], metavar="NAME[:LEVEL]",
                   help=SEAT_HELP + "; replaces --name, --opponents and --level")
    q.add_argument("--seed", type=int)
    q.add_argument("--lang", choices=LANGS, default="fr")
    q.set_defaults(func=lambda args: _run("cmd_play", args, paths))


def _run(command: str, args, paths) -> int:
    from bank.cli import trias_commands

    return trias_commands._run(getattr(trias_commands, command), args, paths)
