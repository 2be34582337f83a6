"""A trade or a fight is written on both teams' ledgers (the ledger's help says so). Typed back from
both sheets, each line had its own sheet and number, so each was its own entry and the trade was
booked twice. The k-th time two teams made the same move is now one entry however many of their
sheets carry it and whatever order, device or account they are typed from; the copy's line is
answered as already booked, naming the sheet and line it was booked from (bank/web/field/paper_shared.py).
In the shipped config the ledgers' letters are A Bleus, B Jaunes, C Rouges, D Verts."""

from __future__ import annotations

import itertools
import threading
import uuid

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bank.game.config import load_config
from bank.game.paper_sheet import sheet_check
from bank.web import create_app
from conftest import CONFIG_PATH, WebClient

TRADE = "Bleus commerce Rouges donne 2 eau reçoit 1 dioxygène"


def send(client: WebClient, text: str) -> dict:
    reply = client.client.post("/api/paper/batch", json={"batch": uuid.uuid4().hex, "text": text},
                               headers={"X-CSRF-Token": client.csrf})
    assert reply.status_code == 200, reply.get_json()
    return reply.get_json()


def sheet(name: str, lines: dict) -> str:
    return f"feuille {name}\n" + "".join(f"{n} {move}\n" for n, move in sorted(lines.items()))


def printed(bank, at: int, letter: str) -> str:
    """A ledger's id as printed from entry `at`: with its check in this game (bank/game/paper_sheet.py)."""
    return f"{at}{letter}-{sheet_check(bank.game_mark(), at, letter)}"


def stocks(bank) -> tuple:
    return bank.state.stock("blue")["water"], bank.state.stock("red")["dioxygen"]


@pytest.fixture
def leads(app, web):
    app.extensions["terrabank"].access.add_user("second", "correct horse", "lead")
    first, second = web("lead"), WebClient(app.test_client())
    assert second.login("second").status_code == 200
    assert first.command(type="start_clock").status_code == 200
    return first, second


def test_a_trade_typed_from_both_teams_sheets_books_once(app, leads):
    first, second = leads
    bank = app.extensions["terrabank"].bank
    water, oxygen = stocks(bank)
    booked = send(first, sheet("0A", {1: "Bleus récolte eau 1", 3: TRADE}))
    assert (booked["booked"], booked["duplicate"]) == (2, 0), booked
    seq = bank.last_seq
    copy = send(second, sheet("0C", {2: TRADE, 4: "Rouges récolte dioxygène 1"}))
    assert (copy["booked"], copy["duplicate"], copy["refused"]) == (1, 1, 0), copy
    line = copy["lines"][0]
    assert line["status"] == "duplicate" and line["same_as"] == {"sheet": "0A", "line": 3}
    assert "next_copy" not in line  # the other team's half, not this line typed before: no other copy to name
    assert line["seq"] == booked["lines"][1]["seq"]
    assert bank.last_seq == seq + 1
    assert stocks(bank) == (water + 1 - 2, oxygen - 1 + 1)  # the trade once; each harvest once
    for client in (first, second):  # sent again, from either device: nothing more
        assert send(client, sheet("0C", {2: TRADE}))["booked"] == 0
        assert send(client, sheet("0A", {3: TRADE}))["booked"] == 0
    assert bank.last_seq == seq + 1


def test_a_fight_typed_from_both_sheets_books_once(app, leads):
    first, second = leads
    bank = app.extensions["terrabank"].bank
    fight = "Rouges pirate 1 bat Bleus récolteur 1 prend 1 eau"
    seq = bank.last_seq
    assert send(first, sheet("0C", {1: fight}))["booked"] == 1
    copy = send(second, sheet("0A", {5: fight}))
    assert copy["booked"] == 0 and copy["lines"][0]["same_as"] == {"sheet": "0C", "line": 1}
    assert bank.last_seq == seq + 1


def test_the_same_trade_made_twice_is_two_trades(app, leads):
    first, second = leads
    bank = app.extensions["terrabank"].bank
    for team in ("blue", "red"):  # enough tokens for three trades
        assert first.command(type="inventory", team=team, counted={"water": 9, "dioxygen": 9}, reason="count").status_code == 200
    seq = bank.last_seq
    # Written twice on Rouges' sheet, twice on Bleus' (the second on a new copy of it), typed Rouges first.
    assert send(second, sheet("0C", {2: TRADE, 6: TRADE}))["booked"] == 2
    assert send(first, sheet("0A", {4: TRADE}) + sheet("0A/2", {1: TRADE}))["duplicate"] == 2
    # A third time, written only on Bleus' sheet: a third trade.
    third = send(first, sheet("0A", {4: TRADE}) + sheet("0A/2", {1: TRADE, 3: TRADE}))
    assert [line["status"] for line in third["lines"]] == ["duplicate", "duplicate", "booked"], third
    assert [line.get("same_as") for line in third["lines"]] == [{"sheet": "0C", "line": 2}, {"sheet": "0C", "line": 6}, None]
    assert bank.last_seq == seq + 3
    assert stocks(bank) == (9 - 6, 9 - 3)
    # Typed again from the other device, whole or a line alone: nothing more.
    assert send(second, sheet("0C", {2: TRADE, 6: TRADE}))["booked"] == 0
    assert send(second, sheet("0A/2", {3: TRADE}))["booked"] == 0
    assert bank.last_seq == seq + 3


