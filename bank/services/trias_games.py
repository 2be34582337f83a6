"""Trias games on the journal service: one SQLite file per game in a folder, or PostgreSQL, no Flask.

Where the games are kept (a folder, or the bank's database when a URL is set) is
chosen in one place, bank/store/trias_store.py `choose`.

A game's journal (bank/services/journal_service.py) starts with a `setup` row whose events
are the engine's set-up (the shuffles are events, so a replay never re-shuffles);
every move is one row with the events trias.handle gave. An undo is a new row
naming the rows it takes back, and the state is the replay of the rows not taken
back (never a deleted row). A rematch is a row in the old game naming the new one.

Actors: "seat:N" (a phone, only on its own turn), "table" (the shared screen or
the mirror tablet, for any human seat), "computer:N" (the server's bot for seat
N), "cli" (the terminal, for any seat). Which secret makes a caller one of them:
bank/services/trias_authority.py.
"""

from __future__ import annotations

import re
import secrets
import threading

import trias
from bank.errors import BankError, CommandError, IdConflict
from bank.services.journal_service import JournalService, Result, StorageError  # noqa: F401 (re-exported)
from bank.store.trias_store import ID_LENGTH, FolderStore, choose, default_folder  # noqa: F401 (re-exported)
from bank.services.trias_computer_moves import ComputerMoves
from bank.services.trias_replay import redecide_all
from bank.services.trias_witness import TriasWitness
from bank.services.trias_authority import (COMPUTER_ID_PREFIX, TABLE_ROW, SeatIndex, TableAuthority,  # noqa: F401
                                           check_own_id, decide_table, new_secret, newest_seat, seat_of_token)
from bank.services.trias_table import (LANGS, MODES, Table, check_actor, check_command, check_seats,  # noqa: F401
                                       decide_setup, fold_row, public_seat, rebuild, undo_seqs)
from trias.errors import BadCommand, IllegalMove

KIND = "trias"
ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: ids are read aloud and typed
_ID_RE = re.compile(f"^[{ID_ALPHABET}]{{{ID_LENGTH}}}$")
SETUP_ID = "setup"
# Games whose file stays open at once; the others are closed until used again (each open
# game holds about 5 files, and the process shares its limit with the bank and the phones).
OPEN_FILES = 16
# Every game stays in memory once opened and keeps a file: a folder holding more than this
# is refused new games (a bank runs a few tables an evening, not thousands).
MAX_GAMES = 500
# Of them, a fifth (100) a game a visitor starts (no facilitator logged in) never takes: one laptop's 26 addresses
# filled all 500 in 8 s, and then no facilitator could start a table's game either.
FACILITATORS_SHARE = 5


def open_games(db, config=None, folder=None, url: str | None = None) -> "TriasGames":
    """The Trias games of the bank game at `db`, where bank/store/trias_store.py `choose` keeps them."""
    return TriasGames(choose(db, config, folder, url))


def _new_id() -> str:
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))


def _as_trias_error(exc: BankError) -> BadCommand:
    """The bank's id refusals in the engine's terms, so callers catch one kind of refusal."""
    return BadCommand(exc.code, exc.message, **exc.params)


