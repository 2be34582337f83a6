"""Log-ins sent in parallel: the lock holds, hashing is bounded, the lock survives a restart,
and an unknown username costs the same hash as a known one.

The requests run in real threads through the Flask test client. The password hash is
replaced by a counting wrapper that takes a little time, so the requests overlap the way
slow scrypt hashes overlap on a Raspberry Pi; the tests count hashes, never measure time.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest

from bank.store.accounts import access as access_module
from bank.web import create_app
from bank.web.access import auth
from bank.store.accounts.lockout import HASH_SLOTS
from conftest import WebClient
from security_kit import refusal, services


def _post(web_client, username, password, addr="10.0.0.9"):
    return web_client.client.post("/api/login", json={"username": username, "password": password},
                                  headers={"X-CSRF-Token": web_client.csrf}, environ_base={"REMOTE_ADDR": addr})


class Hashes:
    """Stands in for werkzeug's check_password_hash: counts calls and how many run at once."""

    def __init__(self, seconds: float = 0.05):
        self.seconds, self.calls, self.running, self.most = seconds, [], 0, 0
        self.lock, self.hold = threading.Lock(), None  # hold(password) -> an Event to wait for, or None
        self.real = access_module.check_password_hash

    def __call__(self, stored: str, password: str) -> bool:
        with self.lock:
            self.calls.append((stored.split("$", 1)[0], password))
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            gate = self.hold(password) if self.hold else None
            if gate is not None:
                assert gate.wait(10), "the test's gate was never opened"
            time.sleep(self.seconds)  # a real hash takes a while: lets the parallel requests overlap
            return self.real(stored, password)
        finally:
            with self.lock:
                self.running -= 1


@pytest.fixture
def hashes(monkeypatch):
    counting = Hashes()
    monkeypatch.setattr(access_module, "check_password_hash", counting)
    return counting


