"""Trias games on the journal service (bank/services/trias_games.py): storage, ids, seats, undo, restart, verify.

Runs on both stores (conftest.BOTH_STORES): the folder of files, and PostgreSQL; the tests
marked sqlite_file open the game files themselves."""

from __future__ import annotations

import json
import sqlite3
import stat
import threading

import pytest

import trias
from bank.store import chain
from bank.store.rows import fingerprint
from bank.services.journal_service import JournalService
from bank.services.trias_games import StorageError, TriasGames, default_folder
from trias.errors import BadCommand, IllegalMove, TriasError
from trias_kit import HUMANS, VS_BOT, finish, first_legal, folder, games, reopen  # noqa: F401 (fixtures)



def seat_actor(game) -> str:
    return f"seat:{game.state.current}"


def place_all(game) -> None:
    """T8: every seat places its two pairs, whoever acts for it."""
    n = 0
    while game.state.phase == "place":
        if game.computer_to_play() is not None:
            game.play_computer()
        else:
            game.execute(first_legal(game), f"place-{n}", seat_actor(game))
        n += 1


def stored_rows(game) -> int:
    """The rows in the game's store (the file or the database), not the ones in memory."""
    return len(list(game._service.rows()))


def test_default_folder_sits_beside_the_bank_database(tmp_path):
    assert default_folder(tmp_path / "terrabank.db") == tmp_path / "terrabank-trias"


@pytest.mark.sqlite_file("the game file's mode and PRAGMAs")
def test_create_writes_one_private_file_with_the_setup_row(games, folder):
    game = games.create(HUMANS, seed=7, mode="play", lang="en")
    path = folder / f"{game.id}.db"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # seat tokens are inside, like team tokens
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
    assert game.last_seq == 1 and sqlite3.connect(path).execute("SELECT COUNT(*) FROM journal").fetchone()[0] == 1
    assert (game.mode, game.seed, game.lang) == ("play", 7, "en")
    assert game.state.phase == "place" and game.state.players == 3
    # T3/T6: the same seed gives the engine's own set-up.
    assert game.state == trias.new_game(3, 7)[0]
    settings = game._service.settings()
    assert settings["journal_mode"] == "wal" and settings["synchronous"] == 2  # FULL


def test_seat_tokens_are_secret_and_resolve_to_their_seat(games):
    game = games.create(VS_BOT, seed=1)
    token = game.seats[0]["token"]
    assert len(token) >= 20 and "token" not in game.seats[1]  # a computer has no link
    listed = games.list()
    assert token not in json.dumps(listed) and "seed" not in listed[0]
    assert games.seat_for(token) == (game, 0)
    assert games.seat_for("not-a-token") is None
    setup = next(game.public_rows(0, None))
    assert "seed" not in setup["command"] and "deck" not in setup["events"][0]  # the seed gives the deck order


@pytest.mark.parametrize("seats, mode, words", [
    ([{"name": "Ana"}], "play", "2 to 5 seats"),
    ([{"name": "Ana"}, {"name": ""}], "play", "seats[1].name"),
    ([{"name": "Ana"}, {"name": "Bot", "kind": "computer", "level": "genius"}], "play", "seats[1].level"),
    ([{"name": "Ana"}, {"name": "Bot", "kind": "computer"}], "mirror", "physical table"),
    (HUMANS, "replay", "mode must be play or mirror"),
])
def test_bad_new_game_is_refused_with_a_sentence_and_writes_nothing(games, reopen, seats, mode, words):
    with pytest.raises(BadCommand) as err:
        games.create(seats, seed=None, mode=mode)
    assert words in err.value.message
    assert games.list() == [] and reopen().list() == []


def test_same_id_same_content_gives_the_first_result_and_applies_once(games):
    game = games.create(HUMANS, seed=3)
    command = first_legal(game)
    first = game.execute(command, "tap-1", "seat:0")
    state, seq = game.state, game.last_seq
    again = game.execute(command, "tap-1", "seat:0")  # a phone retrying after a lost reply
    assert again.duplicate and again.seq == first.seq and again.events == first.events
    assert game.state == state and game.last_seq == seq
    assert stored_rows(game) == 2


