"""Trias storage and service under attack: races, forged ids, stale links, damaged files, leaks, bad input.

Each test plays what a player with bad intent (or bad luck) would do to bank/services/trias_games.py,
bank/services/journal_service.py, bank/services/trias_table.py, trias/calculator.py or `terrabank trias`, and
asserts what the table would notice: one move applied once, a sentence instead of a crash,
no hand card or deck order where another seat can read it.
"""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import sys
import threading

import pytest

import trias
from bank.cli.main import main
from bank.store import chain
from bank.store.journal import Journal
from bank.services.trias_games import StorageError, TriasGames
from trias.calculator import score_description
from trias.errors import BadCommand, IllegalMove, TriasError
from trias_kit import HUMANS, VS_BOT, edit_identity, finish, first_legal, folder, games  # noqa: F401 (fixtures)

FAST = {"iterations": 5}


def run_together(*jobs):
    """Start every job at the same moment in its own thread; their results or exceptions, in order."""
    start, out = threading.Barrier(len(jobs)), [None] * len(jobs)

    def run(i, job):
        start.wait()
        try:
            out[i] = job()
        except Exception as exc:  # the refusal is the result under test
            out[i] = exc

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return out


def edit_row(path, seq: int, column: str, value: str) -> None:
    """Change a journal row by hand, as someone with the file and sqlite3 would."""
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER IF EXISTS journal_no_update")
    conn.execute(f"UPDATE journal SET {column}=? WHERE seq=?", (value, seq))
    conn.commit()
    conn.close()


def rebuild_chain(path) -> None:
    """Make the chain match the rows again, as a forger who knows how it is made would."""
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER IF EXISTS chain_no_update")
    rows = conn.execute(f"{chain.SELECT_ROWS} ORDER BY seq").fetchall()
    seals = dict(conn.execute("SELECT seq, seal FROM chain_snapshot").fetchall())
    start = chain.start_of(dict(conn.execute("SELECT key, value FROM meta").fetchall()).get)
    conn.executemany("UPDATE chain SET hash=? WHERE seq=?", [(h, s) for s, h in chain.replay(rows, seals, start)])
    conn.commit()
    conn.close()


# -- parallel commands -----------------------------------------------------------------------------

def test_t8_parallel_moves_with_different_ids_are_each_decided_on_the_state_before_them(games):
    """Four phones tap at once with their own ids: the lock orders them, the journal stays a valid replay."""
    game = games.create(HUMANS, seed=21)
    jobs = [lambda i=i: game.execute(trias.legal_actions(game.state)[i % 3], f"tap-{i}", f"seat:{i % 3}")
            for i in range(6)]
    results = run_together(*jobs)
    applied = [r for r in results if not isinstance(r, Exception)]
    assert all(isinstance(r, TriasError) for r in results if isinstance(r, Exception))  # refusals, never crashes
    assert applied and game.last_seq == 1 + len(applied)
    assert sorted(r.seq for r in applied) == list(range(2, 2 + len(applied)))
    assert game.verify() == []


def test_the_same_id_from_two_threads_with_other_content_applies_one_and_refuses_the_other(games):
    game = games.create(HUMANS, seed=22)
    a, b = trias.legal_actions(game.state)[:2]
    results = run_together(lambda: game.execute(a, "same", "seat:0"), lambda: game.execute(b, "same", "seat:0"))
    kinds = sorted(type(r).__name__ for r in results)
    assert kinds == ["BadCommand", "Result"]
    refused = next(r for r in results if isinstance(r, BadCommand))
    assert refused.code == "id_conflict" and game.last_seq == 2


def test_a_double_tap_with_a_new_id_is_refused_when_the_page_says_which_entry_it_saw(games):
    """A page sends the last entry it showed: a second tap decided on a newer position is stale."""
    game = games.create(HUMANS, seed=23)
    seen = game.last_seq
    game.execute(first_legal(game), "tap-1", "seat:0", after_seq=seen)
    with pytest.raises(BadCommand) as err:
        game.execute(trias.legal_actions(game.state)[0], "tap-2", f"seat:{game.state.current}", after_seq=seen)
    assert err.value.code == "stale" and "choose again" in err.value.message
    assert game.last_seq == 2


