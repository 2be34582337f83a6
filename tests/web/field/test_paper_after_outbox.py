"""A ledger line typed back after a tablet's outbox sent the same move books nothing more (bank/web/field/paper_kept.py).

The bank was down; the procedure had every move written on the team's ledger, and the console, whose page
stayed open, kept the harvest tapped on it. The bank answers: the outbox sends it by itself, then the lead
types the ledger, printed before. Before, the line booked the harvest a second time. Now the k-th line with
that move stands for the k-th outbox booking of it made after the sheet's print: answered already booked,
naming the entry and the device; a move written twice and tapped once books its second line (R14).
"""

from __future__ import annotations

import pytest
from test_paper_lines_identify import send

from bank.game.paper_sheet import sheet_id

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}


def kept(client, key, seconds, device="tablet-a", **command):
    """A command the console kept, sent by its outbox with how long it waited and its device."""
    headers = {"X-CSRF-Token": client.csrf, "Idempotency-Key": key, "X-Queued-Seconds": str(seconds),
               "X-Device": device}
    return client.client.post("/api/commands", json=command, headers=headers)


@pytest.fixture
def game(app, web):
    bank = app.extensions["terrabank"].bank
    clock = [bank.now()]
    bank.now = lambda: clock[0]
    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    blue = list(app.extensions["terrabank"].config.teams).index("blue")
    sheet = sheet_id(bank.last_seq, blue, bank.game_mark())  # the continuation ledger printed before the outage
    clock[0] += 600
    return bank, clock, lead, web("banker"), sheet


def water(bank) -> int:
    return bank.state.stock("blue")["water"]


def test_a_harvest_kept_on_the_tablet_and_written_on_the_ledger_books_once(game):
    bank, clock, lead, console, sheet = game
    before = water(bank)
    assert kept(console, "kept-1", 300, **HARVEST).status_code == 200  # the outbox, as the bank answers again
    entry, once = bank.last_seq, water(bank)
    assert once > before
    typed = send(lead, f"feuille {sheet}\n1 Bleus récolte eau 1\n")
    line = typed["lines"][0]
    assert (line["status"], line["seq"], line["kept"]) == ("duplicate", entry, {"device": "tablet-a", "actor": "banker"})
    assert "next_copy" not in line  # the console's booking, not this line typed before: no other copy to name
    assert (bank.last_seq, water(bank)) == (entry, once)
    # Typed again (another laptop, the page reloaded): still that entry, nothing booked.
    again = send(lead, f"feuille {sheet}\n1 Bleus récolte eau 1\n")["lines"][0]
    assert (again["status"], again["seq"], again.get("kept")) == ("duplicate", entry, {"device": "tablet-a", "actor": "banker"})
    assert bank.last_seq == entry
    # The rare case the answer names: tapped once but never written, and a second harvest written but never
    # tapped. As the answer says, the second is booked from the console: a live command, booked at once.
    assert console.command(**HARVEST).status_code == 200
    assert (bank.last_seq, water(bank)) == (entry + 1, once + (once - before))


def test_two_trips_each_tapped_and_written_pair_one_to_one_and_a_third_line_books(game):
    """R14: a harvester back from a second trip. Two outbox bookings, three ledger lines (the third trip
    written only): the first two lines stand for the two bookings, the third books."""
    bank, clock, lead, console, sheet = game
    assert kept(console, "kept-1", 300, **HARVEST).status_code == 200
    assert kept(console, "kept-2", 200, **HARVEST).status_code == 200
    first, second = bank.last_seq - 1, bank.last_seq
    typed = send(lead, f"feuille {sheet}\n1 Bleus récolte eau 1\n2 Bleus récolte eau 1\n3 Bleus récolte eau 1\n")
    assert [(l["status"], l["seq"]) for l in typed["lines"]] == [("duplicate", first), ("duplicate", second),
                                                                  ("booked", second + 1)]
    # The sheet typed in two parts, or from a second laptop: the claims hold, nothing more is booked.
    assert [l["status"] for l in send(lead, f"feuille {sheet}\n3 Bleus récolte eau 1\n1 Bleus récolte eau 1\n")["lines"]] \
        == ["duplicate", "duplicate"]
    assert bank.last_seq == second + 1


def test_a_move_kept_before_the_sheet_was_printed_or_undone_is_not_what_the_line_stands_for(game):
    bank, clock, lead, console, sheet = game
    # Kept 20 min ago: made before the ledger (printed 10 min ago) was; it cannot be a line written on it.
    assert kept(console, "kept-old", 1200, **HARVEST).status_code == 200
    old = bank.last_seq
    # Kept since, then undone by the lead (a wrong tap): no line stands for an undone entry.
    assert kept(console, "kept-undone", 60, **HARVEST).status_code == 200
    assert lead.command(type="reverse", seq=bank.last_seq, reason="tapé deux fois").status_code == 200
    line = send(lead, f"feuille {sheet}\n1 Bleus récolte eau 1\n")["lines"][0]
    assert line["status"] == "booked" and line["seq"] > old and "kept" not in line