def test_same_id_other_content_is_refused(games):
    game = games.create(HUMANS, seed=3)
    moves = trias.legal_actions(game.state)
    game.execute(moves[0], "tap-1", "seat:0")
    with pytest.raises(BadCommand) as err:
        game.execute(moves[1], "tap-1", "seat:1")
    assert err.value.code == "id_conflict" and "use a new id" in err.value.message


def test_a_refused_move_changes_nothing(games):
    game = games.create(HUMANS, seed=3)
    place_all(game)
    state, seq = game.state, game.last_seq
    with pytest.raises(IllegalMove) as err:
        game.execute({"type": "move", "from": [9, 9], "to": [9, 8]}, "bad-1", seat_actor(game))
    assert "(T9-T15)" in err.value.message  # phase 1 first
    assert game.state == state and game.last_seq == seq and stored_rows(game) == seq
    # The refused id stays free for a real command.
    game.execute(first_legal(game), "bad-1", seat_actor(game))
    assert game.last_seq == seq + 1


def test_t8_t9_a_seat_acts_only_on_its_own_turn_and_the_table_only_for_people(games):
    game = games.create(VS_BOT, seed=5)
    assert game.state.current == 0
    with pytest.raises(IllegalMove, match="Ana's turn"):
        game.execute(first_legal(game), "x1", "seat:1")
    with pytest.raises(IllegalMove):
        game.execute(first_legal(game), "x2", "computer:0")
    with pytest.raises(BadCommand):
        game.execute(first_legal(game), "x3", "somebody")
    game.execute(first_legal(game), "x4", "table")  # the shared screen may act for Ana
    assert game.computer_to_play() == 1
    with pytest.raises(IllegalMove, match="computer opponent"):
        game.execute(first_legal(game), "x5", "table")
    assert game.play_computer().seq == game.last_seq


def test_undo_is_a_new_row_and_the_state_is_the_replay_of_the_rest(games):
    game = games.create(HUMANS, seed=11)
    before = game.state
    game.execute(first_legal(game), "m1", "seat:0")
    result = game.undo_last("u1", "table")
    assert result.seq == 3 and result.events == [{"type": "undone", "seqs": [2]}]
    assert game.state == before
    rows = list(game.rows())
    assert [r["type"] for r in rows] == ["setup", "place", "undo"]  # nothing deleted
    assert game.verify() == []
    with pytest.raises(IllegalMove, match="set-up is never"):
        game.undo_last("u2", "table")
    assert game.undo_last("u1", "table").duplicate


def test_undoing_a_computer_move_goes_back_to_the_last_human_move(games):
    """While the herds are placed (T8) nothing hidden is shown, so the computer's placements go back too.

    Once a card is drawn an undo is refused (tests/web/trias/test_trias_undo_hidden.py)."""
    game = games.create(VS_BOT, seed=2)
    state_before = game.state
    game.execute(first_legal(game), "h1", "seat:0")
    human_seq = game.last_seq
    while game.computer_to_play() is not None:
        game.play_computer({"iterations": 5})
    computer_rows = game.last_seq - human_seq
    assert computer_rows >= 1 and game.state.phase == "place"
    undone = game.undo_last("undo", "seat:0").events[0]["seqs"]
    assert undone == list(range(human_seq, human_seq + computer_rows + 1))
    assert game.state == state_before and game.state.current == 0
    assert game.verify() == []


def test_a_seat_may_not_undo_another_seats_move(games):
    game = games.create(HUMANS, seed=4)
    game.execute(first_legal(game), "m1", "seat:0")
    with pytest.raises(IllegalMove, match="Ana's"):
        game.undo_last("u1", "seat:2")
    game.undo_last("u2", "seat:0")


def test_a_game_survives_a_restart_mid_turn(reopen):
    games = reopen()
    game = games.create(HUMANS, seed=8)
    place_all(game)
    game.execute(first_legal(game), "phase-1", seat_actor(game))  # mid-turn: phase 1 done
    game.undo_last("u", "table")
    game.execute(first_legal(game), "phase-1b", seat_actor(game))
    state, seq, gid, token = game.state, game.last_seq, game.id, game.seats[2]["token"]
    games.close()

    reopened = reopen()
    try:
        again = reopened.get(gid)
        assert again.state == state and again.last_seq == seq
        assert reopened.seat_for(token) == (again, 2)
        assert again.verify() == []
        again.execute(first_legal(again), "after-restart", seat_actor(again))
    finally:
        reopened.close()