def test_two_undos_at_once_take_back_one_move_when_they_name_the_entry_they_saw(games):
    """Two screens confirm "undo" together: one move goes, not two (the second is stale)."""
    game = games.create(HUMANS, seed=24)
    game.execute(first_legal(game), "m1", "seat:0")
    after_first = game.state
    game.execute(first_legal(game), "m2", f"seat:{game.state.current}")
    seen = game.last_seq
    results = run_together(lambda: game.undo_last("undo-tv", "table", after_seq=seen),
                           lambda: game.undo_last("undo-tablet", "table", after_seq=seen))
    done = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(done) == 1 and done[0].events == [{"type": "undone", "seqs": [3]}]
    assert len(refused) == 1 and refused[0].code == "stale"
    assert game.state == after_first and game.verify() == []


def test_an_undo_in_a_command_body_also_names_the_entry_it_saw(games):
    game = games.create(HUMANS, seed=24)
    game.execute(first_legal(game), "m1", "seat:0")
    seen = game.last_seq
    game.execute(first_legal(game), "m2", f"seat:{game.state.current}")
    with pytest.raises(BadCommand, match="moved on"):
        game.execute({"type": "undo"}, "u1", "table", after_seq=seen)
    assert game.last_seq == 3


def test_an_undo_while_the_computer_is_searching_drops_its_move(games, monkeypatch):
    """The bot thinks outside the lock; the table takes the human move back meanwhile."""
    game = games.create(VS_BOT, seed=25)
    game.execute(first_legal(game), "m1", "seat:0")
    thinking, release = threading.Event(), threading.Event()
    choose = trias.bots.choose

    def slow_choose(view, level, budget, rng, table=None):
        thinking.set()
        assert release.wait(60)
        return choose(view, level, FAST, rng, table)

    monkeypatch.setattr(trias.bots, "choose", slow_choose)
    out = {}
    bot = threading.Thread(target=lambda: out.setdefault("result", game.play_computer()))
    bot.start()
    assert thinking.wait(60)
    game.undo_last("undo", "table")  # not blocked by the search
    seq = game.last_seq
    release.set()
    bot.join(60)
    assert out["result"] is None and game.last_seq == seq and game.state.current == 0
    assert game.computer_to_play() is None and game.verify() == []


# -- forged ids ------------------------------------------------------------------------------------

def test_a_phone_cannot_take_the_computers_command_id_and_freeze_it(games):
    """The computer's ids name the position it answers ("computer:1:after:2"). A phone sending its own move
    under that id would make the computer's move a "retry" of the phone's: the computer never plays again."""
    game = games.create(VS_BOT, seed=9)
    move = first_legal(game)
    with pytest.raises(BadCommand) as err:
        game.execute(move, "computer:1:after:2", "seat:0")
    assert err.value.code == "reserved_id" and game.last_seq == 1
    game.execute(move, "tap-1", "seat:0")
    played = game.play_computer(FAST)
    assert played is not None and not played.duplicate and game.last_seq == 3
    assert game.state.current == 0  # T8: the computer placed, back to Ana


def test_an_undo_or_rematch_under_a_computer_id_is_refused_too(games):
    game = games.create(VS_BOT, seed=9)
    game.execute(first_legal(game), "tap-1", "seat:0")
    with pytest.raises(BadCommand, match="reserved"):
        game.undo_last("computer:1:after:3", "table")
    with pytest.raises(BadCommand, match="reserved"):
        game.rematch("computer:1:after:3")
    assert game.last_seq == 2 and len(games.list()) == 1  # no orphan game was made


# -- seats, links, rematch -------------------------------------------------------------------------

