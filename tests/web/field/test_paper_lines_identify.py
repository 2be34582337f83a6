"""A paper ledger's lines know themselves (bank/game/paper_sheet.py): the batch key lived in one
browser's storage, so the same ledger typed on a second laptop or in a private window was a new batch
and a harvest and a track step were booked twice. A line under a sheet's id, with its printed number,
is now the same line from any device, under any batch key, any number of times: it books once; another
number or another copy of the sheet is a new entry (another move under a booked number is refused:
test_paper_line_once.py)."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bank.game.paper_sheet import SheetError, is_header, read_header, sheet_check, sheet_id, team_letters
from bank.web import create_app
from conftest import WebClient

LEDGER = """\
feuille 0A
1 14:02 Bleus récolte eau 1
2 14:03 Bleus récolte eau 2
3 14:05 Bleus piste hydrosphère 1
"""
# The same sheet as a second device types it: another case, no accents, another number style.
RETYPED = """\
Sheet 0a
1. bleus recolte EAU 1
2) BLEU recolte eau 2
n°3 bleus piste hydrosphere
"""


def send(client: WebClient, text: str, key: str | None = None) -> dict:
    reply = client.client.post("/api/paper/batch", json={"batch": key or uuid.uuid4().hex, "text": text},
                               headers={"X-CSRF-Token": client.csrf})
    assert reply.status_code == 200, reply.get_json()
    return reply.get_json()


def counts(result: dict) -> tuple:
    return result["booked"], result["duplicate"], result["refused"]


@pytest.fixture
def leads(app, web):
    app.extensions["terrabank"].access.add_user("second", "correct horse", "lead")
    first, second = web("lead"), WebClient(app.test_client())
    assert second.login("second").status_code == 200
    assert first.command(type="start_clock").status_code == 200
    return first, second


def picture(app) -> tuple:
    bank = app.extensions["terrabank"].bank
    return bank.last_seq, bank.state.stock("blue"), dict(bank.state.tracks)


def test_the_same_sheet_from_two_devices_books_once(app, leads):
    first, second = leads
    bank = app.extensions["terrabank"].bank
    water = bank.state.stock("blue")["water"]
    booked = send(first, LEDGER)
    assert counts(booked) == (3, 0, 0), booked
    assert [(line["sheet"], line["number"]) for line in booked["lines"]] == [("0A", 1), ("0A", 2), ("0A", 3)]
    after = picture(app)
    assert after[1]["water"] == water + 2 - 6 and after[2]["hydrosphere"] == 1
    # Another laptop, another account, its own batch key, the lines typed its own way: nothing twice.
    assert counts(send(second, LEDGER)) == (0, 3, 0)
    assert counts(send(second, RETYPED)) == (0, 3, 0)
    assert counts(send(first, LEDGER, key="a-private-window")) == (0, 3, 0)
    assert picture(app) == after


def test_a_changed_line_is_a_new_entry(app, leads):
    first, second = leads
    bank = app.extensions["terrabank"].bank
    send(first, LEDGER)
    seq, water = bank.last_seq, bank.state.stock("blue")["water"]
    # The next row of the sheet, the same move: a new entry; a second copy of the sheet: new entries.
    more = send(second, "feuille 0A\n4 Bleus récolte eau 1\nfeuille 0A/2\n1 Bleus récolte eau 1\n2 Bleus récolte eau 2\n")
    assert counts(more) == (3, 0, 0) and bank.last_seq == seq + 3
    assert bank.state.stock("blue")["water"] == water + 3
    # Row 1 of the first copy typed with another move: one printed line is one move, the second reading
    # is refused naming the entry booked (tests/web/field/test_paper_line_once.py).
    assert counts(send(second, "feuille 0A\n1 Bleus récolte flore 1\n")) == (0, 0, 1)
    assert bank.state.stock("blue").get("flora", 0) == 0


def test_a_line_without_its_sheet_or_number_is_refused_and_changes_nothing(app, leads):
    first, _ = leads
    bank = app.extensions["terrabank"].bank
    seq, sheet = bank.last_seq, sheet_id(7, 0, bank.game_mark())  # Bleus' sheet
    result = send(first, f"3 Bleus récolte eau 1\nfeuille {sheet}\nBleus récolte eau 1\nfeuille\n"
                         f"feuille {sheet}\n5 Bleus récolte eau 1\n5 Bleus récolte flore 1\n")
    codes = [(line["line"], line["status"], (line.get("error") or {}).get("code")) for line in result["lines"]]
    assert codes == [(1, "refused", "paper_sheet_missing"), (3, "refused", "paper_line_number"),
                     (4, "refused", "paper_sheet_id"), (6, "booked", None), (7, "refused", "paper_line_twice")]
    assert bank.last_seq == seq + 1


def test_a_sheet_id_typed_wrong_or_left_out_never_books_the_next_sheets_lines_on_the_sheet_above(app, leads):
    """Jaunes' sheet id typed with "feuille" misspelled, without it, as "7 B", or as the team's name: it was not
    read as a header, so Jaunes' lines went on as lines of Bleus' sheet above. Jaunes' line 3 was booked as
    Bleus' line 3; typed again under the right id it was booked a second time, and Bleus' real line 3 was
    refused as already booked. Now such an id is refused with every line under it, and a team's move under
    another team's sheet is refused naming both: nothing booked until the id is typed right."""
    first, second = leads
    bank = app.extensions["terrabank"].bank
    blue, yellow = (sheet_id(7, index, bank.game_mark()) for index in (0, 1))
    assert counts(send(first, f"feuille {blue}\n1 Bleus récolte eau 1\n")) == (1, 0, 0)
    seq, energy = bank.last_seq, bank.state.stock("yellow").get("energy", 0)
    lines = "1 Jaunes récolte énergie 1\n3 Jaunes récolte énergie 2\n"
    for typo, code, below in ((f"feuile {yellow}", "paper_sheet_id", "paper_sheet_refused"),
                              (yellow.replace("-", "\u2013"), "paper_sheet_id", "paper_sheet_refused"),
                              ("7 B", "paper_sheet_id", "paper_sheet_refused"),
                              ("Jaunes", "paper_line_number", "paper_line_other_team")):
        result = send(second, f"feuille {blue}\n1 Bleus récolte eau 1\n{typo}\n{lines}")
        assert [(line["status"], (line.get("error") or {}).get("code")) for line in result["lines"]] == [
            ("duplicate", None), ("refused", code), ("refused", below), ("refused", below)], typo
    refused = result["lines"][-1]["error"]
    assert refused["params"] == {"n": 3, "sheet": "7A", "ledger": "Bleus", "team": "Jaunes"}, refused
    assert (bank.last_seq, bank.state.stock("yellow").get("energy", 0)) == (seq, energy)
    # A move's line cut short ("5 Bleu") is no sheet id: refused alone, the sheet's next lines book.
    cut = send(first, f"feuille {blue}\n5 Bleu\n6 Bleus récolte flore 1\n")
    assert [(line["status"], (line.get("error") or {}).get("code")) for line in cut["lines"]] == [
        ("refused", "paper_unknown_move"), ("booked", None)]
    seq += 1
    # Typed right: each line once, on its own sheet.
    fixed = send(first, f"feuille {blue}\n1 Bleus récolte eau 1\n3 Bleus récolte flore 1\nfeuille {yellow}\n{lines}")
    assert counts(fixed) == (3, 1, 0) and bank.last_seq == seq + 3
    assert bank.state.stock("yellow")["energy"] == energy + 2  # two harvests (cards 1 and 2)