def test_a_second_process_writing_the_same_game_is_caught_up_before_deciding(reopen):
    """The CLI beside a running server: each decides on what is stored, never on a stale state."""
    server, cli = reopen(), reopen()
    try:
        game = server.create(HUMANS, seed=14)
        other = cli.get(game.id)
        other.execute(first_legal(other), "from-cli", "cli")
        assert game.last_seq == 1  # the server has not looked yet
        command = first_legal(other)  # legal after the CLI's move only
        game.execute(command, "from-server", seat_actor(other))
        assert game.last_seq == 3 and game.state.placements == 2
        assert game.verify() == [] and other._service.refresh() and other.state == game.state
    finally:
        server.close()
        cli.close()


@pytest.mark.sqlite_file("writes a damaged file into the folder")
def test_a_damaged_game_file_does_not_hide_the_others(games, folder):
    game = games.create(HUMANS, seed=1)
    (folder / "abcdefgh.db").write_bytes(b"not a database at all" * 100)
    assert [g["id"] for g in games.list()] == [game.id]
    assert "abcdefgh" in games.broken
    with pytest.raises(StorageError):
        games.get("abcdefgh")


def test_get_refuses_ids_that_are_not_game_ids(games, folder):
    games.create(HUMANS, seed=1)
    assert games.get("../../etc/passwd") is None and games.get("zzzzzzzz") is None


@pytest.mark.sqlite_file("edits the file with sqlite3 (tests/store/test_postgres_attacks.py edits the database)")
def test_verify_names_an_edited_row(games):
    game = games.create(HUMANS, seed=6)
    game.execute(first_legal(game), "m1", "seat:0")
    path = game._service.path
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER journal_no_update")
    events = json.loads(conn.execute("SELECT events FROM journal WHERE seq=2").fetchone()[0])
    events[0]["herds"] = 3  # three herds placed instead of two (T8)
    conn.execute("UPDATE journal SET events=? WHERE seq=2", (json.dumps(events),))
    conn.commit()
    problems = game.verify()
    assert any("journal row 2 was changed" in p for p in problems)


@pytest.mark.sqlite_file("edits the file with sqlite3")
def test_verify_replays_the_commands_even_when_the_chain_was_rebuilt(games):
    game = games.create(HUMANS, seed=6)
    game.execute(first_legal(game), "m1", "seat:0")
    path = game._service.path
    game.close()
    conn = sqlite3.connect(path)
    for trigger in ("journal_no_update", "chain_no_update", "chain_no_delete"):
        conn.execute(f"DROP TRIGGER {trigger}")
    events = json.loads(conn.execute("SELECT events FROM journal WHERE seq=2").fetchone()[0])
    events[0]["herds"] = 3
    conn.execute("UPDATE journal SET events=? WHERE seq=2", (json.dumps(events, separators=(",", ":")),))
    conn.execute("DELETE FROM chain")
    rows = conn.execute(f"{chain.SELECT_ROWS} ORDER BY seq").fetchall()
    start = chain.start_of(dict(conn.execute("SELECT key, value FROM meta").fetchall()).get)
    conn.executemany("INSERT INTO chain(seq, hash) VALUES (?, ?)", chain.replay(rows, start=start))
    conn.commit()
    reopened = TriasGames(path.parent)
    try:
        problems = reopened.get(game.id).verify()
        assert problems and "seq 2: its events are not what its command gives" in problems[-1]
    finally:
        reopened.close()


def test_computer_command_is_reproducible_for_a_position(games):
    game = games.create(VS_BOT, seed=9)
    game.execute(first_legal(game), "m1", "seat:0")
    assert game.computer_to_play() == 1
    assert game.computer_command() == game.computer_command()


