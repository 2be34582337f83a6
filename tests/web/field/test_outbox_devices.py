"""The devices' outbox reports (docs/OUTBOX.md): every process of the game sees them, and each is bound to
the device that sent it.

Two apps made by create_app on one game stand for two `terrabank serve` processes (as in
tests/web/access/test_postgres_access_shared.py): nothing in memory is shared, only the store. A report
heard by one is on the lead's admin page served by the other, and one device's "nothing waits" heard by
the other takes it off; on the SQLite file and on PostgreSQL.

A report is kept under the device cookie the bank signed at the device's log-in, not under the name the
page gives: another facilitator naming that device cannot empty or overwrite its report; a device that
logs in again keeps one row; a request without a valid device cookie is refused and changes nothing.
"""

from __future__ import annotations


import pytest

from conftest import WebClient
from two_processes_kit import store, two_apps  # noqa: F401 (store: the fixture)


@pytest.fixture
def pair(tmp_path, config, store):
    """Two processes of one game, each an app of its own; a facilitator of each role."""
    with two_apps(tmp_path, config, roles=("lead", "banker", "referee")) as made:
        yield made


def device(app, user):
    client = WebClient(app.test_client())
    assert client.login(user).status_code == 200
    return client


def on(app, client):
    """The same browser (its cookies) sending its next request to the other process, as behind nginx."""
    moved = WebClient(app.test_client())
    for cookie in ("session", "session-device"):
        moved.client.set_cookie(cookie, client.client.get_cookie(cookie).value)
    moved.csrf = client.csrf
    return moved


def report(client, name, waiting, oldest=0):
    return client.client.post("/api/outbox", json={"device": name, "waiting": waiting, "oldest_seconds": oldest},
                              headers={"X-CSRF-Token": client.csrf})


def listed(lead):
    reply = lead.client.get("/api/outbox")
    assert reply.status_code == 200, reply.get_json()
    return [(d["device"], d["account"], d["waiting"]) for d in reply.get_json()["devices"]]


def test_a_report_heard_by_one_process_is_on_the_admin_page_of_the_other(pair):
    one, other = pair
    tablet = device(one, "banker")
    assert report(tablet, "tablet-a1", 4, 300).status_code == 200
    lead = device(other, "lead")
    assert listed(lead) == [("tablet-a1", "banker", 4)]
    # The tablet's next report reaches the other process: "nothing waits" takes it off everywhere.
    assert report(on(other, tablet), "tablet-a1", 0).status_code == 200
    assert listed(lead) == [] and listed(on(one, lead)) == []


def test_another_facilitator_naming_a_device_cannot_empty_its_report(pair):
    one, other = pair
    tablet = device(one, "banker")
    assert report(tablet, "tablet-a1", 3).status_code == 200
    stranger = device(one, "referee")  # the same process: only the cookie tells the two apart
    assert report(stranger, "tablet-a1", 0).status_code == 200  # its own device's report: it holds nothing
    assert report(stranger, "tablet-a1", 9).status_code == 200  # a row of its own, under its account
    lead = device(one, "lead")
    assert sorted(listed(lead)) == [("tablet-a1", "banker", 3), ("tablet-a1", "referee", 9)]
    assert report(stranger, "tablet-a1", 0).status_code == 200
    assert listed(lead) == [("tablet-a1", "banker", 3)]  # the tablet's own report stands

    # Without the device cookie the bank signed (removed, or forged), a report is refused and changes nothing.
    bare = WebClient(one.test_client())
    assert bare.login("referee").status_code == 200
    bare.client.delete_cookie("session-device")
    refused = report(bare, "tablet-a1", 0)
    assert refused.status_code == 403 and refused.get_json()["error"]["code"] == "no_device_cookie"
    bare.client.set_cookie("session-device", "forged.value")
    assert report(bare, "tablet-a1", 0).status_code == 403
    assert listed(lead) == [("tablet-a1", "banker", 3)]


def test_a_device_logging_in_again_keeps_one_row(pair):
    one, other = pair
    tablet = device(one, "banker")
    assert report(tablet, "tablet-a1", 2).status_code == 200
    assert tablet.login("lead").status_code == 200  # another account on the tablet: a new device cookie
    lead = device(other, "lead")
    assert listed(lead) == [("tablet-a1", "banker", 2)]  # its row followed it
    assert report(tablet, "tablet-a1", 2).status_code == 200
    assert listed(lead) == [("tablet-a1", "lead", 2)]  # one row, now said under the account logged in
    assert report(tablet, "tablet-a1", 0).status_code == 200
    assert listed(lead) == []


def test_one_account_floods_out_only_its_own_oldest_rows(pair):
    from bank.store.accounts.device_reports import PER_ACCOUNT

    one, other = pair
    reports = one.extensions["terrabank"].access.device_reports()
    reports.report("holder-r", "tablet-r", "referee", 2, 0, 1.0)  # the oldest row of all, another account's
    for n in range(PER_ACCOUNT + 5):  # one facilitator logging in again and again, a new cookie each time
        reports.report(f"holder-{n}", f"noise-{n}", "banker", 1, 0, 10.0 + n)
    seen = other.extensions["terrabank"].access.device_reports().holding()
    banker = {d["device"] for d in seen if d["account"] == "banker"}
    assert banker == {f"noise-{n}" for n in range(5, PER_ACCOUNT + 5)}
    assert [d["device"] for d in seen if d["account"] == "referee"] == ["tablet-r"]