def test_a_second_copys_lines_typed_under_the_first_copys_id_are_refused_never_lost(app, leads):
    """A sheet's second copy numbers its lines from 1 again. Typed on under the first copy's id ("/2" left out),
    a line with the same move as the first copy's line of that number (harvests repeat) was answered already
    booked: a harvest lost, nothing said. It is now refused, saying how a second copy is typed."""
    first, _ = leads
    bank = app.extensions["terrabank"].bank
    seq, water = bank.last_seq, bank.state.stock("blue").get("water", 0)
    copy = "1 Bleus récolte eau 1\n2 Bleus récolte eau 2\n"
    result = send(first, f"feuille 0A\n{copy}{copy}")
    assert [(line["status"], (line.get("error") or {}).get("code")) for line in result["lines"]] == [
        ("booked", None)] * 2 + [("refused", "paper_line_again")] * 2
    assert "/2" in result["lines"][2]["error"]["message"] and bank.last_seq == seq + 2
    assert counts(send(first, f"feuille 0A\n{copy}feuille 0A/2\n{copy}")) == (2, 2, 0)
    assert bank.state.stock("blue")["water"] == water + 4 and bank.last_seq == seq + 4


def test_a_second_copys_line_typed_in_a_batch_of_its_own_under_the_first_copys_id_says_what_to_type(app, leads):
    """The same second copy typed under the first copy's id, in a batch of its own: its line is the first copy's line
    typed again as far as the bank can tell (a second laptop retyping the sheet), answered already booked. The
    answer names the id the next copy is typed under, as printed (with its check); typed so, the harvest books."""
    first, second = leads
    bank = app.extensions["terrabank"].bank
    at = bank.last_seq
    continuation = f"{at}A-{sheet_check(bank.game_mark(), at, 'A')}"
    water = bank.state.stock("blue").get("water", 0)
    for header, copy in (("0A", "0A/2"), (continuation, f"{continuation}/2")):
        assert counts(send(first, f"feuille {header}\n1 Bleus récolte eau 1\n")) == (1, 0, 0)
        again = send(second, f"feuille {header}\n1 Bleus récolte eau 1\n")
        assert counts(again) == (0, 1, 0) and again["lines"][0]["next_copy"] == copy, again
        assert counts(send(second, f"feuille {copy}\n1 Bleus récolte eau 1\n")) == (1, 0, 0)
    third = send(first, f"feuille {continuation} copie 2\n1 Bleus récolte eau 1\n")  # the copy's box, as it reads
    assert counts(third) == (0, 1, 0) and third["lines"][0]["next_copy"] == f"{continuation}/3"
    assert bank.state.stock("blue")["water"] == water + 4
    lines = send(first, "Bleus récolte eau 1\n", key="no-sheet")["lines"] + send(first, "Bleus récolte eau 1\n", key="no-sheet")["lines"]
    assert [("next_copy" in line) for line in lines] == [False, False]  # a line on no sheet has no copy