def test_a_computer_move_chosen_before_an_undo_is_not_applied(games, monkeypatch):
    """The bot thinks without the lock; if the table takes a move back meanwhile, its choice is dropped."""
    game = games.create(VS_BOT, seed=9)
    game.execute(first_legal(game), "m1", "table")
    chosen = game._choose({"iterations": 5})  # the computer's pick for entry 2
    game.undo_last("u1", "table")
    game.execute(trias.legal_actions(game.state)[1], "m2", "table")
    monkeypatch.setattr(game, "_choose", lambda budget: chosen)
    seq = game.last_seq
    assert game.play_computer() is None and game.last_seq == seq
    monkeypatch.undo()
    assert game.play_computer().seq == seq + 1  # chosen again on the new position


def test_the_same_position_chosen_twice_is_applied_once(games, monkeypatch):
    game = games.create(VS_BOT, seed=9)
    game.execute(first_legal(game), "m1", "table")
    seat, seq, command = game._choose({"iterations": 5})
    other = next(c for c in trias.legal_actions(game.state) if c != command)
    first = game.play_computer({"iterations": 5})
    monkeypatch.setattr(game, "_choose", lambda budget: (seat, seq, other))  # a slower thread's other pick
    again = game.play_computer()
    assert again.duplicate and again.seq == first.seq and game.last_seq == first.seq


def test_a_new_game_never_takes_tokens_from_the_caller(games):
    game = games.create([{"name": "Ana", "token": "guessable"}, {"name": "Ben"}], seed=1)
    assert game.seats[0]["token"] != "guessable" and games.seat_for("guessable") is None


def test_a_game_against_the_computer_plays_to_the_end_and_verifies(games):
    game = games.create(VS_BOT, seed=12)
    while game.state.phase != "over":
        if game.play_computer() is None:
            game.execute(first_legal(game), f"h{game.last_seq}", "seat:0")
    summary = games.list()[0]
    assert summary["over"] and summary["winners"] == game.state.result["winners"]
    assert game.verify() == []
    with pytest.raises(TriasError, match="game is over"):
        game.execute({"type": "end_turn"}, "late", "seat:0")


def test_rematch_keeps_the_seats_links_and_is_recorded_in_the_old_game(games):
    game = games.create(VS_BOT, seed=12, lang="en")
    with pytest.raises(IllegalMove, match="once this game is over"):
        game.rematch("too soon")  # one tap must not pull every phone out of a game under way
    assert game.next_game is None and len(games.list()) == 1
    finish(game)
    new = game.rematch("again")
    assert new.id != game.id
    assert [s.get("token") for s in new.seats] == [s.get("token") for s in game.seats]
    assert (new.mode, new.lang, new.rematch_of) == ("play", "en", game.id)
    assert list(game.rows())[-1]["events"] == [{"type": "rematch", "game": new.id}]
    assert game.rematch("again").id == new.id and game.rematch("other screen").id == new.id
    assert games.seat_for(game.seats[0]["token"]) == (new, 0)  # the link follows to the newest game
    assert game.verify() == []


