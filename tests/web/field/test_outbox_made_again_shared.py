"""The same kept command sent at once by two stations through two processes of one game books once (docs/OUTBOX.md).

Two apps made by create_app on one game stand for two `terrabank serve` processes behind one address. Both
consoles lost the Wi-Fi and each kept the same harvest; they come back at the same instant and their outboxes
reach different processes. The made-again check runs inside the booking's transaction, once the other process's
rows are folded: one books, the other is asked (made_again), whichever wins, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import threading

import pytest

from conftest import WebClient
from two_processes_kit import store, two_apps  # noqa: F401 (store: the fixture)

# Each round another move (a harvest made again counts only when it is the very same one).
MOVES = [(card, resource) for card in ("harvester-1", "harvester-2")
         for resource in ("water", "flora", "dioxygen", "fauna", "energy")]


def kept(client: WebClient, key: str, device: str, card: str, resource: str):
    headers = {"X-CSRF-Token": client.csrf, "Idempotency-Key": key, "X-Queued-Seconds": "30", "X-Device": device}
    return client.client.post("/api/commands", headers=headers,
                              json={"type": "harvest", "team": "green", "card": card, "resource": resource})


@pytest.fixture
def consoles(tmp_path, config, store):
    with two_apps(tmp_path, config, roles=("lead", "banker")) as made:
        clients = []
        for app in made:
            client = WebClient(app.test_client())
            assert client.login("banker").status_code == 200
            clients.append(client)
        lead = WebClient(made[0].test_client())
        assert lead.login("lead").status_code == 200
        assert lead.command(type="start_clock").status_code == 200
        yield made, clients


def test_the_same_kept_harvest_from_two_stations_on_two_processes_books_once(consoles):
    made, clients = consoles
    for n, (card, resource) in enumerate(MOVES):
        start, answers = threading.Barrier(2), [None, None]

        def send(i):
            start.wait()
            answers[i] = kept(clients[i], f"r{n}-station{i}", f"tablet-{i}", card, resource)

        threads = [threading.Thread(target=send, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        codes = sorted(reply.status_code for reply in answers)
        assert codes == [200, 409], [reply.get_json() for reply in answers]
        refused = next(reply for reply in answers if reply.status_code == 409).get_json()["error"]
        assert refused["code"] == "made_again"
    bank = made[0].extensions["terrabank"].bank
    rows = [row for row in bank.journal_rows() if row["command_id"].startswith("r")]
    assert len(rows) == len(MOVES)
