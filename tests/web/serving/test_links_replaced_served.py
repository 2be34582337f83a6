"""A replaced team link, on every process of a game at once.

Reading on a timer, each `terrabank serve` process would read the team links again every second (its admission
layer on requests, its sweep while a phone was connected): a link replaced through another process was
learnt within a second, by reading two rows a second whether anything changed or not. Now a process
keeps them in memory and learns of a replacement when it happens: the process that replaced it tells
the others on the game's queue ({"links": true}, bank/web/push/peers.py), and each forgets its copy
and cuts the pages opened here with the old link (bank/web/push/live.py links_replaced, sweep_links).
Without that notice, the other process would keep the old link's pages forever: this test fails then.

Two real processes on one game in PostgreSQL with a Redis queue (tests/web/serving/test_processes_serve.py Cluster).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api  # noqa: E402
from sio_kit import Phone  # noqa: E402
from cluster_kit import Cluster, cluster, start_game  # noqa: E402,F401 (cluster: the fixture)

SOON = 10.0  # seconds: generous on a loaded machine; the notice arrives in milliseconds


def phone(port: int, token: str) -> Phone:
    """A team page on its link, as live.js opens it (the link in the query names it for the admission)."""
    return Phone(port, {"team": token}, query=f"&team={token}")


def accepted(page: Phone) -> bool:
    """The bank accepted the page's connect (a refused one is answered 44, a replaced link's)."""
    return any(text.startswith("40") for text in page.texts)


def test_a_link_replaced_through_one_process_is_refused_and_cut_on_the_other(cluster: Cluster):
    (_, port_a), (_, port_b) = cluster.serve("a"), cluster.serve("b")
    lead_a = Api(f"http://127.0.0.1:{port_a}").login()
    old = start_game(lead_a)["blue"]
    on_b = phone(port_b, old)
    visitor_b = Api(f"http://127.0.0.1:{port_b}")
    try:
        assert accepted(on_b)
        assert visitor_b.request("GET", f"/api/team/{old}")[0] == 200  # process b has read the links
        status, reply = lead_a.request("POST", "/api/teams/blue/rotate")
        assert status == 200, reply
        new = reply["token"]
        started = time.monotonic()
        # Process b: the old link's page is told why and closed, with no request made to b meanwhile.
        assert on_b.wait_for(lambda name, data: name == "link_replaced", SOON), on_b.events[-3:]
        told = time.monotonic() - started
        assert on_b.wait(lambda: on_b.closed, SOON)  # by the server (admission.py CUT_GRACE after telling it)
        print(f"\nprocess b told the old link's page {told:.2f} s after the replacement, "
              f"closed it {time.monotonic() - started:.2f} s after")
        assert visitor_b.request("GET", f"/api/team/{old}")[0] == 404
        refused = phone(port_b, old)
        replacing = phone(port_b, new)
        try:
            assert not accepted(refused)
            assert accepted(replacing)  # the team's share on b is the new link's
        finally:
            refused.close()
            replacing.close()
    finally:
        on_b.close()
        visitor_b.close()
        lead_a.close()