def test_parallel_taps_apply_once(games):
    """Two screens sending the same command id at once: one row, both get the same result."""
    game = games.create(HUMANS, seed=13)
    command = first_legal(game)
    results, start = [], threading.Barrier(4)

    def tap():
        start.wait()
        results.append(game.execute(command, "same-tap", "seat:0"))

    threads = [threading.Thread(target=tap) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {r.seq for r in results} == {2} and sum(not r.duplicate for r in results) == 1
    assert game.last_seq == 2


@pytest.mark.sqlite_file("a service on a file path")
def test_journal_service_is_engine_agnostic(tmp_path):
    """A counter as the engine: the same ids, rebuild and verify, nothing about Trias."""
    def rebuild(rows):
        return sum(e["add"] for r in rows for e in r["events"])

    def decide(total, command, seq):
        if command["add"] < 0:
            raise ValueError("no negative amounts")
        return [{"add": command["add"]}], total + command["add"]

    service = JournalService.create(tmp_path / "c.db", {"kind": "counter"}, rebuild)
    service.execute({"type": "add", "add": 2}, "a", None, decide)
    with pytest.raises(ValueError):
        service.execute({"type": "add", "add": -1}, "b", None, decide)
    assert service.execute({"type": "add", "add": 2}, "a", None, decide).duplicate
    assert service.state == 2 and service.last_seq == 1 and service.verify() == []
    service.close()
    again = JournalService.open(tmp_path / "c.db", rebuild)
    assert again.state == 2 and again.identity() == {"kind": "counter"}
    again.close()


def test_t9_a_mirror_game_records_the_cards_the_table_shows(games):
    game = games.create(HUMANS, seed=3, mode="mirror")
    place_all(game)
    assert game.view(None)["mirror"] and set(game.state.deck) == {"unknown"}
    with pytest.raises(BadCommand, match="names the card shown at the table"):
        game.execute({"type": "draw"}, "d0", "table")
    result = game.execute({"type": "draw", "card": "steppe"}, "d1", "table")
    assert result.events[0] == {"type": "card_drawn", "player": game.state.current, "card": "steppe"}
    assert game.state.seen == ("steppe",) and game.verify() == []


@pytest.mark.sqlite_file("counts open files (tests/store/test_postgres_trias.py counts connections)")
def test_many_games_keep_only_a_few_files_open(tmp_path):
    """A folder of hundreds of games must not exhaust the process's open files (each open game holds ~5)."""
    import os

    from bank.services import trias_games as tg

    games = tg.TriasGames(tmp_path / "games")
    seats = [{"name": "Ana", "kind": "human"}, {"name": "Bo", "kind": "human"}]
    made = [games.create(seats, seed=i) for i in range(tg.OPEN_FILES + 24)]
    assert sum(g._service.is_open for g in made) <= tg.OPEN_FILES
    before = len(os.listdir("/proc/self/fd"))
    # A game whose file was closed opens again on use, and its moves are still kept.
    first = games.get(made[0].id)
    seat = first.state.current
    command = next(c for c in trias.legal_actions(first.state))
    first.execute(command, "move-1", f"seat:{seat}")
    assert first.last_seq == 2 and first.verify() == []
    assert len(os.listdir("/proc/self/fd")) <= before + 6
    games.close()
    reopened = tg.TriasGames(tmp_path / "games")
    assert reopened.get(made[0].id).last_seq == 2
    assert len(reopened.list()) == len(made)
    assert sum(g._service.is_open for g in reopened._open.values()) <= tg.OPEN_FILES
    reopened.close()


@pytest.mark.sqlite_file("writes a game as stored before listing 2, with sqlite3")
def test_a_game_stored_before_listing_2_keeps_listing_1_and_verifies(games):
    """A new game's set-up names listing 2 (trias.state.LISTING); a game stored before it names none,
    and stays listing 1 when opened again: its bots list and draw drifts as when it began, and its
    commands decide again to its events (`trias verify`)."""
    seats = [{"name": "Ana", "kind": "human"}, {"name": "Bot", "kind": "computer", "level": "random"}]
    game = games.create(seats, seed=14)
    assert game.state.listing == 2 and next(game._service.rows())["command"]["listing"] == 2
    while game.state.phase != "over":
        if game.play_computer() is None:
            game.execute(first_legal(game), f"h{game.last_seq}", "seat:0")
    path = game._service.path
    game.close()
    conn = sqlite3.connect(path)  # the set-up row as written before listing 2: no "listing" anywhere
    for trigger in ("journal_no_update", "chain_no_update", "chain_no_delete"):
        conn.execute(f"DROP TRIGGER {trigger}")
    command, events = (json.loads(x) for x in conn.execute("SELECT command, events FROM journal WHERE seq=1").fetchone())
    del command["listing"], events[0]["listing"]
    conn.execute("UPDATE journal SET command=?, events=?, fingerprint=? WHERE seq=1",
                 (json.dumps(command, separators=(",", ":")), json.dumps(events, separators=(",", ":")),
                  fingerprint(command)))
    conn.execute("DELETE FROM chain")
    rows = conn.execute(f"{chain.SELECT_ROWS} ORDER BY seq").fetchall()
    start = chain.start_of(dict(conn.execute("SELECT key, value FROM meta").fetchall()).get)
    conn.executemany("INSERT INTO chain(seq, hash) VALUES (?, ?)", chain.replay(rows, start=start))
    conn.commit()
    conn.close()
    reopened = TriasGames(path.parent)
    try:
        old = reopened.get(game.id)
        assert old.state.listing == 1 and trias.view(old.state, 1)["listing"] == 1
        assert old.verify() == []
    finally:
        reopened.close()