def test_t8_t9_a_seat_out_of_turn_or_with_an_odd_number_is_refused_with_a_sentence(games):
    game = games.create(HUMANS, seed=26)
    for actor in ("seat:1", "seat:01x", "seat:²", "seat:-1", "seat:", "computer:0", "seat:99"):
        with pytest.raises(TriasError):
            game.execute(first_legal(game), f"x-{actor}", actor)
    assert game.last_seq == 1


def test_a_stale_seat_link_after_a_rematch_and_a_restart_opens_the_newest_game(folder):
    games = TriasGames(folder)
    game = games.create(VS_BOT, seed=27)
    token, old_id = game.seats[0]["token"], game.id
    finish(game)
    new_id = game.rematch("again").id
    finish(games.get(new_id))
    third_id = games.get(new_id).rematch("again").id
    games.close()
    reopened = TriasGames(folder)
    try:
        found, seat = reopened.seat_for(token)
        assert (found.id, seat) == (third_id, 0)
        assert reopened.get(old_id).next_game == new_id
    finally:
        reopened.close()


def test_an_old_tab_cannot_undo_a_game_once_its_rematch_is_made(games):
    """Undoing the old game would revive it while every seat link has moved to the rematch."""
    game = games.create(HUMANS, seed=28)
    finish(game)
    assert game.view(None)["can_undo"]
    new = game.rematch("again")
    assert not game.view(None)["can_undo"]  # the button goes too
    with pytest.raises(IllegalMove) as err:
        game.undo_last("late-undo", "table")
    assert err.value.code == "rematch_made" and new.id in err.value.message
    assert game.verify() == []


# -- damaged files and strangers in the folder ----------------------------------------------------

def test_a_truncated_game_file_is_a_sentence_and_the_other_games_stay_listed(games, folder):
    good = games.create(HUMANS, seed=30)
    bad = games.create(HUMANS, seed=31)
    for i in range(4):
        bad.execute(first_legal(bad), f"m{i}", "cli")
    path = bad._service.path
    bad.close()
    games._open.pop(bad.id)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    fresh = TriasGames(folder)
    try:
        assert [g["id"] for g in fresh.list()] == [good.id]
        with pytest.raises(StorageError):
            fresh.get(bad.id)
    finally:
        fresh.close()


def test_a_hand_edited_event_that_cannot_be_replayed_does_not_hide_the_other_games(games, folder):
    good = games.create(HUMANS, seed=32)
    bad = games.create(HUMANS, seed=33)
    bad.execute(first_legal(bad), "m1", "cli")
    edit_row(bad._service.path, 2, "events", "[1]")  # not an event at all
    # ...and the chain rebuilt over it: an edit under the chain left is refused before any replay, naming the row
    # (tests/services/test_trias_rewrite.py); this one gets as far as the replay.
    rebuild_chain(bad._service.path)
    fresh = TriasGames(folder)
    try:
        assert [g["id"] for g in fresh.list()] == [good.id]
        assert bad.id in fresh.broken
        with pytest.raises(StorageError) as err:
            fresh.get(bad.id)
        assert "cannot be replayed" in err.value.message
    finally:
        fresh.close()


def test_a_hand_edited_identity_is_a_sentence_not_a_crash(games, folder):
    game = games.create(HUMANS, seed=34)
    edit_identity(game._service.path, lambda identity: identity.pop("seats"))
    fresh = TriasGames(folder)
    try:
        with pytest.raises(StorageError) as err:
            fresh.get(game.id)
        assert game.id in err.value.message
        assert fresh.list() == [] and game.id in fresh.broken
    finally:
        fresh.close()


