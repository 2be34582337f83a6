"""`terrabank print --kind trias`: the Trias set-up map, score sheet and player aid as PDFs.

Hooked into bank/cli/printing.py by two lines; T-core's `terrabank trias print` may call
`write_trias` too. No bank game is needed: a seed, or a stored Trias game's id, is enough.
"""

from __future__ import annotations

from pathlib import Path

from bank.errors import BankError

PAPERS = ("a4", "a3")


def add_options(p) -> None:
    """The Trias options of `terrabank print` (ignored by the other kinds)."""
    p.add_argument("--players", type=int, choices=range(2, 6), default=4,
                   help="Trias: seats of the seeded game whose set-up map to print (2-5, default 4)")
    p.add_argument("--seed", type=int, help="Trias: print the set-up map of the game with this seed")
    p.add_argument("--game", help="Trias: print the set-up map of this stored Trias game (its id)")
    p.add_argument("--paper", choices=PAPERS, default="a4", help="Trias: set-up map on a4 (default) or a3")


def write_trias(out: str, lang: str, *, players: int = 4, seed=None, game_id: str | None = None,
                db: str | None = None, paper: str = "a4") -> list:
    """Write the Trias documents into `out`; a BankError names what is wrong (unknown game...)."""
    from printables import trias_pack  # ReportLab is loaded only for this command

    options = {"paper": paper}
    if game_id:
        from bank.services.trias_games import TriasGames, default_folder

        games = TriasGames(default_folder(db))
        try:
            game = games.get(game_id)
            if game is None:
                raise BankError("unknown_trias_game", f"there is no Trias game {game_id!r} beside {db}: "
                                "`terrabank trias show` lists them (or give --db)", game=game_id)
            options.update(event=game.table.base[0], game=game.id, names=[s["name"] for s in game.public_seats()])
        finally:
            games.close()
    elif seed is not None:
        if not 0 <= seed < 2**63:
            raise BankError("bad_seed", "the seed must be a whole number from 0 to 9223372036854775807", seed=seed)
        options.update(players=players, seed=seed)
    else:
        options.update(players=players)
    if Path(out).exists() and not Path(out).is_dir():
        raise BankError("out_not_a_folder", f"--out {out} is a file, not a folder: give a folder, e.g. --out print",
                        path=str(out))
    return trias_pack.build(out, lang, **options)


def cmd_print_trias(args, db: str, default_lang: str) -> int:
    """Write the Trias documents of `terrabank print --kind trias` and list them."""
    written = write_trias(args.out, args.lang or default_lang, players=args.players, seed=args.seed,
                          game_id=args.game, db=db, paper=args.paper)
    for path in written:
        print(f"Wrote {path}")
    if args.seed is None and not args.game:
        print("No set-up map: give --seed N (and --players) or --game ID for one.")
    return 0
