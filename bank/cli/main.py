"""The `terrabank` command: create a game, look at it, export it, verify it."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from pathlib import Path

from bank.cli import config_commands as cli_config
from bank.cli import migrate as cli_migrate
from bank.cli import printing as cli_print
from bank.cli import trias_parser as cli_trias
from bank.cli import serve as cli_web
from bank.store import gamefile
from bank.store import storage_url
from bank.game import views
from bank.game.config import load_config
from bank.game.graphemes import columns
from bank.game.typed_names import named
from bank.errors import BankError, ConfigError
from bank.services.export import FORMATS, export_journal, export_standings
from bank.services.export_witness import exported_heads, witness_problems
from bank.services.bank import Bank
from bank.store.storage import StorageError

DEFAULT_CONFIG = "config.toml"
DEFAULT_DB = "terrabank.db"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; each subcommand sets `func(args) -> exit code`."""
    parser = argparse.ArgumentParser(prog="terrabank", description="The central bank of "
                                     "the terraforming field game.")
    parser.add_argument("--config", help="game configuration (default: $TERRABANK_CONFIG "
                        f"or {DEFAULT_CONFIG} in the current folder)")
    parser.add_argument("--db", help=f"game database (default: $TERRABANK_DB or {DEFAULT_DB})")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("init", help="create a new game from the config")
    p.add_argument("--force", action="store_true",
                   help="replace an existing game (refused while the bank runs; a dated copy of the old "
                   "game is kept beside it, or in PostgreSQL the old game keeps its rows under a dated name; "
                   "the facilitator accounts are carried over)")
    p.add_argument("--keep-links", action="store_true",
                   help="with --force: keep the teams' phone links too, so printed join cards still work")
    p.set_defaults(func=cmd_init)

    sub.add_parser("standings", help="show the standings").set_defaults(func=cmd_standings)

    p = sub.add_parser("team", help="show one team's stock, buildings and animals")
    p.add_argument("team", help="team id or name as written, e.g. blue or \"les bleus\"")
    p.set_defaults(func=cmd_team)

    p = sub.add_parser("export", help="write the journal or the standings to a file")
    p.add_argument("what", choices=("journal", "standings"))
    p.add_argument("--format", choices=FORMATS, default="json")
    p.add_argument("--out", required=True, help="output file")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("verify", help="replay the journal and check the game's consistency")
    p.add_argument("--at", type=int, metavar="N", help="print the chain's hash at entry N, recomputed from the rows")
    p.add_argument("--witness", metavar="FILE", help="a journal export taken earlier (terrabank export journal): "
                   "check that the game still holds every entry as it was exported")
    p.set_defaults(func=cmd_verify)
    cli_web.add_parsers(sub, _paths)
    cli_print.add_parser(sub, _paths)
    cli_trias.add_parser(sub, _paths)
    cli_migrate.add_parser(sub, _paths)
    cli_config.add_parser(sub, _paths)
    return parser