def test_a_stranger_database_named_like_a_game_is_refused(games, folder):
    """Another Terrabank file (the bank's own database, say) copied into the folder is not a Trias game."""
    game = games.create(HUMANS, seed=35)
    stranger = Journal.create(folder / "abcdefgh.db", "[bank]\n", {"teams": ["red", "blue"]})
    with stranger.transaction():
        stranger.append({"command_id": "c1", "fingerprint": "f", "type": "award", "actor": "admin", "at": 1.0,
                         "command": {"type": "award"}, "events": [{"type": "money", "team": "red", "amount": 5}]})
    stranger.close()
    (folder / "notes.db").write_text("shopping list")
    (folder / "mnpqrstu.db").mkdir()
    fresh = TriasGames(folder)
    try:
        assert [g["id"] for g in fresh.list()] == [game.id]
        with pytest.raises(StorageError) as err:
            fresh.get("abcdefgh")
        assert "not a trias game" in err.value.message.lower() and "backup" not in err.value.message
        assert fresh.get("mnpqrstu") is None and fresh.get("notes") is None
    finally:
        fresh.close()


def test_a_game_file_copied_under_another_id_is_refused_so_a_seat_link_has_one_game(games, folder):
    game = games.create(HUMANS, seed=36)
    token, path = game.seats[1]["token"], game._service.path
    games.close()  # the copy is made of the whole file, its last writes included
    shutil.copyfile(path, folder / "zzzzzzzz.db")
    fresh = TriasGames(folder)
    try:
        with pytest.raises(StorageError) as err:
            fresh.get("zzzzzzzz")
        assert game.id in err.value.message
        assert fresh.seat_for(token)[0].id == game.id
        assert [g["id"] for g in fresh.list()] == [game.id]
    finally:
        fresh.close()


def test_a_game_file_whose_set_up_was_never_written_is_named_broken(games, folder):
    """The server stopped between creating the file and writing its set-up row."""
    game = games.create(HUMANS, seed=37)
    identity = dict(game._service.identity(), id="abcdefgh")
    Journal.create(folder / "abcdefgh.db", "trias", identity).close()
    fresh = TriasGames(folder)
    try:
        assert [g["id"] for g in fresh.list()] == [game.id]
        with pytest.raises(StorageError, match="set-up"):
            fresh.get("abcdefgh")
    finally:
        fresh.close()


def test_a_restart_while_the_computer_is_to_play_resumes_its_turn(folder):
    games = TriasGames(folder)
    game = games.create(VS_BOT, seed=38)
    game.execute(first_legal(game), "m1", "seat:0")
    chosen = game.computer_command(FAST)
    gid = game.id
    games.close()  # the server stops before the computer's move is written
    again = TriasGames(folder)
    try:
        game = again.get(gid)
        assert game.computer_to_play() == 1 and game.computer_command(FAST) == chosen
        assert game.play_computer(FAST).seq == 3 and game.verify() == []
    finally:
        again.close()


# -- hidden information ----------------------------------------------------------------------------

def play_until_cards_were_drawn(game) -> None:
    """Ana and the computer play until each has drawn a hand card at the end of a turn (T15)."""
    drawn = set()
    for _ in range(400):
        if drawn >= {0, 1} or game.state.phase == "over":
            break
        before = game.last_seq
        if game.play_computer(FAST) is None:
            legal = trias.legal_actions(game.state)
            plays = [c for c in legal if c["type"] == "play"]
            ends = [c for c in legal if c["type"] == "end_turn"]
            game.execute((plays or ends or legal)[0], f"h{game.last_seq}", "seat:0")
        for row in game.rows(before):
            drawn |= {e["player"] for e in row["events"] if e["type"] == "hand_drawn"}
    assert drawn >= {0, 1}


def test_t6_t15_no_other_hand_and_no_deck_order_in_public_rows_views_lists_or_errors(games):
    game = games.create(VS_BOT, seed=39)
    play_until_cards_were_drawn(game)
    secret_tokens = [s["token"] for s in game.seats if "token" in s]
    for seat in (None, 0, 1):
        rows = list(game.public_rows(0, seat))
        text = json.dumps(rows)
        assert "seed" not in rows[0]["command"] and '"deck":' not in text and '"unused"' not in text
        for row in rows:
            for event in row["events"]:
                if event["type"] in ("card_dealt", "hand_drawn") and event["player"] != seat:
                    assert event["card"] in ("hidden", "meteorite")
        view = game.view(seat)
        assert all(card in (None, "hidden", "meteorite") for i, card in enumerate(view["hands"]) if i != seat)
        assert "deck" not in view and "seed" not in json.dumps(view)
        assert not any(t in json.dumps([rows, view]) for t in secret_tokens)
    assert not any(t in json.dumps(games.list()) for t in secret_tokens)
    assert "seed" not in json.dumps(games.list())
    # A refusal to the wrong seat names whose turn it is, never that seat's card.
    other = 1 - game.state.current if game.state.phase != "over" else 0
    with pytest.raises(TriasError) as err:
        game.execute({"type": "end_turn"}, "late", f"seat:{other}")
    hand = game.state.hands[game.state.current]
    assert hand is None or hand not in err.value.message