class TriasGame(ComputerMoves, TableAuthority, TriasWitness):
    """One game: its journal service, its seats, the commands and the computer's moves."""

    def __init__(self, games: "TriasGames", game_id: str, service: JournalService):
        self._games = games
        self._service = service
        identity = service.identity()
        self.id = game_id
        self.mode = identity["mode"]
        self.seed = identity["seed"]
        self.lang = identity["lang"]
        self.seats = identity["seats"]
        self.rematch_of = identity.get("rematch_of")
        self._table_secret = identity.get("table")  # None in a game made before table secrets
        self.created = float(service.meta("created_at") or 0)

    # -- reading -----------------------------------------------------------------

    @property
    def table(self) -> Table:
        return self._service.state

    @property
    def state(self) -> trias.State:
        """The live engine state (read-only: never change it in place)."""
        return self._service.state.state

    @property
    def last_seq(self) -> int:
        return self._service.last_seq

    @property
    def next_game(self) -> str | None:
        """The id of the rematch of this game, once made."""
        return self._service.state.next_game

    def refresh(self) -> bool:
        """Pick up moves another process (the CLI) wrote since; True if there were any.

        Commands always catch up by themselves before deciding; this is for screens.
        """
        return self._service.refresh()

    def public_seats(self) -> list:
        """The seats without their secret tokens."""
        return [public_seat(s) for s in self.seats]

    def view(self, seat: int | None) -> dict:
        """trias.view for `seat` (None: the shared screen), with the game's id, mode, seats and last seq."""
        with self._service.lock:
            table, seq = self._service.state, self._service.last_seq
        refusal = self.undo_refusal(table, "table" if seat is None else f"seat:{seat}")  # a page shows why
        return {**trias.view(table.state, seat), "game": self.id, "mode": self.mode, "lang": self.lang,
                "seats": self.public_seats(), "last_seq": seq, "next_game": table.next_game,
                "can_undo": not table.next_game and refusal is None, "undo_refused": refusal}

    def summary(self) -> dict:
        """What games.list() shows of this game: no tokens, no seed."""
        s = self.state
        return {"id": self.id, "created": self.created, "mode": self.mode, "lang": self.lang,
                "seats": self.public_seats(), "turn": s.turn, "phase": s.phase, "over": s.phase == "over",
                "winners": list(s.result["winners"]) if s.result else [], "score": list(s.score),
                "last_seq": self.last_seq, "next_game": self.next_game}

    def rows(self, after_seq: int = 0):
        """Journal rows after `after_seq`: {"seq", "type", "actor", "command", "events", "at"}."""
        for row in self._service.rows(after_seq):
            yield {k: row[k] for k in ("seq", "type", "actor", "command", "events", "at")}

    def public_rows(self, after_seq: int = 0, seat: int | None = None):
        """The rows as `seat` (None: a spectator) may see them: no deck order, no other hand, no seed,
        no table secret."""
        for row in self.rows(after_seq):
            if row["type"] == TABLE_ROW:
                continue
            command = row["command"]
            if row["type"] == "setup":
                command = {k: v for k, v in command.items() if k != "seed"}  # the seed gives the deck order
            yield dict(row, command=command, events=[trias.public_event(e, seat) for e in row["events"]])

    def seat_of_token(self, token: str) -> int | None:
        return seat_of_token(self.seats, token)

    # -- commands ----------------------------------------------------------------

    def execute(self, command: dict, command_id: str, actor: str, after_seq: int | None = None) -> Result:
        """Apply one engine command for `actor`, at most once per id.

        `after_seq`: the last entry the sending page showed; if the game has moved on since
        (a double tap with a new id, two screens at once), BadCommand "stale" and nothing written.
        Raises a TriasError (refused: nothing written) or a StorageError.
        """
        if isinstance(command, dict) and command.get("type") == "undo":
            return self.undo_last(command_id, actor, after_seq)
        check_command(command, self.mode == "mirror")  # only the keys its type reads are journalled
        return self._run(command, command_id, actor, after_seq)

    def undo_last(self, command_id: str, actor: str = "table", after_seq: int | None = None) -> Result:
        """Take back the last move (and the computer's moves after it) as a new journal row.

        `after_seq` as in `execute`: two screens undoing at once take back one move, not two.
        """
        return self._run({"type": "undo"}, command_id, actor, after_seq)

    def _run(self, command: dict, command_id: str, actor, after_seq: int | None = None) -> Result:
        check_own_id(command_id, actor)
        try:
            return self._service.execute(command, command_id, actor, self._decide, after_seq=after_seq)
        except (IdConflict, CommandError) as exc:
            raise _as_trias_error(exc) from None

    def _decide(self, table: Table, command: dict, seq: int) -> tuple:
        """The service's decide: (events, new table) for one stored command, or a TriasError."""
        kind, actor = command.get("type"), command.get("actor")
        if kind == "setup":
            return decide_setup(table, command, seq)
        if kind == "undo":
            if table.next_game:  # an old tab would revive a game every seat link has left
                raise IllegalMove("rematch_made", f"this game has its rematch, game {table.next_game}: "
                                  "play on there; its moves can no longer be taken back")
            events = [{"type": "undone", "seqs": undo_seqs(self.seats, table, actor)}]
        elif kind == TABLE_ROW:
            events = decide_table(bool(self._table_secret or table.secret), command)
        elif kind == "rematch":
            if table.next_game:
                raise IllegalMove("rematch_made", f"this game already has its rematch, game {table.next_game}")
            events = [{"type": "rematch", "game": command["game"]}]
        else:
            check_actor(self.seats, table.state, actor)
            body = {k: v for k, v in command.items() if k not in ("id", "actor")}
            events, _ = trias.handle(table.state, body)
        return events, fold_row(table, kind, actor, seq, events)

    def rematch(self, command_id: str, actor: str = "table", stranger: bool = False) -> "TriasGame":
        """A new game with the same seats (same links) and a new seed; recorded in this game's journal.

        Asked again (any id), it gives the same new game.
        """
        check_own_id(command_id, actor)  # before the new game is made
        with self._service.lock:
            self._service.refresh()  # another process may have made it already
            known = self._service.find(command_id)
            if self.next_game is None and known is None:
                if self.state.phase != "over":  # one tap must not pull every phone out of a game under way
                    raise IllegalMove("game_not_over", "a rematch starts once this game is over (T18); to start "
                                      "afresh now, begin a new game from the Trias start page")
                new = self._games.create(self.seats, None, self.mode, self.lang, rematch_of=self.id,
                                         table_secret=self.table_secret, stranger=stranger)
                self._run({"type": "rematch", "game": new.id}, command_id, actor)
            elif known is not None and known["type"] != "rematch":
                self._run({"type": "rematch", "game": ""}, command_id, actor)  # raises the id conflict
            return self._games.get(self.next_game)

    def verify(self) -> list[str]:
        """Chain, rows, and a replay that decides every command again: [] when sound (trias_replay.py)."""
        return self._service.verify() + redecide_all(self._service.rows(), self._decide)

    def close(self) -> None:
        self._service.close()