def test_another_move_or_a_blank_ledger_line(game):
    """Another card is another move: it books. A print pack's blank ledger (0B, no print entry) stands for any
    outbox booking of its move, as a blank ledger pairs a trade's halves."""
    bank, clock, lead, console, sheet = game
    assert kept(console, "kept-1", 300, **HARVEST).status_code == 200
    entry = bank.last_seq
    other = send(lead, f"feuille {sheet}\n1 Bleus récolte eau 2\n")["lines"][0]
    assert other["status"] == "booked"
    blue = sheet[len(sheet.split("-")[0]) - 1]
    blank = send(lead, f"feuille 0{blue}\n1 Bleus récolte eau 1\n")["lines"][0]
    assert (blank["status"], blank["seq"]) == ("duplicate", entry)


@pytest.mark.parametrize("lang, says", [("fr", "« déjà enregistré »"), ("en", "'already booked'")])
def test_the_bank_down_procedure_says_what_becomes_of_what_the_consoles_kept(config, lang, says):
    from printkit import all_text

    from printables.state_procedure import render_bank_down

    printed = " ".join(all_text(render_bank_down(config, lang)).split())
    assert ("console restée ouverte" if lang == "fr" else "A move a console kept") in printed and says in printed


TRADE = {"type": "trade", "kind": "free", "merchant_team": "blue", "visited_team": "red",
         "give": {"water": 2}, "take": {"dioxygen": 1}}
TRADE_LINE = "Bleus commerce Rouges donne 2 eau reçoit 1 dioxygène"


def test_a_trade_kept_on_the_console_and_written_on_both_ledgers_books_once(app, game):
    """Each team's line stands for the console's booking once: one trade. The same trade made again, written on
    both ledgers only, books once more (its two lines pair with each other, paper_shared.py)."""
    bank, clock, lead, console, sheet = game
    red = list(app.extensions["terrabank"].config.teams).index("red")
    red_sheet = sheet_id(int(sheet.split("-")[0][:-1]), red, bank.game_mark())
    assert kept(console, "kept-trade", 300, **TRADE).status_code == 200
    entry = bank.last_seq
    typed = send(lead, f"feuille {sheet}\n1 {TRADE_LINE}\n2 {TRADE_LINE}\nfeuille {red_sheet}\n1 {TRADE_LINE}\n"
                       f"2 {TRADE_LINE}\n")
    assert [(l["status"], l["seq"]) for l in typed["lines"]] == [("duplicate", entry), ("booked", entry + 1),
                                                                  ("duplicate", entry), ("duplicate", entry + 1)]
    assert typed["lines"][2]["kept"]["actor"] == "banker"
    again = send(lead, f"feuille {red_sheet}\n1 {TRADE_LINE}\nfeuille {sheet}\n1 {TRADE_LINE}\n")
    assert [(l["status"], l["seq"]) for l in again["lines"]] == [("duplicate", entry), ("duplicate", entry)]
    assert bank.last_seq == entry + 1


def test_a_harvest_kept_through_a_wifi_blip_while_others_booked_is_no_ledger_line(game):
    """A station's blip earlier in the game: its kept harvest went a minute later while the other console booked.
    Written later on a print pack's blank ledger (no print to bound it), the same harvest is another one: it books.
    A harvest kept 10 s before the bank came back from a 10-minute outage is still the ledger's."""
    bank, clock, lead, console, sheet = game
    assert lead.command(type="harvest", team="blue", card="harvester-2", resource="water").status_code == 200
    clock[0] += 30
    assert lead.command(type="harvest", team="red", card="harvester-1", resource="water").status_code == 200
    clock[0] += 30
    assert kept(console, "blip", 45, **HARVEST).status_code == 200  # made 45 s ago, between two live bookings
    blip = bank.last_seq
    clock[0] += 600  # the bank down 10 minutes: nothing booked
    assert lead.command(type="harvest", team="red", card="harvester-2", resource="water").status_code == 200
    clock[0] += 5
    assert kept(console, "outage", 15, **HARVEST).status_code == 200  # made 10 s before the first booking live
    outage = bank.last_seq
    blue = sheet[len(sheet.split("-")[0]) - 1]
    lines = send(lead, f"feuille 0{blue}\n1 Bleus récolte eau 1\n2 Bleus récolte eau 1\n")["lines"]
    assert [(l["status"], l["seq"]) for l in lines] == [("duplicate", outage), ("booked", outage + 1)]
    assert blip < outage