# -- the score calculator --------------------------------------------------------------------------

def mass(**fields) -> dict:
    return {"name": "A", "tiles": 3, "herds": {"Black": 2, "White": 1}, **fields}


@pytest.mark.parametrize("data, words", [
    ({"land_masses": [mass(tiles=10**100)]}, "tiles must be a whole number from 1 to 36"),
    ({"land_masses": [mass(tiles=-3)]}, "tiles must be a whole number"),
    ({"land_masses": [mass(tiles=2.5)]}, "tiles must be a whole number"),
    ({"land_masses": [mass(tiles=True)]}, "tiles must be a whole number"),
    ({"land_masses": [mass(tiles="3")]}, "tiles must be a whole number"),
    ({"land_masses": [mass(herds={"Black": -1})]}, "Black must be a whole number from 0 to 15"),
    ({"land_masses": [mass(herds={"Black": 10**20})]}, "Black must be a whole number"),
    ({"land_masses": [mass(herds={"Black": float("nan")})]}, "Black must be a whole number"),
    ({"land_masses": [mass(herds=[["Black", 2]])]}, "herds must be an object"),
    ({"land_masses": [mass(name=None)]}, "name must be a name"),
    ({"land_masses": [mass(name="x" * 10_000)]}, "name must be a name of 1 to 40"),
    ({"land_masses": [mass(main="yes")]}, "main must be true or false"),
    ({"land_masses": [mass()], "stock": {"Black": 99}}, "stock.Black must be a whole number"),
    ({"land_masses": [mass()], "interim": {"Black": -5}}, "interim.Black must be a whole number"),
    ({"land_masses": "A"}, "land_masses must be a non-empty list"),
    ([1, 2, 3], "must be a JSON object"),
    ({"land_masses": [mass(herds={f"P{i}": 1 for i in range(6)})]}, "Trias is for 2 to 5"),
    ({"land_masses": [mass()] + [mass(name=f"m{i}", tiles=1, herds={}) for i in range(10_000)]},
     "at most 36 land masses"),
])
def test_a_malformed_calculator_description_gets_one_sentence(data, words):
    with pytest.raises(BadCommand) as err:
        score_description(data)
    assert words in err.value.message and "\n" not in err.value.message and len(err.value.message) < 300


# -- the command line ------------------------------------------------------------------------------

@pytest.fixture
def cli(tmp_path):
    return lambda *args: main(["--db", str(tmp_path / "terrabank.db"), "trias", *args])


@pytest.mark.parametrize("text, words", [
    ("[" * 100_000, "too deeply nested"),
    ('{"land_masses": [{"name": "A", "tiles": ' + "9" * 5000 + ', "herds": {"Black": 1}}]}', "too long"),
])
def test_score_refuses_a_hostile_json_file_with_a_sentence(cli, tmp_path, capsys, text, words):
    path = tmp_path / "end.json"
    path.write_text(text, encoding="utf-8")
    assert cli("score", str(path)) == 2
    err = capsys.readouterr().err
    assert err.startswith("terrabank: ") and words in err and err.count("\n") == 1