class TriasGames:
    """The Trias games of a folder (or of a database, bank/store/trias_store.py): opened lazily, safe to
    share between threads."""

    trusted = True  # a game whose rows no longer match its chain is refused (False: `trias verify` opens it)

    def __init__(self, store):
        """`store`: a folder (path) of game files, or a store made by trias_store.choose."""
        self.store = store if hasattr(store, "heads") else FolderStore(store)
        self.folder = self.store.folder  # None when the games are in a database
        self.where = self.store.where  # for sentences: the folder, or the database and the games' names
        self._lock = threading.RLock()
        self._open: dict = {}
        self._recent: dict = {}  # game id -> game, least recently used first (dicts keep order)
        self.broken: dict = {}  # game id -> why its file could not be opened
        self.seat_index = SeatIndex()

    def create(self, seats, seed=None, mode: str = "play", lang: str = "fr", *, rematch_of: str | None = None,
               table_secret: str | None = None, stranger: bool = False) -> TriasGame:
        """A new game with a new table secret (a rematch: its game's); refuses bad seats, seed, mode or language."""
        if mode not in MODES:
            raise BadCommand("bad_mode", f"mode must be play or mirror, not {str(mode)[:20]!r}")
        if lang not in LANGS:
            raise BadCommand("bad_lang", f"lang must be fr, en or it, not {str(lang)[:20]!r}")
        if seed is None:
            seed = secrets.randbelow(2**53)  # the seed gives the deck order: too many to try them all
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise BadCommand("bad_seed", "the seed must be a whole number from 0 to 9223372036854775807, or none")
        seats = check_seats(seats, mode, keep_tokens=rematch_of is not None)
        with self._lock:
            self.store.prepare()
            # Counted, not locked, across processes: two starting the 500th game at once may make a 501st.
            held = self.store.count()
            if held >= MAX_GAMES or stranger and held >= MAX_GAMES - MAX_GAMES // FACILITATORS_SHARE:
                raise self.store.full(held) if held >= MAX_GAMES else StorageError("trias_games_kept", (
                    f"{held} Trias games are kept here; the last {MAX_GAMES // FACILITATORS_SHARE} places of {MAX_GAMES} "
                    "are for games a facilitator starts: ask one, or continue a game already started"), games=held)
            game_id = _new_id()
            while self.store.exists(game_id):
                game_id = _new_id()
            identity = {"kind": KIND, "id": game_id, "mode": mode, "seed": seed, "lang": lang, "seats": seats,
                        "rematch_of": rematch_of, "table": table_secret or new_secret()}
            setup = {"type": "setup", "id": SETUP_ID, "actor": None, "players": len(seats), "seed": seed, "mode": mode,
                     "seats": [public_seat(s) for s in seats], "listing": trias.state.LISTING}
            service = JournalService.create(self.store.target(game_id), identity, rebuild, first=setup,
                                            decide=decide_setup, kind=KIND)
            game = self._opened(TriasGame(self, game_id, service))
            self._used(game)
            return game

    def get(self, game_id) -> TriasGame | None:
        """The game with this id, opened on first use; None if there is none.

        In a database other server processes move the games all the time: a game opened
        before is brought up to date (one query when nothing changed) so pages show it now.
        """
        game, loaded = self._get(game_id)
        if game is not None and not loaded and self.store.shared:
            game.refresh()
        return game

    def _get(self, game_id) -> tuple:
        """(game or None, whether it was read from its journal just now)."""
        if not isinstance(game_id, str) or not _ID_RE.match(game_id):
            return None, False
        with self._lock:
            game, loaded = self._open.get(game_id), False
            if game is None and self.store.exists(game_id):
                game, loaded = self._opened(self._load(game_id)), True
            if game is not None:
                self._used(game)
            return game, loaded

    def _used(self, game: TriasGame) -> None:
        """Mark `game` as the latest used; close the files of the least recently used beyond OPEN_FILES.

        Only files: a game in the database holds no connection between uses (trias_store.py)."""
        self._recent.pop(game.id, None)
        self._recent[game.id] = game
        if not self.store.holds_files:
            return
        open_games = [g for g in self._recent.values() if g._service.is_open]
        for old in open_games[:max(0, len(open_games) - OPEN_FILES)]:
            old._service.release()  # a game in the middle of a command keeps its file: released later

    def _load(self, game_id: str) -> TriasGame:
        """Open a game file, refusing one that is not this game: a stranger's file, a copy, a half-made game."""
        where = self.store.target(game_id)
        path = self.store.name(game_id)
        service = JournalService.open(where, rebuild, kind=KIND, trusted=self.trusted)
        try:
            identity = service.identity()
            if identity.get("id") != game_id:  # a copy would give one seat link two games
                raise StorageError("game_file_renamed", f"{path} holds game {str(identity.get('id'))[:20]!r}, "
                                   f"not {game_id}: it is a copy or was renamed; move it out of {self.where}",
                                   path=str(path))
            if service.last_seq == 0:
                raise StorageError("game_without_setup", f"{path}: game {game_id} has no set-up row (it was being "
                                   "created when the server stopped): it can never be played, start the game again",
                                   path=str(path))
            game = TriasGame(self, game_id, service)
            if not isinstance(game.seats, list) or len(game.seats) != game.state.players \
                    or not all(isinstance(seat, dict) and "kind" in seat for seat in game.seats):
                raise ValueError("its seats do not match its set-up")
            return game
        except StorageError:
            service.close()
            raise
        except (KeyError, TypeError, ValueError) as exc:  # the identity was edited by hand
            service.close()
            raise StorageError("game_identity_damaged", f"{path}: the identity of game {game_id} is damaged "
                               f"({type(exc).__name__}: {str(exc)[:60]}): restore the file from a backup copy",
                               path=str(path)) from None

    def _opened(self, game: TriasGame) -> TriasGame:
        """Keep an opened game and index its seats' links."""
        self._open[game.id] = game
        self.seat_index.add(game)
        return game

    def _all(self) -> list:
        """Every game of the store, opened and up to date; a damaged one is left out of lists (see `broken`)."""
        stale = []
        with self._lock:
            for game_id, head in self.store.heads().items():
                game = self._open.get(game_id)
                if game is not None:
                    if head is not None and head != game.last_seq:  # moved by another process
                        stale.append(game)
                    continue
                if game_id in self.broken:
                    continue
                try:
                    self._get(game_id)
                except (BankError, trias.TriasError, KeyError, ValueError) as exc:
                    # One unreadable game must not hide the others; `get` still says what is wrong.
                    self.broken[game_id] = getattr(exc, "message", str(exc))
            games = list(self._open.values())
        for game in stale:  # outside the lock of all games: each catches up under its own
            game.refresh()
        return games

    def list(self) -> list:
        """Every game, newest first, as summaries (no tokens, no seed)."""
        return [g.summary() for g in sorted(self._all(), key=lambda g: g.created, reverse=True)]

    def seat_for(self, token) -> tuple | None:
        """(game, seat) for a seat's secret link: the newest game of its rematch chain."""
        if not isinstance(token, str) or not token:
            return None
        # Every seat command comes through here: the store is read only for a link the index
        # does not know yet (games not opened since the start, made by the CLI or another server).
        # Not under the lock of all games: _all() brings games up to date under each one's lock,
        # which a rematch holds while it makes its new game under the lock of all games.
        if self.seat_index.games_of(token) is None:
            self._all()
        # get() brings each up to date in a database: another process may have made the rematch.
        holding = [g for i in self.seat_index.games_of(token) or () if (g := self.get(i)) is not None]
        return newest_seat(holding, token, self.get)

    def close(self) -> None:
        with self._lock:
            for game in self._open.values():
                game.close()
            self._open.clear()
            self._recent.clear()
            self.store.close()


__all__ = ["TriasGames", "TriasGame", "Table", "Result", "StorageError", "default_folder", "rebuild"]
