"""Every screen is told the board's last change, as it happens, so a computer seat's turn can be watched.

Before: every computer move reached the phones (the picture and its rows), but nothing pointed one out:
the phone only said "On attend Ordinateur · difficile" while the action points counted down. Now each
picture carries `last` (bank/web/trias/payloads.py last_action): the last move that changed the board
in the turn of the seat now playing, else in the turn before, as a public command (trias.view.action_of)
with the landscape each of its places had just before it, so the pages mark it on the board and say it
in words (tv_words.js TT.lastWords), never as "q,r". Checked here on whole games played at random and on
a computer seat's turn, against the journal's own commands and the last moves' landscapes.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from words_kit import js_t, template_strings

import trias
from bank.services.trias_table import landscapes_before
from bank.web.push.extensions import socketio_of
from bank.web.trias.payloads import snapshot
from trias.view import action_of
from trias_kit import Table, trias_web_app

NS = "/trias"
COORDS = re.compile(r"-?\d+\s*,\s*-?\d+")
BOARD_MOVES = {"place", "play", "drift", "move", "rescue", "reproduce"}


@pytest.fixture
def app(tmp_path, config):
    with trias_web_app(tmp_path / "web.db", config) as made:
        yield made


def humans(app, n: int, seed: int):
    return app.extensions["trias_games"].create(seats=[{"name": f"P{i}", "kind": "human"} for i in range(n)], seed=seed)


def expected_last(game) -> dict | None:
    """The last row that changed the board in the current turn or the one before, read from the journal."""
    rows = [r for r in game.public_rows(0, None) if r["type"] not in ("setup", "table")]
    taken_back = {seq for r in rows if r["type"] == "undo" for seq in r["events"][0]["seqs"]}
    ends = 0
    for row in reversed([r for r in rows if r["type"] not in ("undo", "rematch") and r["seq"] not in taken_back]):
        command = row["command"]
        if command["type"] in BOARD_MOVES and not (command["type"] == "play" and "tile" not in command):
            return row
        if any(e["type"] == "turn_ended" for e in row["events"]):
            ends += 1
            if ends > 1:
                return None
    return None


def same_move(last: dict, command: dict) -> bool:
    """`last.command` says the move the journal's command made: its kind and its places."""
    mine = last["command"]
    if mine["type"] != command["type"]:
        return False
    if command["type"] == "rescue":
        return mine["herds"] == [[list(a), list(b)] for a, b in command["herds"]]
    keys = {"place": ("at",), "play": ("tile", "to"), "drift": ("tile", "to"), "move": ("from", "to"), "reproduce": ("at",)}
    return all(mine[k] == list(command[k]) for k in keys[command["type"]])


def test_every_picture_names_the_boards_last_change_as_the_journal_has_it(app):
    kinds, undone = set(), 0
    for players, seed in [(2, 3), (3, 5), (4, 8), (5, 13)]:
        game, rng, moves, undo_wanted = humans(app, players, seed), random.Random(seed), 0, False
        while game.state.phase != "over" and moves < 400:
            legal = trias.legal_actions(game.state)
            game.execute(rng.choice(legal), f"m{moves}", f"seat:{game.state.current}")
            moves += 1
            undo_wanted = undo_wanted or moves % 37 == 0
            if undo_wanted and game.view(None)["can_undo"]:  # an undo: the mark goes back to the move kept
                game.undo_last(f"u{moves}", "table")
                undone, undo_wanted = undone + 1, False
            pictures = [snapshot(game, seat) for seat in ([None, *range(players)] if moves % 5 == 0 else [None])]
            last, row = pictures[0]["last"], expected_last(game)
            assert all(p["last"] == last for p in pictures)  # nothing secret in it: every screen gets the same
            if row is None:
                assert last is None
                continue
            assert last is not None and last["seq"] == row["seq"], (last, row["seq"])
            assert last["actor"] == row["actor"] and last["seat"] == int(row["actor"].split(":")[1])
            assert same_move(last, row["command"]), (last, row["command"])
            if row["command"]["type"] == "drift":
                assert last["command"]["cost"] == (3 if any(e.get("cost") == 3 for e in row["events"]) else 0)
            # The landscapes the words use are those the last moves' rows give (trias_table.landscapes_before).
            assert last["places"] == landscapes_before(game.table, [row])[0], (last, row)
            kinds.add(last["command"]["type"] + ("3" if last["command"].get("cost") else ""))
            json.dumps(last)
    assert undone >= 4 and kinds == {"place", "play", "drift", "drift3", "move", "rescue", "reproduce"}, (undone, kinds)