@pytest.mark.parametrize("game_id", ["../../etc/passwd", "ABCDEFGH", "zzzzzzzz", "x" * 5000, "' OR 1=1 --"])
def test_show_verify_and_play_with_a_bad_game_id_say_there_is_no_such_game(cli, capsys, game_id):
    for sub in ("show", "verify", "play"):
        assert cli(sub, game_id) == 2
        err = capsys.readouterr().err
        # French by default (tests/cli/test_trias_terminal_words.py)
        assert "il n'y a pas de partie de Trias" in err and len(err) < 400


def test_verify_and_show_of_a_damaged_game_give_a_sentence_and_code_2(cli, tmp_path, capsys):
    assert cli("new", "--players", "2", "--seed", "3") == 0
    folder = tmp_path / "terrabank-trias"
    (path,) = folder.glob("*.db")
    edit_identity(path, lambda identity: identity.pop("mode"))
    capsys.readouterr()
    for sub in ("verify", "show"):
        assert cli(sub, path.stem) == 2
        assert path.stem in capsys.readouterr().err


def test_new_with_a_games_folder_that_is_a_file_says_so(tmp_path, capsys):
    blocker = tmp_path / "games"
    blocker.write_text("not a folder")
    code = main(["--db", str(tmp_path / "terrabank.db"), "trias", "--games", str(blocker), "new", "--players", "2"])
    assert code == 2 and str(blocker) in capsys.readouterr().err


def test_play_reads_a_superscript_two_as_a_wrong_answer_not_a_crash(cli, capsys, monkeypatch):
    """² sits where 1 is expected... on a French keyboard it is the key left of 1."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("²\n١\nq\n"))
    assert cli("play", "--seed", "4") == 0
    assert capsys.readouterr().out.count("Tapez un nombre de 1 à") == 2  # the game speaks French by default


def test_play_never_applies_a_listed_move_to_a_position_another_screen_changed(cli, tmp_path, capsys, monkeypatch):
    """The terminal lists the moves, a phone moves meanwhile (the server is another process), then the
    terminal's answer comes: it must not place for the next seat what was listed for this one (T8)."""
    folder = tmp_path / "terrabank-trias"
    server = TriasGames(folder)
    game = server.create(HUMANS, seed=40)
    listed = trias.legal_actions(game.state)

    class Phone(io.StringIO):
        def readline(self, *args):
            line = super().readline(*args)
            if line == "1\n" and game.last_seq == 1:  # the phone of seat 0 places first, elsewhere
                game.execute(listed[1], "phone-tap", "seat:0")
            return line

    monkeypatch.setattr(sys, "stdin", Phone("1\nq\n"))
    try:
        assert cli("play", game.id) == 0
        out = capsys.readouterr().out
        assert "choisissez à nouveau" in out  # the pages' sentence, in the game's language (bank/cli/trias_refusals.py)
        assert game.refresh() is False and game.last_seq == 2 and game.state.placements == 1
    finally:
        server.close()


def test_a_command_with_keys_its_type_does_not_read_is_refused_by_name_and_nothing_is_journalled(games):
    """Before, they were journalled as sent (the terminal's and the pages' commands alike) and went to every screen."""
    game = games.create(HUMANS, seed=35)
    move = first_legal(game)
    with pytest.raises(BadCommand) as refused:
        game.execute({**move, "note": "x" * 5000}, "m1", "cli")
    assert refused.value.code == "unknown_keys" and "note" in refused.value.message
    with pytest.raises(BadCommand, match="'fresh' must be true or false"):
        game.execute({"type": "move", "from": [0, 0], "to": [0, 1], "fresh": "x" * 5000}, "m2", "cli")
    assert game.last_seq == 1
    mirror = games.create(HUMANS, seed=35, mode="mirror")
    while mirror.state.phase != "start":
        mirror.execute(first_legal(mirror), f"p{mirror.last_seq}", "table")
    with pytest.raises(BadCommand, match="unknown_keys|takes type"):
        game.execute({"type": "draw", "card": "Steppe"}, "m3", "cli")  # a card is named in a mirror game only
    assert mirror.execute(first_legal(mirror), "m4", "table").seq == mirror.last_seq  # its play names the card
