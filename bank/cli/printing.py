"""`terrabank print`: write the print pack (role cards, boards, join cards, report) as PDFs."""

from __future__ import annotations

from pathlib import Path

from bank.cli import printing_trias as cli_print_trias
from bank.game.config import load_config
from bank.game.config_model import LANGUAGES
from bank.errors import BankError
from bank.web.i18n import TRIAS_LANGUAGES

KINDS = ("cards", "boards", "sheets", "join", "report", "all")  # same as printables.pack.KINDS
NEEDS_GAME = ("join", "report")


def add_parser(sub, paths) -> None:
    """Register `print` on the main parser; `paths(args)` gives (config path, database path)."""
    p = sub.add_parser("print", help="write the print pack as PDF files")
    p.add_argument("--kind", choices=(*KINDS, "trias"), default="all",
                   help="cards: role cards; boards: each team's boards, the rules page, the bonus dice; "
                        "sheets: the bank's summary and ledgers, the shared boards, score track, rate sign, "
                        "event sheet; join: join cards and big-screen poster; report: end-of-game report; "
                        "all (default): everything the game has the data for; trias: the Trias set-up map "
                        "(--seed or --game), score sheet and player aid")
    p.add_argument("--out", default="print", help="folder for the PDF files (default: print)")
    p.add_argument("--lang", choices=(*LANGUAGES, *(x for x in TRIAS_LANGUAGES if x not in LANGUAGES)),
                   help="language (default: config [game] language); it (Italian) for --kind trias only")
    p.add_argument("--base", help="the address phones use, e.g. http://192.168.4.1:5000 (join cards, poster)")
    p.add_argument("--loopback", action="store_true",
                   help="print team links to a loopback address (127.0.0.1, localhost) anyway: only this "
                        "machine can open them, for a test")
    p.add_argument("--wifi-ssid", help="Wi-Fi network name for the join cards' QR code")
    p.add_argument("--wifi-password", default="", help="Wi-Fi password for the join cards' QR code")
    cli_print_trias.add_options(p)  # trias: set-up map, score sheet, player aid (not part of "all")
    _paper_option(p)
    p.set_defaults(func=lambda args: cmd_print(args, *paths(args)))


_LANGUAGE_NAMES = {"it": "Italian"}  # the Trias printables' languages the field game's sheets lack

PAPERS = ("a4", "letter")  # the print pack's sheets; "a3" is the Trias set-up map's only


def _paper_option(p) -> None:
    """One --paper for every kind: a4 or letter for the pack (default: config.toml's [print] paper), and
    a3 as well for the Trias set-up map. The Trias options added --paper first; it is widened here."""
    for action in p._actions:
        if "--paper" in action.option_strings:
            action.choices = (*PAPERS, *(c for c in action.choices or () if c not in PAPERS))
            action.default = None
            action.help = ("sheet size: a4 or letter (US Letter) for every printable, default config.toml's "
                           "[print] paper (a4); the A3 boards and score track stay A3, their halves follow it; "
                           "trias: the set-up map on a4, letter or a3")


def _pack_paper(args, config) -> str:
    """The paper of the print pack: --paper, else config.toml's [print] paper; a3 is refused with why."""
    paper = args.paper or config.print_paper
    if paper not in PAPERS:
        raise BankError("bad_paper", f"--paper {paper} is for the Trias set-up map only; the print pack comes on "
                        f"{' or '.join(PAPERS)} (its shared boards and score track are A3 already)", paper=paper)
    return paper


def _team_urls(db: str, config, base: str) -> dict:
    """Each team's phone page address, from the tokens kept in the game's database."""
    from bank.store.accounts import open_access  # the accounts keep the tokens; loaded only for join cards

    access = open_access(db, config)  # the SQLite file, or the game's rows in PostgreSQL
    try:
        tokens = access.ensure_team_tokens(config.teams)
    finally:
        access.close()
    return {team: f"{base}/t/{tokens[team]}" for team in config.teams if team in tokens}


def _base(args, config, db: str) -> str:
    """--base, else the address `serve` last printed for this game, else this machine's network address.

    Refused when it is a loopback address and --loopback was not given:
    cards whose codes open the scanning phone itself would be found out only at the game.
    The address used is always said, with where it came from: never chosen silently.
    """
    from bank.cli.serve import addresses, remembered_address
    from bank.web.field.addresses import normalise, require_reachable

    if args.base:
        base, source = normalise(args.base), "--base"
    elif remembered_address(db):
        base, source = normalise(remembered_address(db)), "the address the bank last served on"
    else:
        base, source = f"http://{addresses()[0]}:{config.port}", "this machine's network address"
    require_reachable(base, args.loopback, "add --loopback")
    print(f"Team links and the poster use {base} ({source}); if the phones reach the bank elsewhere, give --base.")
    return base


def cmd_print(args, config_path: str, db: str) -> int:
    """Write the PDFs of --kind into --out and list them; skip what needs a game if there is none."""
    from printables import pack  # ReportLab is loaded only for this command

    if args.kind != "trias" and args.lang and args.lang not in LANGUAGES:  # before anything is read or written
        raise BankError("trias_only_language", f"{_LANGUAGE_NAMES.get(args.lang, args.lang)} is available for Trias "
                        f"printables only: use --lang {' or '.join(LANGUAGES)} for the field game's pack "
                        f"(or --kind trias)", lang=args.lang)
    config = load_config(config_path)
    if args.kind == "trias":
        args.paper = args.paper or config.print_paper
        return cli_print_trias.cmd_print_trias(args, db, config.language)
    paper = _pack_paper(args, config)
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise BankError("out_not_a_folder", f"--out {args.out} is a file, not a folder; the print pack writes "
                        "several PDFs: give a folder, e.g. --out print", path=str(args.out))
    has_game = Path(db).is_file()
    if args.kind in NEEDS_GAME and not has_game:
        raise BankError("no_game", f"{args.kind} needs a game, and there is none at {db}: create it with "
                        "`terrabank init` (or give --db)", path=db)
    base = skipped = None
    if has_game and args.kind == "join":
        base = _base(args, config, db)  # refused before anything is opened or written
    elif has_game and args.kind == "all":
        try:
            base = _base(args, config, db)
        except BankError as exc:  # the rest of the pack is still worth printing
            skipped = exc.message
    bank, inputs = None, {}
    if has_game and args.kind in (*NEEDS_GAME, "all"):
        from bank.services.bank import Bank

        bank = inputs["bank"] = Bank.open(db, config)
    if base:
        ssid = args.wifi_ssid or config.wifi_ssid  # the flags override config.toml's [wifi]
        password = args.wifi_password or config.wifi_password
        wifi = (ssid, password) if ssid else None
        inputs.update(team_urls=_team_urls(db, config, base), base=base, wifi=wifi)
    try:
        written = pack.build(args.kind, args.out, config, args.lang, paper=paper, **inputs)
    finally:
        if bank is not None:
            bank.close()
    for path in written:
        print(f"Wrote {path}")
    if skipped:
        print(f"Join cards and poster skipped: {skipped}")
    if args.kind == "all" and not has_game:
        print(f"No game at {db}: join cards and the report were skipped (create it with `terrabank init`).")
    if args.kind in ("join", "all") and has_game and not skipped and not (args.wifi_ssid or config.wifi_ssid):
        print("The join cards have no Wi-Fi code: set [wifi] ssid and password in config.toml.")
    return 0
