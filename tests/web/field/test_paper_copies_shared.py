"""A trade written on both teams' ledgers books once, whichever process of the game types each line
(bank/web/field/paper_shared.py, bank/store/accounts/paper_copies.py).

Two apps made by create_app on one game stand for two `terrabank serve` processes behind one address: a
laptop's batch may reach either. Which ledger line stood for which booking of the other team's sheet is
kept with the accounts, in the game's SQLite file or in PostgreSQL beside the journal. Before, it was
counted over the lines of one batch: Rouges' two lines typed at once on two processes each stood for
Bleus' one booking, and the trade that only Rouges wrote down the second time was lost.
"""

from __future__ import annotations

import threading
import uuid

import pytest

from conftest import WebClient
from two_processes_kit import store, two_apps  # noqa: F401 (store: the fixture)

TRADE = "Bleus commerce Rouges donne 2 eau reçoit 1 dioxygène"


@pytest.fixture
def leads(tmp_path, config, store):
    """A lead logged in on each of two processes of one game, with tokens for a few trades."""
    with two_apps(tmp_path, config) as made:
        clients = []
        for app in made:
            client = WebClient(app.test_client())
            assert client.login("lead").status_code == 200
            clients.append(client)
        assert clients[0].command(type="start_clock").status_code == 200
        for team in ("blue", "red"):
            assert clients[0].command(type="inventory", team=team, counted={"water": 9, "dioxygen": 9},
                                      reason="count").status_code == 200
        yield made, clients


def send(client: WebClient, text: str) -> dict:
    reply = client.client.post("/api/paper/batch", json={"batch": uuid.uuid4().hex, "text": text},
                               headers={"X-CSRF-Token": client.csrf})
    assert reply.status_code == 200, reply.get_json()
    return reply.get_json()


def stocks(made, clients) -> set:
    """Bleus' water and Rouges' dioxygen as each process holds them, after a booking of its own (another
    team's harvest), which brings a process up to the journal."""
    for client in clients:
        assert send(client, "Verts récolte eau 1")["booked"] == 1
    return {(app.extensions["terrabank"].bank.state.stock("blue")["water"],
             app.extensions["terrabank"].bank.state.stock("red")["dioxygen"]) for app in made}


def at_once(jobs) -> list:
    """Each (client, text) sent from its own thread, all released together; their answers."""
    start, answers = threading.Barrier(len(jobs)), []

    def run(client, text):
        start.wait()
        answers.append(send(client, text))

    threads = [threading.Thread(target=run, args=job) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(answers) == len(jobs), "a batch did not answer within a minute"
    return answers


def test_each_line_of_a_sheet_typed_on_another_process_at_once_stands_for_its_own_trade(leads):
    made, (first, second) = leads
    assert send(first, "feuille 0A\n3 " + TRADE)["booked"] == 1
    # Rouges wrote the trade twice (Bleus forgot the second): its two lines typed at once, one per process.
    answers = at_once([(first, "feuille 0C\n2 " + TRADE), (second, "feuille 0C\n5 " + TRADE)])
    statuses = sorted(answer["lines"][0]["status"] for answer in answers)
    assert statuses == ["booked", "duplicate"], answers
    for client in (first, second):  # again, line by line and whole, from either process: nothing more
        for text in ("feuille 0C\n2 " + TRADE, "feuille 0C\n5 " + TRADE, f"feuille 0C\n2 {TRADE}\n5 {TRADE}",
                     "feuille 0A\n3 " + TRADE):
            assert send(client, text)["booked"] == 0
    assert stocks(made, (first, second)) == {(9 - 4, 9 - 2)}


def test_one_line_typed_on_both_processes_at_once_stands_for_one_trade(leads):
    made, (first, second) = leads
    assert send(first, "feuille 0A\n3 " + TRADE)["booked"] == 1
    answers = at_once([(first, "feuille 0C\n2 " + TRADE), (second, "feuille 0C\n2 " + TRADE)])
    assert [answer["booked"] for answer in answers] == [0, 0], answers
    assert all(answer["lines"][0]["same_as"] == {"sheet": "0A", "line": 3} for answer in answers), answers
    # Its second line, typed later on either process, is the second trade: the first claim was kept once.
    assert send(second, "feuille 0C\n5 " + TRADE)["booked"] == 1
    assert stocks(made, (first, second)) == {(9 - 4, 9 - 2)}


def test_one_line_typed_two_ways_on_both_processes_at_once_books_one_entry(leads):
    """A printed line is one move (bank/web/field/paper_line.py): read as card 1 on one process and as
    card 2 on the other at once, one reading books, the other is refused naming it; before, both booked."""
    made, clients = leads
    before = made[0].extensions["terrabank"].bank.last_seq
    answers = at_once([(clients[0], "feuille 0C\n1 Rouges récolte dioxygène 1\n"),
                       (clients[1], "feuille 0C\n1 Rouges récolte dioxygène 2\n")])
    said = sorted((a["lines"][0]["status"], (a["lines"][0].get("error") or {}).get("code")) for a in answers)
    assert said == [("booked", None), ("refused", "paper_line_booked")]
    stocks(made, clients)  # a harvest of Verts on each process, the second last
    assert made[1].extensions["terrabank"].bank.last_seq == before + 3