def _at_once(web, tries, answered=lambda n: None):
    """Send every (username, password, addr) from its own client at the same moment; the replies in order.
    answered(n) is called in the thread of try n once it has its reply."""
    clients = [web() for _ in tries]
    barrier, replies = threading.Barrier(len(tries)), [None] * len(tries)

    def one(n):
        barrier.wait()
        replies[n] = _post(clients[n], *tries[n])
        answered(n)

    threads = [threading.Thread(target=one, args=(n,)) for n in range(len(tries))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return replies


def _codes(replies) -> Counter:
    return Counter(r.status_code if r.status_code != 429 else refusal(r)["code"] for r in replies)


def test_forty_parallel_wrong_log_ins_check_five_passwords_then_the_right_one_is_locked_out(web, hashes):
    replies = _at_once(web, [("lead", f"guess {n}", "10.0.0.9") for n in range(40)])
    assert len(hashes.calls) == auth.MAX_FAILURES
    assert _codes(replies) == {401: auth.MAX_FAILURES, "locked_out": 40 - auth.MAX_FAILURES}
    reply = _post(web(), "lead", "correct horse", addr="10.0.0.9")  # the guessing device: locked, right password or not
    assert reply.status_code == 429 and refusal(reply)["code"] == "locked_out"
    assert len(hashes.calls) == auth.MAX_FAILURES  # refused before any hashing
    # A device that has not failed still gets in: strangers cannot lock the lead out.
    assert _post(web(), "lead", "correct horse", addr="10.0.0.50").status_code == 200


def test_forty_parallel_wrong_log_ins_from_forty_devices_check_no_more_than_the_account_cap(web, hashes):
    replies = _at_once(web, [("lead", f"guess {n}", f"10.0.4.{n}") for n in range(40)])
    assert len(hashes.calls) == auth.ACCOUNT_MAX_FAILURES
    assert _codes(replies) == {401: auth.ACCOUNT_MAX_FAILURES, "locked_out": 40 - auth.ACCOUNT_MAX_FAILURES}


def test_forty_parallel_log_ins_with_the_right_password_among_them_get_no_more_than_five_tries(web, hashes):
    """The right password gets in only as one of the first five tries; it waits in its hash until the others
    have their answers, so the good log-in cannot reopen the door for them halfway through."""
    others_done, wrong_answered, lock = threading.Event(), [], threading.Lock()
    hashes.hold = lambda password: others_done if password == "correct horse" else None

    def answered(n):
        with lock:
            if n < 39:  # a wrong password
                wrong_answered.append(n)
            if len(wrong_answered) == 39:
                others_done.set()

    tries = [("lead", f"guess {n}", "10.0.0.9") for n in range(39)] + [("lead", "correct horse", "10.0.0.9")]
    replies = _at_once(web, tries, answered)
    codes = _codes(replies)
    assert len(hashes.calls) <= auth.MAX_FAILURES
    assert codes[200] + codes[401] == len(hashes.calls) and codes["locked_out"] == 40 - len(hashes.calls)
    if replies[-1].status_code != 200:  # it came too late: the lock holds against the right password too
        assert _post(web(), "lead", "correct horse", addr="10.0.0.9").status_code == 429


def test_no_more_than_the_hash_slots_hash_at_once(web, hashes):
    """Memory is bounded by the number of hashes running together (each scrypt hash holds about 32 MB)."""
    replies = _at_once(web, [(f"user{n}", "password123", f"10.0.1.{n}") for n in range(12)])
    assert len(hashes.calls) == 12 and _codes(replies) == {401: 12}
    assert 1 <= hashes.most <= HASH_SLOTS


def test_a_log_in_that_finds_every_slot_taken_gets_busy_and_is_not_counted(app, web, hashes):
    guard = app.extensions["terrabank_lockout"]
    guard.hash_wait = 0.05
    for _ in range(auth.MAX_FAILURES - 1):
        assert _post(web(), "banker", "typo").status_code == 401
    release = threading.Event()
    hashes.hold = lambda password: release if password == "slow" else None
    slow = [threading.Thread(target=_post, args=(web(), f"slow{n}", "slow", f"10.0.2.{n}")) for n in range(HASH_SLOTS)]
    for t in slow:
        t.start()
    try:
        deadline = time.monotonic() + 10
        while hashes.running < HASH_SLOTS and time.monotonic() < deadline:  # until every slot is taken
            time.sleep(0.01)
        reply = _post(web(), "banker", "typo again")
    finally:
        release.set()
        for t in slow:
            t.join()
    error = refusal(reply)
    assert reply.status_code == 429 and error["code"] == "busy" and "try again" in error["message"]
    # The busy try was given back: four failures, not five, so the right password still gets in.
    assert _post(web(), "banker", "correct horse").status_code == 200


def test_the_lock_survives_a_restart(app, web, tmp_path, config):
    for attempt in range(auth.MAX_FAILURES):
        assert _post(web(), "lead", f"guess {attempt}").status_code == 401
    again = create_app({"DB": tmp_path / "web.db", "CONFIG": config, "TESTING": True,
                        "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    try:
        reply = _post(WebClient(again.test_client()), "lead", "correct horse", addr="10.0.0.9")
        assert reply.status_code == 429 and refusal(reply)["code"] == "locked_out"
    finally:
        services(again).bank.close()
        services(again).access.close()
        again.extensions["terrabank_lockout"].close()


def test_counts_are_kept_in_the_game_file(tmp_path):
    first = auth.Lockout(tmp_path / "game.db")
    for _ in range(auth.MAX_FAILURES):
        assert first.reserve([auth.USER + "Lead"], now=1000.0) == 0
    first.close()
    second = auth.Lockout(tmp_path / "game.db")
    assert second.reserve([auth.USER + "lead"], now=1010.0) == auth.LOCK_SECONDS - 10 + 1
    second.close()


@pytest.mark.parametrize("username, password", [("lead", "wrong one"), ("lead", "correct horse"), ("nobody", "wrong one")])
def test_known_and_unknown_usernames_cost_one_hash_of_the_same_method(web, hashes, username, password):
    _post(web(), username, password)
    assert [method for method, _ in hashes.calls] == ["pbkdf2:sha256:1000"]


def test_a_log_in_that_cannot_be_counted_is_refused_with_a_sentence(app, web, monkeypatch):
    """A game file that cannot be written (full or read-only disk): the log-in fails closed, with a 503 that says why."""
    guard = app.extensions["terrabank_lockout"]
    opened = guard._open

    def read_only():
        conn = opened()
        conn.execute("PRAGMA query_only=ON")
        return conn

    monkeypatch.setattr(guard, "_open", read_only)
    reply = _post(web(), "lead", "correct horse")
    assert reply.status_code == 503 and refusal(reply)["code"] == "database_read_only"
    monkeypatch.undo()
    assert _post(web(), "lead", "correct horse").status_code == 200