def test_lines_without_a_sheet_keep_the_batch_identity(app, leads):
    first, _ = leads
    text = "Bleus récolte eau 1\nBleus récolte eau 1\n"
    assert counts(send(first, text, key="batch-one")) == (2, 0, 0)
    assert counts(send(first, text, key="batch-one")) == (0, 2, 0)


GAME = "5" * 64  # a game's mark (Bank.game_mark)


def _checked(header: str) -> str:
    """The header with {412C}: that sheet's check in GAME, as its ledger prints it."""
    for seq, team in ((412, "C"), (12, "AB"), (0, "A")):
        header = header.replace(f"{{{seq}{team}}}", sheet_check(GAME, seq, team))
    return header


@pytest.mark.parametrize("header, sheet", [("feuille 412C-{412C}", "412C"), ("Sheet 412c {412C}/2", "412C/2"),
                                           ("FEUILLE : 0a", "0A"), ("feuille 0A-{0A} no 2", "0A/2"),
                                           ("feuille 412C.{412C} n° 3", "412C/3"), ("foglio 12AB{12AB} 1", "12AB"),
                                           ("feuille 412C-{412C}-4", "412C/4")])
def test_a_sheet_id_reads_one_way(header, sheet):
    assert read_header(_checked(header), GAME) == sheet
    assert read_header(_checked(header).lower(), GAME) == sheet


@pytest.mark.parametrize("header", ["feuille", "feuille C412", "sheet 412C-{412C}/0", "feuille 412-C-D", "feuille 412C-{412C}x"])
def test_a_bad_sheet_id_is_refused(header):
    with pytest.raises(SheetError):
        read_header(_checked(header), GAME)


def test_team_letters_are_one_per_team():
    assert [team_letters(i) for i in (0, 1, 25, 26, 27)] == ["A", "B", "Z", "AA", "AB"]
    assert sheet_id(412, 2) == "412C"  # the print pack's blank ledgers: no game, no check
    assert sheet_id(412, 2, GAME) == f"412C-{sheet_check(GAME, 412, 'C')}"


@pytest.fixture(scope="module")
def shared(tmp_path_factory, config_module):
    app = create_app({"DB": tmp_path_factory.mktemp("lines") / "web.db", "CONFIG": config_module, "TESTING": True,
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    access = app.extensions["terrabank"].access
    access.add_user("lead", "correct horse", "lead")
    access.add_user("second", "correct horse", "lead")
    devices = []
    for user in ("lead", "second"):
        client = WebClient(app.test_client())
        assert client.login(user).status_code == 200
        devices.append(client)
    assert devices[0].command(type="start_clock").status_code == 200
    yield app, devices
    app.extensions["terrabank"].bank.close()
    access.close()


@pytest.fixture(scope="module")
def config_module():
    from bank.game.config import load_config
    from conftest import CONFIG_PATH
    return load_config(CONFIG_PATH)


MOVES = ["Bleus récolte eau 1", "bleus recolte eau 2", "Bleus récolte énergie 1", "BLEUS récolte flore 1"]  # on Bleus' sheet
SHEETS = iter(range(1, 10**6))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(1, 6), st.sampled_from(MOVES)), min_size=1, max_size=8),
       st.lists(st.tuples(st.integers(0, 1), st.booleans()), min_size=1, max_size=4), st.randoms())
def test_any_lines_sent_in_any_order_from_any_device_book_each_distinct_line_once(shared, rows, sends, rnd):
    """Lines of one sheet sent again and again, shuffled, cut in parts, from two accounts under new keys:
    the journal grows by the number of distinct (number, move) rows with one move per number."""
    app, devices = shared
    bank = app.extensions["terrabank"].bank
    rows = list({n: move for n, move in rows}.items())  # one move per printed number
    header = f"feuille {sheet_id(next(SHEETS), 0, bank.game_mark())}"
    seq = bank.last_seq
    for device, whole in sends:
        part = rows if whole else rnd.sample(rows, rnd.randint(1, len(rows)))
        rnd.shuffle(part)
        send(devices[device], header + "\n" + "".join(f"{n} {move}\n" for n, move in part))
    booked_rows = {n for n, _ in rows} if any(whole for _, whole in sends) else None
    if booked_rows is not None:
        assert bank.last_seq - seq == len(booked_rows)
    again = send(devices[1], header + "\n" + "".join(f"{n} {move}\n" for n, move in rows))
    assert again["booked"] + again["duplicate"] == len(rows) and bank.last_seq - seq == len(rows)


@pytest.mark.parametrize("line, header", [("feuille 412C", True), ("Sheet: 0a", True), ("feuille", True),
                                          ("feuille n° 12B", True), ("Feuille d'Or récolte eau", False),
                                          ("Feuilles récolte eau", False), ("3 Bleus récolte eau", False)])
def test_a_sheet_line_is_told_from_a_move(line, header):
    assert is_header(line) is header