def main(argv=None) -> int:
    """Entry point of the `terrabank` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except BankError as exc:
        return _fail(exc.message, exc.params.get("exit_status", 2))
    except ConfigError as exc:
        return _fail(str(exc))


def _fail(message: str, status: int = 2) -> int:
    """One readable line on stderr, exit code 2 (or the refusal's own, e.g. one systemd must not restart on):
    no traceback for a known problem."""
    print(f"terrabank: {message}", file=sys.stderr)
    return status


def _paths(args) -> tuple[str, str]:
    """The config and database paths: option, else environment, else default."""
    config = args.config or os.environ.get("TERRABANK_CONFIG") or DEFAULT_CONFIG
    db = args.db or os.environ.get("TERRABANK_DB") or DEFAULT_DB
    return config, db


@contextmanager
def _open_bank(args):
    """Load the config and open the game, closing it afterwards."""
    config_path, db = _paths(args)
    bank = Bank.open(db, load_config(config_path))
    try:
        yield bank
    finally:
        bank.close()


def _text(label, language: str) -> str:
    """A label from the config ({fr, en}) or a plain string, in the game's language."""
    if isinstance(label, dict):
        return label.get(language) or next(iter(label.values()), "")
    return str(label)


def _count(value) -> int:
    """A view field that may be a list of ids or already a number."""
    return len(value) if isinstance(value, (list, tuple)) else int(value or 0)


def cmd_init(args) -> int:
    """Create the game database from the config; with --force, replace one no server is using."""
    config_path, db = _paths(args)
    config = load_config(config_path)
    where = storage_url.target(db, config)
    # Held until the new game is in place: a `serve` started meanwhile is refused, not fed a dying file.
    # No lease (journal_pg_lease.py): a one-off command; a restart of PostgreSQL ends it anyway.
    with storage_url.hold(db, config, "terrabank init", lease_it=False):
        if isinstance(where, storage_url.PostgresTarget):  # the journal is in PostgreSQL
            _init_in_database(where, db, config, args.force, args.keep_links)
            print(f"Created a new {where.name} from {config_path}.")
            return 0
        if args.force and Path(db).exists():
            _replace_game(db, config, args.keep_links)
        else:
            Bank.create(db, config, force=args.force).close()
    print(f"Created a new game in {os.path.abspath(db)} from {config_path}.")
    return 0


def _init_in_database(where, db: str, config, force: bool, keep_links: bool) -> None:
    """init on PostgreSQL: the replaced game is renamed, never copied nor deleted (journal_pg.rename_game);
    the new one gets copies of its accounts (and links, if asked), as for a file."""
    old = where.summary()
    if old is not None and not force:
        raise StorageError("database_exists", f"A {where.name} already exists: use `terrabank init --force` to "
                           f"replace it ({where.kept_note}), or choose another --db name.", path=where.game)
    if old is not None:
        print(f"Replacing the {where.name} ({_n(old[1], 'booked command')}): the old game stays in the "
              "database under a dated name; nothing is deleted.")
    Bank.create(db, config, force=force).close()
    if old is None:
        return
    from bank.store.accounts.access_pg import carry_over  # the accounts' store (bank/store/accounts/access_pg.py)

    accounts, _ = carry_over(where.url, old[0], where.game, config.teams, links=keep_links)
    kept = where.name_of(old[0])
    if kept is not None:
        print(f"The old game is kept as {kept!r} (terrabank --db {kept} standings shows it).")
    links = "kept, so printed join cards still work" if keep_links else \
        "new: show them with `terrabank links` or print the join cards again (terrabank print --kind join)"
    print(f"The new game has the old one's {_n(accounts, 'facilitator account')}; the teams' phone links are {links}."
          if accounts else f"The old game had no facilitator account to carry over; the teams' phone links are {links}.")


def _replace_game(db: str, config, keep_links: bool) -> None:
    """Keep a copy of the old game, say what it held, create the new one, carry the accounts over."""
    copy = gamefile.backup(db)
    held = gamefile.contents(copy)
    if held is None:
        print(f"Replacing {db}, which cannot be read as a game; it is kept as it was in {copy.resolve()}.")
    else:
        links = _n(held["links"], "team link")
        links = f"keeping its {links}" if keep_links else f"replacing its {links} with new ones"
        print(f"Replacing the game in {db}: wiping its {_n(held['commands'], 'booked command')}, keeping its "
              f"{_n(held['accounts'], 'facilitator account')}, {links}.")
        print(f"The old game is kept in {copy.resolve()} (terrabank --db {copy.resolve()} standings shows it).")
    Bank.create(db, config, force=True).close()
    gamefile.carry_over(copy, db, config.teams, links=keep_links)
    if held and held["links"] and not keep_links:
        print("The teams' phone links are new: show them with `terrabank links` or print the join cards "
              "again (terrabank print --kind join); the old links and cards no longer work.")


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def cmd_standings(args) -> int:
    """Print the standings as a plain-text table."""
    with _open_bank(args) as bank:
        rows = views.standings(bank.state, bank.config, bank.now())
        language = bank.config.language
    table = [("Rank", "Team", "Reputation", "Animals", "Buildings")]
    table += [(str(r["rank"]), _text(r["label"], language), str(r["reputation"]),
               str(_count(r["animals"])), str(_count(r["buildings"]))) for r in rows]
    widths = [max(columns(line[i]) for line in table) for i in range(len(table[0]))]
    for line in table:  # padded by the columns a terminal gives each name (an emoji takes two, a family too)
        print("  ".join(cell + " " * (w - columns(cell)) if i == 1 else cell.rjust(w)
                        for i, (cell, w) in enumerate(zip(line, widths))).rstrip())
    return 0


def _team_named(config, written: str) -> str:
    """The team `written` names: its id, or its name in any language as people type it ("l'equipe des
    ebenes" for "L'Équipe des Ébènes"); a name that fits two teams, or none, is refused naming the teams."""
    if written in config.teams:
        return written
    found = named({t.id: [*t.label.values(), t.id] for t in config.teams.values()}, written)
    if len(found) == 1:
        return found[0]
    listed = ", ".join(f"{_text(config.teams[t].label, config.language)} ({t})" for t in config.teams if not found or t in found)
    if found:
        raise BankError("ambiguous_team", f"{written!r} could be {listed}: write more of the name, or its id")
    raise BankError("unknown_team", f"there is no team {written!r}; teams: {listed}")


def cmd_team(args) -> int:
    """Print one team's reputation, stock, buildings, animals and cooldowns."""
    with _open_bank(args) as bank:
        config = bank.config
        view = views.team_view(bank.state, config, _team_named(config, args.team), bank.now())
    language = config.language
    stock = ", ".join(f"{_text(config.resources[r].label, language)} {n}"
                      for r, n in view["stock"].items() if n) or "none"
    cooldowns = ", ".join(f"{card} {s} s" for card, s in view["cooldowns"].items()) or "none"
    print(f"{_text(view['label'], language)} ({view['team']})")
    print(f"Reputation: {view['reputation']}")
    print(f"Stock: {stock}")
    print(f"Buildings: {', '.join(view['buildings']) or 'none'}")
    print(f"Animals: {', '.join(view['animals']) or 'none'}")
    print(f"Cooldowns: {cooldowns}")
    return 0


def check_out_path(out, config_path: str, db: str) -> None:
    """Refuse an --out that would replace the game itself: the database, its WAL, its secret or the config.

    The export is written atomically (temp file + rename), so `--out terrabank.db`
    would silently swap the whole game for a CSV file.
    """
    target = Path(out).resolve()
    base = Path(db).resolve()
    kept = {base, Path(f"{base}-wal"), Path(f"{base}-shm"), Path(f"{base}-journal"), base.with_suffix(".secret"),
            gamefile.lock_path(base), Path(config_path).resolve()}
    if target in kept:
        raise BankError("out_is_game_file", f"--out {out} is one of the game's own files; write the export to "
                        "another name, e.g. --out journal.csv", path=str(out))
    if target.is_dir():
        raise BankError("out_is_folder", f"--out {out} is a folder; give a file name, e.g. --out {Path(out) / 'journal.csv'}",
                        path=str(out))


def cmd_export(args) -> int:
    """Write the journal or the standings to --out."""
    check_out_path(args.out, *_paths(args))
    with _open_bank(args) as bank:
        if args.what == "journal":
            count = export_journal(bank, args.out, args.format)
            unit = "rows" if args.format == "json" else "transfers"
        else:
            count = export_standings(bank, args.out, args.format, bank.now())
            unit = "teams"
    print(f"Wrote {count} {unit} to {args.out}.")
    return 0


def cmd_verify(args) -> int:
    """Replay and check the game: "ok" and exit 0, or the problems and exit 1."""
    witnessed = None if args.witness is None else exported_heads(args.witness)  # a bad file: said, nothing opened
    with _open_bank(args) as bank:
        # The head first: verify's later view of the game holds every row up to it (rows are only added).
        (seq, head), problems = bank.chain_head(), bank.verify()
        at = None if args.at is None else bank.chain_at(args.at)
        if witnessed is not None:
            problems = problems + witness_problems(bank, witnessed)
    if args.at is not None:
        if at is None:
            raise BankError("unknown_entry", f"there is no journal entry {args.at}; the last is {seq}")
        print(f"journal chain at entry {args.at}: {at}")
    if not problems:
        # The head anchors the chain: written on paper (or in the report), it shows later
        # that no row up to here was rewritten, even by someone who recomputed the chain.
        print("ok")
        print(f"journal chain head: {head} (entry {seq})")
        if witnessed is not None:
            print(f"witness: the game holds the {len(witnessed)} entries of {args.witness} as exported "
                  f"(up to entry {max(witnessed)})")
        return 0
    for problem in problems:
        print(problem)
    return 1


if __name__ == "__main__":
    sys.exit(main())
