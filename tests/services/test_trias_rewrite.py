"""A Trias game's journal rewritten under the running server is refused, as the field game's is.

The attack: another program opens a game's store while the server runs, changes a played entry (here when it was
played) and rebuilds the chain from there to the end: the rows replay to the same position and `trias verify`
says ok. Before, the game service read the head anew with each command's look-up and linked its next row to the
forged head: the move was booked and the rewrite never noticed. Now the newest head the service wrote (or read
when it opened the game) is its anchor (bank/services/journal_service.py): the next move is refused, nothing
written, and every one after it, even after the game's file was closed and opened again; a check off the
booking path sees it without a move. Rows another process books (the terminal beside the server) are no alarm.
On SQLite and PostgreSQL.
"""

from __future__ import annotations

import uuid

import pytest

import trias
from bank.services.trias_games import open_games
from bank.store.storage import StorageError
from forger_kit import postgres_forger, rewrite_trias, sqlite_forger

HUMANS = [{"name": "Ana", "kind": "human"}, {"name": "Ben", "kind": "human"}]


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    """(open(): a TriasGames on the store, as a server process opens it; forger(game): its sql on that game)."""
    if request.param == "sqlite":
        db, url = tmp_path / "terrabank.db", None
    else:
        db, url = tmp_path / f"rewrite-{uuid.uuid4().hex[:8]}.db", request.getfixturevalue("postgres_server").url
    opened = []

    def open_():
        opened.append(open_games(db, url=url) if url else open_games(db))
        return opened[-1]

    def forger(games, game_id):
        if url is None:
            return sqlite_forger(games.store.target(game_id))
        return postgres_forger(request.getfixturevalue("postgres_server"), games.store.target(game_id).game)
    yield open_, forger
    for games in opened:
        games.close()


def _play(game, moves: int) -> None:
    for _ in range(moves):
        game.refresh()  # the rows another process booked: the move is chosen on the position they give
        game.execute(trias.legal_actions(game.state)[0], uuid.uuid4().hex, "cli")


def _stored_rows(sql) -> int:
    return sql("SELECT COUNT(*) FROM journal WHERE {game}")[0][0]


@pytest.mark.parametrize("released", [False, True], ids=["open", "released"])
def test_a_move_on_a_rewritten_game_is_refused_and_every_one_after(store, released):
    open_, forger = store
    games = open_()
    game = games.create(HUMANS, seed=3)
    _play(game, 3)
    sql = forger(games, game.id)
    wrote, state = (game.last_seq, game._service.head()), game.state
    if released:  # the file closed between two moves (a folder keeps only a few open): the anchor stays
        assert game._service.release()
    rewrite_trias(sql, game, 2)
    move = trias.legal_actions(game.state)[0]
    with pytest.raises(StorageError) as refused:
        game.execute(move, "after-the-rewrite", "cli")  # before: booked, linked to the forged head
    assert refused.value.code == "chain_rewritten"
    assert f"entry {wrote[0]} no longer holds the chain head" in refused.value.message
    assert game.last_seq == wrote[0] and game.state == state and _stored_rows(sql) == wrote[0]
    with pytest.raises(StorageError, match="chain_rewritten"):
        game.execute(move, "again", "cli")
    found = game._service.check_chain()
    assert (found["seq"], found["held"]) == wrote and f"entry {wrote[0]} no longer holds" in found["why"]
    assert open_().get(game.id).verify() == []  # the forgery is consistent: only what the server wrote can tell


def test_a_game_cut_back_is_refused(store):
    open_, forger = store
    games = open_()
    game = games.create(HUMANS, seed=3)
    _play(game, 3)
    sql = forger(games, game.id)
    last = game.last_seq
    sql("DELETE FROM chain WHERE {game} AND seq = %s", (last,))
    sql("DELETE FROM journal WHERE {game} AND seq = %s", (last,))
    with pytest.raises(StorageError, match="chain_rewritten"):
        game.execute(trias.legal_actions(game.state)[0], "after-the-cut", "cli")
    assert _stored_rows(sql) == last - 1


def test_the_check_off_the_booking_path_sees_it_without_a_move(store):
    open_, forger = store
    games = open_()
    game = games.create(HUMANS, seed=3)
    _play(game, 2)
    assert game._service.check_chain() is None
    held = game._service.head()
    rewrite_trias(forger(games, game.id), game, 1)
    found = game._service.check_chain()
    assert (found["seq"], found["held"]) == (game.last_seq, held)


def test_moves_another_process_books_are_no_alarm(store):
    open_, _ = store
    server = open_()
    game = server.create(HUMANS, seed=3)
    beside = open_().get(game.id)  # the terminal beside the server, on the same game
    for turn in range(4):
        _play(beside if turn % 2 else game, 1)
        if turn % 2:
            game.refresh()
        assert game._service.check_chain() is None
    _play(game, 1)  # on the rows the other process booked: its anchor's head is still there
    assert game.verify() == [] and beside.verify() == []


def test_a_game_whose_row_was_edited_with_its_chain_left_is_refused_when_opened(store):
    """Edited while the server was down (or by the terminal beside it): before, it opened and was played on."""
    open_, forger = store
    games = open_()
    game = games.create(HUMANS, seed=3)
    _play(game, 3)
    sql, last = forger(games, game.id), game.last_seq
    sql("UPDATE journal SET actor = %s WHERE {game} AND seq = %s", ("mallory", 2))
    with pytest.raises(StorageError) as refused:
        open_().get(game.id)  # a server started again, at the game's first page
    assert refused.value.code == "journal_edited" and "journal row 2 was changed" in refused.value.message
    assert "backup" in refused.value.message and _stored_rows(sql) == last
    reading = open_()
    reading.trusted = False  # as `trias verify` opens it: every problem listed
    assert any("journal row 2 was changed" in p for p in reading.get(game.id).verify())


def test_a_row_edited_with_its_chain_left_while_the_game_runs_is_seen_by_the_rows_check(store):
    """Every head stays as it was, so the anchor cannot see it; the rows read and hashed do (before: only when the
    game was opened again)."""
    open_, forger = store
    games = open_()
    game = games.create(HUMANS, seed=3)
    _play(game, 3)
    forger(games, game.id)("UPDATE journal SET actor = %s WHERE {game} AND seq = %s", ("mallory", 2))
    assert game._service.check_chain() is None  # the heads alone
    assert "journal row 2 was changed" in game._service.check_chain(rows=True)["why"]
    with pytest.raises(StorageError) as refused:
        game.execute(trias.legal_actions(game.state)[0], "after-the-edit", "cli")
    assert refused.value.code == "chain_rewritten" and "journal row 2 was changed" in refused.value.message
