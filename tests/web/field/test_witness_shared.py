"""The witnesses' reports (bank/web/field/chain_routes.py) are the same on every server process of a game.

Two apps made by create_app on one game stand for two `terrabank serve` processes (as in
tests/web/field/test_outbox_devices.py): nothing in memory is shared, only the store. Before, each process
kept the reports it heard in its own memory: a report heard by one was not on the admin page served by the
other, and two pages heard by two processes never confirmed each other. Now they are kept with the accounts
(the game's SQLite file, or PostgreSQL beside the journal), with the same limits: each reporter keeps its
newest few, so a flood from one link, spread over both processes, never pushes out another's report.
The admin page open on one process hears at once of a report the other heard: a notice on the game's
Redis channel (bank/web/push/peers.py) makes it read the list from the store.
"""

from __future__ import annotations

import logging
import time

import pytest

from bank.store.accounts.witness_reports import PER_REPORTER
from conftest import WebClient
from two_processes_kit import store, two_apps  # noqa: F401 (store: the fixture)
from live_kit import live_client

SEEN = "a1" * 32  # a head at entry 1 that this bank's chain does not hold: what a phone saw before a rollback


@pytest.fixture
def pair(tmp_path, config, store):
    """Two processes of one game, each an app of its own, and a lead."""
    with two_apps(tmp_path, config) as made:
        yield made


def witness(app, team_token: str, seq: int, hash_: str) -> None:
    reply = app.test_client().post("/api/chain/witness", json={"team": team_token, "saw": {"seq": seq, "hash": hash_}})
    assert reply.status_code == 200 and reply.get_json()["known"] is False, reply.get_data(as_text=True)


def admin(app) -> WebClient:
    lead = WebClient(app.test_client())
    assert lead.login("lead").status_code == 200
    return lead


def kept(lead: WebClient) -> list[tuple]:
    reply = lead.client.get("/api/chain/witness")
    assert reply.status_code == 200, reply.get_json()
    return [(r["saw"]["hash"], r["reporters"], r["confirmed"]) for r in reply.get_json()["reports"]]


def test_a_report_heard_by_one_process_is_listed_and_confirmed_by_the_other(pair):
    one, other = pair
    tokens = one.extensions["terrabank"].access.team_tokens()
    witness(one, tokens["red"], 1, SEEN)
    lead = admin(other)
    assert kept(lead) == [(SEEN, ["team:red"], False)]  # before: [] (heard by the other process only)
    sock = live_client(other, flask_test_client=lead.client)  # the admin page open on the other process
    sock.get_received()
    witness(other, tokens["green"], 1, SEEN)  # a second page, on the other process: it confirms red's
    assert kept(lead) == kept(admin(one)) == [(SEEN, ["team:red", "team:green"], True)]
    live = [p["args"][0]["reports"] for p in sock.get_received() if p["name"] == "chain_witness"]
    assert [[(r["saw"]["hash"], r["reporters"], r["confirmed"]) for r in every] for every in live] == \
        [[(SEEN, ["team:red", "team:green"], True)]]  # the live event carries the whole game's list
    sock.disconnect()
    witness(one, tokens["red"], 1, SEEN)  # red's page again, on either process: not a third witness
    witness(other, tokens["red"], 1, SEEN)
    assert kept(lead) == [(SEEN, ["team:red", "team:green"], True)]


def test_a_flood_from_one_link_over_both_processes_never_pushes_out_another_reporters_report(pair):
    one, other = pair
    tokens = one.extensions["terrabank"].access.team_tokens()
    witness(other, tokens["red"], 1, SEEN)
    flood = [f"{n:064x}" for n in range(PER_REPORTER * 4)]
    for n, made_up in enumerate(flood):  # a stolen blue link, its requests spread by nginx over both
        witness((one, other)[n % 2], tokens["blue"], 1 + n % 3, made_up)
    for lead in (admin(one), admin(other)):
        seen = kept(lead)
        assert (SEEN, ["team:red"], False) in seen  # red's report stands
        blue = [h for h, by, _ in seen if by == ["team:blue"]]
        assert blue == flood[-PER_REPORTER:] and len(seen) == PER_REPORTER + 1  # the flooder's newest few only


def test_the_admin_page_open_on_another_process_hears_a_report_at_once(pair, redis_server):
    from bank.web.push import live
    from bank.web.push.peers import Peers, channel_of

    one, other = pair
    logger = logging.getLogger("test_witness_shared")
    name = f"witness-{time.time_ns()}"  # the game's channel, this test's alone
    told = Peers(redis_server.url, name, lambda notice: None, logger)
    told.listening.set()  # as its subscriber loop does once subscribed: it sends notices only then
    one.extensions["terrabank_peers"] = told
    hears = Peers(redis_server.url, name, lambda notice: live._heard(other, notice), logger)
    channel = hears._listen_client.pubsub(ignore_subscribe_messages=True)
    channel.subscribe(channel_of(name))  # what the other process's loop reads (listen_forever), read here
    sock = live_client(other, flask_test_client=admin(other).client)
    sock.get_received()

    witness(one, one.extensions["terrabank"].access.team_tokens()["red"], 1, SEEN)
    deadline, notice = time.monotonic() + 5, None
    while notice is None and time.monotonic() < deadline:
        notice = channel.get_message(timeout=0.5)
    assert notice is not None, "no notice on the game's channel"  # before: the report stayed in one process
    hears._heard(notice)
    live_lists = [p["args"][0]["reports"] for p in sock.get_received() if p["name"] == "chain_witness"]
    assert [[(r["saw"]["hash"], r["reporters"]) for r in every] for every in live_lists] == [[(SEEN, ["team:red"])]]
    assert hears.heard == 1
    sock.disconnect()
    channel.close()