def test_both_sheets_typed_at_once_from_two_devices_book_once(app, leads):
    bank = app.extensions["terrabank"].bank
    seq = bank.last_seq
    texts = (sheet("0A", {3: TRADE}), sheet("0C", {2: TRADE}))
    start = threading.Barrier(2)
    answers = []

    def type_sheet(client, text):
        start.wait()
        answers.append(send(client, text))

    threads = [threading.Thread(target=type_sheet, args=pair) for pair in zip(leads, texts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(answer["booked"] for answer in answers) == [0, 1], answers
    assert bank.last_seq == seq + 1


@pytest.fixture(scope="module")
def one_game(tmp_path_factory):
    """One game for every example: each example types sheets of its own print, made at its start ("7A", "7C"...):
    a line never stands for a booking made before its sheet was printed (an earlier example's)."""
    app = create_app({"DB": tmp_path_factory.mktemp("both") / "web.db", "CONFIG": load_config(CONFIG_PATH), "TESTING": True,
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    access = app.extensions["terrabank"].access
    devices = []
    for user in ("lead", "second"):
        access.add_user(user, "correct horse", "lead")
        client = WebClient(app.test_client())
        assert client.login(user).status_code == 200
        devices.append(client)
    assert devices[0].command(type="start_clock").status_code == 200
    yield app, devices
    app.extensions["terrabank"].bank.close()
    access.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(on_blue=st.integers(0, 3), on_red=st.integers(0, 3), order=st.lists(st.sampled_from("AC"), min_size=1, max_size=5),
       device=st.lists(st.integers(0, 1), min_size=7, max_size=7))
def test_however_the_sheets_are_typed_each_trade_books_once(one_game, on_blue, on_red, order, device):
    """Each team wrote the trade some times (the one who wrote more is right: the other forgot one); the
    sheets are typed whole, in any order, again and again, from either device."""
    app, devices = one_game
    bank = app.extensions["terrabank"].bank
    for team in ("blue", "red"):  # enough tokens for three trades each way
        assert devices[0].command(type="inventory", team=team, counted={"water": 9, "dioxygen": 9}, reason="count").status_code == 200
    seq = at = bank.last_seq  # the sheets printed now
    written = {"A": {2 * k + 1: TRADE for k in range(on_blue)}, "C": {3 * k + 2: TRADE for k in range(on_red)}}
    for i, letter in enumerate(order + ["A", "C"]):
        if written[letter]:
            send(devices[device[i]], sheet(printed(bank, at, letter), written[letter]))
    assert bank.last_seq == seq + max(on_blue, on_red)
    assert stocks(bank) == (9 - 2 * max(on_blue, on_red), 9 - max(on_blue, on_red))


def test_a_trade_one_team_wrote_twice_books_twice_when_its_sheet_is_typed_in_two_parts(app, leads):
    """The second time, only Rouges wrote the trade down. Rouges' sheet typed in two parts, the second part
    from the other laptop: its first line is Bleus' booking, its second line is the second trade. Before,
    the second part counted again from Bleus' booking and refused the line as a copy: a trade lost."""
    first, second = leads
    bank = app.extensions["terrabank"].bank
    for team in ("blue", "red"):
        assert first.command(type="inventory", team=team, counted={"water": 9, "dioxygen": 9}, reason="count").status_code == 200
    seq = bank.last_seq
    assert send(first, sheet("0A", {3: TRADE}))["booked"] == 1
    part = send(first, sheet("0C", {2: TRADE}))
    assert part["lines"][0]["same_as"] == {"sheet": "0A", "line": 3}, part
    rest = send(second, sheet("0C", {5: TRADE}))
    assert [line["status"] for line in rest["lines"]] == ["booked"], rest
    assert bank.last_seq == seq + 2 and stocks(bank) == (9 - 4, 9 - 2)
    for client in (first, second):  # each part again, and the whole sheet, from either laptop: nothing more
        for text in (sheet("0C", {2: TRADE}), sheet("0C", {5: TRADE}), sheet("0C", {2: TRADE, 5: TRADE})):
            again = send(client, text)
            assert again["booked"] == 0 and again["duplicate"] == len(again["lines"]), again
    assert send(second, sheet("0C", {2: TRADE}))["lines"][0]["same_as"] == {"sheet": "0A", "line": 3}
    assert bank.last_seq == seq + 2


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(on_blue=st.integers(0, 3), on_red=st.integers(0, 3), data=st.data())
def test_however_the_lines_are_split_into_batches_each_trade_books_once(one_game, on_blue, on_red, data):
    """Each team wrote the trade some times; every line is typed once, in batches of any size and any order,
    each from either laptop: max(on_blue, on_red) trades; then the whole sheets again change nothing."""
    app, devices = one_game
    bank = app.extensions["terrabank"].bank
    for team in ("blue", "red"):
        assert devices[0].command(type="inventory", team=team, counted={"water": 9, "dioxygen": 9}, reason="count").status_code == 200
    seq = at = bank.last_seq  # the sheets printed now
    written = {"A": {2 * k + 1: TRADE for k in range(on_blue)}, "C": {3 * k + 2: TRADE for k in range(on_red)}}
    lines = [(letter, n) for letter in "AC" for n in written[letter]]
    order = data.draw(st.permutations(lines))
    cuts = data.draw(st.lists(st.booleans(), min_size=len(order), max_size=len(order)))
    batches, batch = [], []
    for line, cut in zip(order, cuts):
        batch.append(line)
        if cut:
            batches.append(batch)
            batch = []
    batches += [batch] if batch else []
    for batch in batches:
        text = "".join(sheet(printed(bank, at, letter), {n: TRADE}) for letter, n in batch)
        send(devices[data.draw(st.integers(0, 1))], text)
    assert bank.last_seq == seq + max(on_blue, on_red)
    for letter in "AC":  # the whole sheets typed again, as a check: nothing more
        if written[letter]:
            send(devices[data.draw(st.integers(0, 1))], sheet(printed(bank, at, letter), written[letter]))
    assert bank.last_seq == seq + max(on_blue, on_red)
    assert stocks(bank) == (9 - 2 * max(on_blue, on_red), 9 - max(on_blue, on_red))


@pytest.mark.parametrize("first_typed", ["continuation", "blank"])
def test_a_trade_on_a_continuation_ledger_and_a_blank_pack_ledger_books_once(app, leads, first_typed):
    """Bleus wrote the trade on their continuation ledger (printed now, from entry S), Rouges on the print pack's
    blank ledger 0C. The two halves came from two prints: each was paired within its own print only, and the
    trade was booked twice. Either order, either device: once."""
    first, second = leads
    bank = app.extensions["terrabank"].bank
    water, oxygen = stocks(bank)
    texts = {"continuation": sheet(printed(bank, bank.last_seq, "A"), {3: TRADE}), "blank": sheet("0C", {2: TRADE})}
    seq = bank.last_seq
    one = send(first, texts[first_typed])
    other = send(second, texts["blank" if first_typed == "continuation" else "continuation"])
    assert (one["booked"], other["booked"], other["duplicate"]) == (1, 0, 1), (one, other)
    assert other["lines"][0]["same_as"]["line"] == one["lines"][0]["number"]
    assert bank.last_seq == seq + 1 and stocks(bank) == (water - 2, oxygen - 1)
    for client in leads:  # both sheets again, from either device: nothing more
        assert send(client, texts["blank"] + texts["continuation"])["booked"] == 0
    assert bank.last_seq == seq + 1


def test_a_continuation_and_a_blank_ledger_typed_at_once_from_two_devices_book_once(app, leads):
    bank = app.extensions["terrabank"].bank
    seq = bank.last_seq
    texts = (sheet(printed(bank, seq, "A"), {3: TRADE}), sheet("0C/2", {1: TRADE}))
    start, answers = threading.Barrier(2), []

    def type_sheet(client, text):
        start.wait()
        answers.append(send(client, text))

    threads = [threading.Thread(target=type_sheet, args=pair) for pair in zip(leads, texts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(answer["booked"] for answer in answers) == [0, 1], answers
    assert bank.last_seq == seq + 1


@pytest.mark.parametrize("first_sheet", ["continuation", "blank"])
def test_a_trade_each_team_forgot_once_in_two_outages_books_twice(app, leads, first_sheet):
    """The rare case pairing across prints must not lose: at the first stop only Bleus wrote the trade (on a
    continuation ledger, or the pack's blank one), typed back at once; at the second stop the teams made it
    again and only Rouges wrote it, on the ledger printed for that stop. Two trades: a line on a sheet printed
    from entry S never stands for a booking made before S (the trade was made after its sheet was printed,
    and its other half typed back after that)."""
    first, second = leads
    bank = app.extensions["terrabank"].bank
    for team in ("blue", "red"):
        assert first.command(type="inventory", team=team, counted={"water": 9, "dioxygen": 9}, reason="count").status_code == 200
    seq = bank.last_seq
    blue = printed(bank, seq, "A") if first_sheet == "continuation" else "0A"
    assert send(first, sheet(blue, {4: TRADE}))["booked"] == 1
    assert send(second, sheet(printed(bank, bank.last_seq, "C"), {1: TRADE}))["booked"] == 1
    assert bank.last_seq == seq + 2 and stocks(bank) == (9 - 4, 9 - 2)


def test_a_trade_booked_under_the_older_slots_of_its_print_is_known_again(app, leads):
    """A game typed back on the older code booked the trade under a slot of its print (0), and Rouges' line stood
    for it: both sheets typed again now book nothing, though the slots are now the game's."""
    import hashlib
    import json

    first, second = leads
    bank = app.extensions["terrabank"].bank
    command = {"type": "trade", "kind": "free", "merchant_team": "blue", "visited_team": "red",
               "give": {"water": 2}, "take": {"dioxygen": 1}}
    move = json.dumps(command, sort_keys=True, ensure_ascii=False)
    old = "paper:" + hashlib.sha256(f"shared\n0\n{move}\n1".encode()).hexdigest()[:40]
    bank.execute({**command, "paper": {"sheet": "0A", "line": 3}, "id": old, "actor": "lead"})
    app.extensions["terrabank"].access.paper_copies().claim(old, "0C", 2)
    seq = bank.last_seq
    for client in (first, second):
        again = send(client, sheet("0A", {3: TRADE}) + sheet("0C", {2: TRADE}))
        assert [line["status"] for line in again["lines"]] == ["duplicate", "duplicate"], again
        assert again["lines"][1]["same_as"] == {"sheet": "0A", "line": 3}
    assert bank.last_seq == seq


MOVES = itertools.count(1)  # each example its own trade (Bleus give n water): no other example's booking is its
COPIES = itertools.count(2)  # each stop a new copy of the blank ledgers, numbered in its box (0A/2, 0A/3...)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(stops=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.sampled_from(["continuation", "blank"]),
                                st.sampled_from(["continuation", "blank"])), min_size=1, max_size=2), data=st.data())
def test_at_every_stop_each_trade_books_once_whatever_prints_its_halves_are_on(one_game, stops, data):
    """Stops in turn: at each, Bleus and Rouges write the trade some times (the one who wrote more is right), each on
    the ledger printed for the stop or on a copy of the pack's blank one; the sheets are typed back after the stop,
    in any order, from either device. Each stop books its trades once. (A blank ledger bears no print: after a stop
    where a team forgot one, a blank ledger's line may stand for that booking; that case is left out.)"""
    app, devices = one_game
    bank = app.extensions["terrabank"].bank
    forgot = False
    for on_blue, on_red, blue_sheet, red_sheet in stops:
        assume(not (forgot and "blank" in (blue_sheet, red_sheet)))
        forgot = forgot or on_blue != on_red
    n = next(MOVES)
    trade = f"Bleus commerce Rouges donne {n} eau reçoit 1 dioxygène"
    for team in ("blue", "red"):  # enough tokens for four trades
        assert devices[0].command(type="inventory", team=team, counted={"water": 4 * n, "dioxygen": 4},
                                  reason="count").status_code == 200
    start = bank.last_seq
    for stop, (on_blue, on_red, blue_sheet, red_sheet) in enumerate(stops, 1):
        at = seq = bank.last_seq  # the ledgers printed as the bank stops
        copy = f"/{next(COPIES)}"  # a blank ledger's copy, numbered for this stop
        ids = {"A": printed(bank, at, "A") if blue_sheet == "continuation" else "0A" + copy,
               "C": printed(bank, at, "C") if red_sheet == "continuation" else "0C" + copy}
        written = {"A": {2 * k + 1: trade for k in range(on_blue)}, "C": {3 * k + 2: trade for k in range(on_red)}}
        for letter in data.draw(st.permutations("AC")):
            if written[letter]:
                send(devices[data.draw(st.integers(0, 1))], sheet(ids[letter], written[letter]))
        assert bank.last_seq == seq + max(on_blue, on_red), (stop, stops)
    booked = sum(max(on_blue, on_red) for on_blue, on_red, _, _ in stops)
    assert bank.last_seq == start + booked
    assert (bank.state.stock("blue").get("water", 0), bank.state.stock("red").get("dioxygen", 0)) == (
        4 * n - n * booked, 4 - booked)