def test_a_computer_seats_moves_reach_the_phone_one_by_one_each_marked(app):
    """The human's phone is sent a picture after each of the computer's moves, each naming that move."""
    game = app.extensions["trias_games"].create(seats=[{"name": "Ana", "kind": "human"},
                                                       {"name": "Ordinateur · facile", "kind": "computer", "level": "easy"}], seed=4)
    phone = socketio_of(app).test_client(app, namespace=NS, auth={"seat": game.seats[0]["token"]})
    player, rng, table = app.extensions["trias_computer"], random.Random(4), Table(app)
    while game.state.turn < 6 and game.state.phase != "over":
        if game.computer_to_play() is not None:
            assert player.step(force=True) == 1
            continue
        legal = trias.legal_actions(game.state)
        assert table.seat_move(game, rng.choice([c for c in legal if c["type"] != "end_turn"] or legal)).status_code == 200
    sent = [m["args"][0] for m in phone.get_received(NS) if m["name"] == "state"]
    computer_moves = [r for r in game.public_rows(0, 0) if r["actor"] == "computer:1" and action_of(r["events"])]
    assert len(computer_moves) >= 5
    marked = {p["last"]["seq"]: p["last"] for p in sent if p["last"] and p["last"]["seat"] == 1}
    assert [r["seq"] for r in computer_moves if r["seq"] not in marked] == []  # each one, in a picture of its own
    for row in computer_moves:
        assert marked[row["seq"]]["actor"] == "computer:1" and marked[row["seq"]]["command"]["type"] == row["command"]["type"]


def test_action_of_reads_each_kind_of_move_from_its_events_alone():
    state, _ = trias.new_game(3, seed=2)
    rng, seen = random.Random(2), set()
    while state.phase != "over":
        command = rng.choice(trias.legal_actions(state))
        phase = state.phase
        events, state = trias.handle(state, command)
        said = action_of(events)
        board = command["type"] in BOARD_MOVES and not (command["type"] == "play" and "tile" not in command)
        assert (said is not None) == board, (command, said)
        if said:
            assert said["type"] == command["type"]
            assert same_move({"command": said}, command)
            if said["type"] == "drift":
                assert said["cost"] == (3 if phase == "actions" else 0)
            if said["type"] == "play":
                assert said["card"] == next(e["card"] for e in events if e["type"] == "card_played")
            seen.add(said["type"])
    assert seen == BOARD_MOVES, seen


@pytest.mark.parametrize("lang", ["fr", "en", "it"])
def test_the_sentences_name_the_seat_and_the_places_in_words_in_each_language(app, lang):
    """Each last.* sentence has its own words in the language (Italian too: Trias speaks it), keeps its
    places' slots, and, filled with places as the TV names them, holds no "q,r" pair."""
    said = template_strings(app, "trias/_head.html", lang, path="/trias/")
    english = template_strings(app, "trias/_head.html", "en", path="/trias/")
    keys = ["last.place", "last.play", "last.drift", "last.action_drift", "last.move", "last.rescue", "last.reproduce"]
    place = js_t(said, lang, "tv.place", kind=js_t(said, lang, "tv.kind.woods"), where=js_t(said, lang, "tv.dir.ne"), ring=2)
    water = js_t(said, lang, "tv.water", where=js_t(said, lang, "tv.dir.s"), ring=3)
    step = js_t(said, lang, "tv.next", kind=js_t(said, lang, "tv.kind.steppe"), side=js_t(said, lang, "tv.side.e"))
    for key in keys:
        assert key in said, key
        if lang != "en":
            assert said[key] != english[key], (lang, key)  # translated, not left in English
        slots = set(re.findall(r"%\((\w+)\)s", said[key]))
        assert slots == set(re.findall(r"%\((\w+)\)s", english[key])) and "name" in slots, (lang, key)
        text = js_t(said, lang, key, name="Ordinateur · difficile", at=place, tile=place, to=step if key == "last.move" else water,
                    card=js_t(said, lang, "landscape.woods"), list=f"{water} → {step}", **{"from": place})
        assert "%(" not in text and not COORDS.search(text), text
        assert text.startswith("Ordinateur · difficile "), text
