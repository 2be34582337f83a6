"""Move a game from its SQLite file into PostgreSQL: `terrabank migrate`.

An association that ran a game on a Raspberry Pi continues or archives it on its
PostgreSQL server. The journal moves row for row, the same bytes, so the hash chain
head the lead wrote down on the Pi is the head in PostgreSQL too. The order:

1. the file is opened read-only (never written: not even the tables Journal.open adds
   to an older file) while the game's lock is held, so no `serve` books meanwhile;
2. a game of that name in the database is refused, before any work;
3. the file must pass what `terrabank verify` checks: a damaged game is not copied;
4. every row is copied in ONE PostgreSQL transaction (bank/store/migrate_copy.py), under a
   name no --db can give (storage_url.PostgresTarget.temporary): a crash leaves nothing;
5. the copy is replayed and verified, its chain head compared with the file's;
6. only then does it get its name, refused if someone took the name meanwhile.
Accounts, log-ins and team links are not journal rows and are not copied.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bank.store import gamefile
from bank.errors import BankError
from bank.store.journal import Journal, _connect, storage_errors
from bank.store.migrate_copy import copy_game, put_in_place, target_exists
from bank.store.migrate_access import read_access, write_access
from bank.services.bank import Bank, config_problems, fold
from bank.game.state import GameState
from bank.store.storage import StorageError
from bank.store.storage_url import PostgresTarget, display_url, game_name

# The chain and the time line's checkpoint were added to game files after the first games.
_LATER_TABLES = ("chain", "clock_checkpoint")


@dataclass(frozen=True)
class Moved:
    """What `migrate` did, for the command's report."""

    game: str
    where: str  # the game in the database, for messages
    entries: int
    snapshots: int
    file_head: tuple[int, str]  # (seq, hash) of the chain in the file
    copy_head: tuple[int, str]  # the same, read back from PostgreSQL
    accounts: int = 0  # facilitator accounts copied (bank/store/migrate_access.py)
    links: int = 0  # team links copied: the join cards printed for the Pi still work


def default_game_name(db) -> str:
    """The game's name in the database when --game is not given: the file's name without .db
    (/media/usb/summer-camp.db -> summer-camp), what --db then names on the new server."""
    return game_name(Path(db).name)


def migrate(db, config, url: str, game: str) -> Moved:
    """Copy the game in the file `db` into the database at `url` as `game`; BankError if refused."""
    target = PostgresTarget(url, game_name(game))
    if not Path(db).is_file():  # checked before the lock, which would leave a .lock file beside nothing
        raise StorageError("database_missing", f"No game file at {db}: give the game's SQLite file with --db "
                           "(e.g. --db terrabank.db).", path=str(db))
    from bank.store.journal_pg_hold import hold as hold_in_database

    # The name in the database is held too: a server on it, from any host, or its lease
    # across a restart of PostgreSQL, refuses the migration, and a server started meanwhile is refused.
    with gamefile.hold(db, "terrabank migrate"), \
            hold_in_database(url, target.game, "terrabank migrate", watch=False, lease_it=False):
        source = _ReadOnlyJournal.open_file(db)
        try:
            if target.exists():
                raise target_exists(target)
            file_bank = _loaded(source, config, db)
            _check_sound(file_bank, db)
            file_head = file_bank.chain_head()
            accounts, links, copies, names = read_access(Path(db))
            built = target.temporary()
            counts = copy_game(Path(db), built, file_head)
            try:
                copy_head = _check_copy(built, config, file_bank, db)
                write_access(built.url, built.game, accounts, links, copies, names)  # before the name: all or nothing
                put_in_place(built, target)
            except BaseException:
                built.remove()  # its rows stay in the database, without a name (nothing is ever deleted)
                raise
        finally:
            source.close()
    return Moved(target.game, target.name, counts.entries, counts.snapshots, file_head, copy_head,
                 len(accounts), len(links))


class _ReadOnlyJournal(Journal):
    """The game file through a read-only connection: its readers are read-only already."""

    @classmethod
    def open_file(cls, path) -> "_ReadOnlyJournal":
        with storage_errors(path):
            journal = cls(_connect(path, "ro"), path)
        try:
            with storage_errors(path):
                journal._check_schema()
                missing = [t for t in _LATER_TABLES if not journal._has_table(t)]
        except BaseException:
            journal.close()
            raise
        if missing and len(missing) < len(_LATER_TABLES):  # added together: one alone was dropped by hand
            journal.close()
            raise _unsound(path, [f"its {missing[0]} table is missing"])
        if missing or not journal._has_table("chain_snapshot"):  # the snapshots' binding came later
            journal.close()
            raise StorageError("migrate_file_too_old", f"{path} was made by an earlier Terrabank and has no hash "
                               "chain yet (or no binding of its snapshots); this command never writes to the "
                               "file: open it once with this "
                               f"Terrabank (terrabank --db {path} verify, with no database URL set) so it gains "
                               "its chain, then run migrate again.", path=str(path))
        return journal


def _loaded(journal, config, where) -> Bank:
    """A Bank on `journal` as Bank.open loads one (latest snapshot, then the rows after it),
    without choosing the store from the URL: here the file and the copy are both open at once."""
    problems = config_problems(journal, config)
    if problems:
        raise BankError("config_mismatch", f"The game in {where} was made with another config: "
                        f"{'; '.join(problems)}. Give the config.toml it was made with (--config); "
                        "nothing was copied.", problems=problems)
    try:
        snapshot = journal.latest_snapshot()
        after, state = (0, GameState.initial(config)) if snapshot is None else \
            (snapshot[0], GameState.from_dict(snapshot[1]))
        for row in journal.rows(after):
            state = fold(state, row["events"])
    except (TypeError, ValueError, KeyError, AttributeError) as exc:  # an edited row or snapshot
        raise _unsound(where, [f"the game cannot be replayed ({type(exc).__name__}: {exc})"]) from None
    return Bank(journal, config, state)


def _check_sound(bank: Bank, db) -> None:
    problems = bank.verify()
    if problems:
        raise _unsound(db, problems)


def _unsound(db, problems: list[str]) -> BankError:
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return BankError("migrate_source_unsound", f"The game in {db} fails its check: {problems[0]}{more}. Nothing "
                     f"was copied: run `terrabank --db {db} verify` where it was played (no database URL "
                     "set) to see every problem, and restore its backup if it was damaged.", path=str(db))


def _check_copy(built: PostgresTarget, config, file_bank: Bank, db) -> tuple[int, str]:
    """Replay and verify the copy; it must end on the file's state and chain head."""
    journal, head = built.open(), None
    try:
        copy_bank = _loaded(journal, config, built.name)
    except BankError as exc:
        journal.close()
        problems = [exc.message]
    else:
        try:
            problems = copy_bank.verify()
            head = copy_bank.chain_head()
            if not problems and head != file_bank.chain_head():
                problems = [f"its chain head {head[1]} (entry {head[0]}) is not the file's "
                            f"{file_bank.chain_head()[1]} (entry {file_bank.chain_head()[0]})"]
            if not problems and copy_bank.state != file_bank.state:
                problems = ["its replayed state differs from the file's"]
        finally:
            copy_bank.close()
    if problems:
        raise BankError("migrate_copy_differs", f"The copy in {display_url(built.url)} does not check out: "
                        f"{problems[0]}. It was not given the name; {db} is unchanged.", problems=problems)
    return head
