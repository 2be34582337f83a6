"""Strangers cannot lock the lead out of a device the lead has logged in on.

Before: four addresses failing the lead's password five times each (20, ACCOUNT_MAX_FAILURES)
locked "lead" for 5 minutes on every device, the lead's own tablet included. Now a good log-in
leaves a signed device cookie (bank/web/access/device_cookie.py): that device has a failure
budget of its own and is not locked by others' failures; any other device is locked as before.
"""

from __future__ import annotations

from bank.web.access import auth
from security_kit import refusal

STRANGERS = [f"10.0.4.{n}" for n in range(1, 5)]  # four addresses
LEAD_TABLET = "10.0.0.50"


def log_in(client, username, password, addr):
    return client.client.post("/api/login", json={"username": username, "password": password},
                              headers={"X-CSRF-Token": client.csrf}, environ_base={"REMOTE_ADDR": addr})


def strangers_guess(web) -> list:
    """Each stranger fails the lead's password MAX_FAILURES times from its own address; their statuses."""
    statuses = []
    for address in STRANGERS:
        stranger = web()
        statuses += [log_in(stranger, "lead", f"guess {address} {k}", address).status_code
                     for k in range(auth.MAX_FAILURES)]
    return statuses


def the_leads_tablet(web):
    """The lead's tablet: logged in once (it now holds a device cookie), then logged out."""
    tablet = web()
    reply = log_in(tablet, "lead", "correct horse", LEAD_TABLET)
    assert reply.status_code == 200
    cookies = reply.headers.getlist("Set-Cookie")
    # The session's first (scripts read the first), then the device's: HttpOnly, SameSite=Strict, a year.
    assert cookies[0].startswith("session=") and cookies[1].startswith("session-device=")
    assert "HttpOnly" in cookies[1] and "SameSite=Strict" in cookies[1] and "Max-Age=31536000" in cookies[1]
    tablet.csrf = reply.get_json()["csrf"]
    assert tablet.client.post("/api/logout", headers={"X-CSRF-Token": tablet.csrf}).status_code == 200
    tablet.csrf = tablet.client.get("/api/csrf").get_json()["csrf"]
    return tablet


def test_strangers_from_4_addresses_do_not_lock_the_lead_out_of_a_device_it_logged_in_on(web):
    tablet = the_leads_tablet(web)
    assert strangers_guess(web).count(401) == auth.ACCOUNT_MAX_FAILURES
    # The account is locked for devices it never logged in on, the right password included...
    reply = log_in(web(), "lead", "correct horse", "10.0.0.51")
    assert reply.status_code == 429 and refusal(reply)["code"] == "locked_out"
    assert "device where this account logged in before" in refusal(reply)["message"]
    # ...and the lead's tablet still gets in.
    reply = log_in(tablet, "lead", "correct horse", LEAD_TABLET)
    assert reply.status_code == 200, reply.get_json()


def test_the_lead_on_the_tablet_is_not_locked_even_from_the_strangers_own_address(web):
    """Behind one access point's NAT every device shares an address: the cookie, not the address, decides."""
    tablet = the_leads_tablet(web)
    strangers_guess(web)
    assert log_in(tablet, "lead", "correct horse", STRANGERS[0]).status_code == 200


def test_a_device_cookie_that_fails_too_often_locks_only_itself(web):
    tablet = the_leads_tablet(web)
    statuses = [log_in(tablet, "lead", f"typo {k}", LEAD_TABLET).status_code for k in range(auth.MAX_FAILURES + 1)]
    assert statuses == [401] * auth.MAX_FAILURES + [429]
    reply = log_in(tablet, "lead", "correct horse", LEAD_TABLET)
    assert reply.status_code == 429 and refusal(reply)["params"]["this_device"] is True
    # The account is not locked: another device (without a cookie) logs in.
    assert log_in(web(), "lead", "correct horse", "10.0.0.52").status_code == 200


def test_a_device_cookie_names_one_account_and_cannot_be_forged(web):
    tablet = the_leads_tablet(web)
    strangers_guess(web)
    # Another account's cookie does not trust this device for "lead".
    banker = web()
    assert log_in(banker, "banker", "correct horse", "10.0.0.53").status_code == 200
    banker.csrf = banker.client.get("/api/csrf").get_json()["csrf"]
    assert log_in(banker, "lead", "correct horse", "10.0.0.53").status_code == 429
    # An altered cookie is no cookie: the device is untrusted, and locked as the strangers made it.
    forger = web()
    forged = tablet.client.get_cookie("session-device").value[:-2] + "AA"
    forger.client.set_cookie("session-device", forged)
    assert log_in(forger, "lead", "correct horse", "10.0.0.54").status_code == 429


def test_the_servers_admission_reads_the_account_a_device_cookie_names_before_the_app(web, app):
    """The server's admission (no request context) gives a trusted device's body its account's lane
    (bank/web/serving/body_pools.py): it must find the account, and nothing in a forged cookie."""
    tablet = the_leads_tablet(web)
    value = tablet.client.get_cookie("session-device").value
    check = app.extensions["terrabank_device_account"]
    assert check({"HTTP_COOKIE": f"session=x; session-device={value}"}) == "lead"
    assert check({"HTTP_COOKIE": f"session-device={value[:-2]}AA"}) is None
    assert check({"HTTP_COOKIE": "session=x"}) is None and check({}) is None
