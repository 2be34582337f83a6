"""Accounts, log-in sessions, lock-outs and team links in PostgreSQL: the behaviours the
SQLite suites check, run again with the game in the database, and what only the database has.

The tests imported below are collected again in this module, where `storage_backend` sets
TERRABANK_DATABASE_URL to the test server: conftest's `app` then keeps the journal, the
accounts, the sessions, the lock-out counts and the links there, and no SQLite file is made.
Tests that open the SQLite file itself have their PostgreSQL counterpart written here.
"""

from __future__ import annotations

import os

import pytest

from bank.store.journal import StorageError
from bank.store.storage_url import ENV_VAR
from bank.web import create_app
from bank.web.access import auth
from bank.store.accounts import open_access
from bank.store.accounts.access_pg import PostgresAccess
from bank.store.accounts.sessions import IDLE_LIMIT, SEEN_EVERY, digest
from conftest import WebClient
from security_kit import refusal, services

# The SQLite suites' behaviours, collected again here with the game in PostgreSQL.
from test_accounts_admin import (test_a_generated_password_is_shown_once_and_works,  # noqa: F401
                                 test_a_new_account_typed_twice_can_log_in, test_bad_account_input_is_refused_and_changes_nothing,
                                 test_deleting_an_account_logs_its_devices_out, test_replacing_an_account_logs_its_devices_out,
                                 test_the_lead_cannot_delete_itself_nor_the_last_lead,
                                 test_the_lead_lists_the_accounts_with_their_roles)
from test_attacks_review import test_two_leads_changing_each_other_at_once_never_leave_the_game_without_a_lead  # noqa: F401
from test_security import (test_a_good_log_in_clears_the_count,  # noqa: F401
                           test_a_username_cannot_be_used_to_lock_someone_elses_device,
                           test_brute_force_of_a_facilitator_is_locked_out_even_with_the_right_password,
                           test_guesses_spread_over_many_devices_stop_at_the_account_cap,
                           test_rotating_an_unknown_team_is_a_clear_404,
                           test_rotating_usernames_from_one_device_is_locked_out_per_client,
                           test_spraying_one_password_over_every_username_is_locked_out_per_client,
                           test_token_rotation_cell)
from test_security_login import (hashes,  # noqa: F401  (the fixture the imported tests use)
                                 test_a_log_in_that_finds_every_slot_taken_gets_busy_and_is_not_counted,
                                 test_forty_parallel_log_ins_with_the_right_password_among_them_get_no_more_than_five_tries,
                                 test_forty_parallel_wrong_log_ins_check_five_passwords_then_the_right_one_is_locked_out,
                                 test_forty_parallel_wrong_log_ins_from_forty_devices_check_no_more_than_the_account_cap,
                                 test_known_and_unknown_usernames_cost_one_hash_of_the_same_method,
                                 test_the_lock_survives_a_restart)
from test_security_sessions import (test_a_cookie_made_before_server_side_sessions_is_logged_out,  # noqa: F401
                                    test_a_password_changed_while_a_log_in_is_checked_opens_no_session,
                                    test_a_role_or_password_change_ends_the_session_at_once,
                                    test_a_rotated_link_cuts_the_phones_that_used_it,
                                    test_a_session_ended_by_another_process_loses_its_socket_at_the_next_sweep,
                                    test_log_out_everywhere_ends_every_other_session_and_its_sockets,
                                    test_logging_in_again_ends_the_devices_previous_session,
                                    test_the_lead_can_log_out_one_device, test_the_lead_sees_who_is_logged_in_where,
                                    test_the_old_cookie_books_nothing_after_logout)


@pytest.fixture(scope="module", autouse=True)
def storage_backend(postgres_server):
    """Every test of this module runs with the game in the test server (conftest's fixture of the same name
    leaves the URL unset for every module not in BOTH_STORES)."""
    before = os.environ.pop(ENV_VAR, None)
    os.environ[ENV_VAR] = postgres_server.url
    yield "postgresql"
    os.environ.pop(ENV_VAR, None)
    if before is not None:
        os.environ[ENV_VAR] = before


def _rows(server, query: str, *params) -> list:
    import psycopg
    with psycopg.connect(server.url) as conn:
        return conn.execute(query, params).fetchall()


def _game(app) -> int:
    return services(app).access.game


def test_the_accounts_links_and_sessions_are_rows_of_the_game_not_a_file(app, web, tmp_path, postgres_server):
    """What makes every test imported above a PostgreSQL test: nothing is kept in a file at --db."""
    lead = web("lead")
    assert isinstance(services(app).access, PostgresAccess)
    assert not (tmp_path / "web.db").exists() and not (tmp_path / "web.secret").exists()
    game = _game(app)
    users = _rows(postgres_server, "SELECT username, role FROM terrabank.facilitators WHERE game = %s ORDER BY 1", game)
    assert users == [("banker", "banker"), ("lead", "lead"), ("referee", "referee")]
    links = dict(_rows(postgres_server, "SELECT team, token FROM terrabank.team_tokens WHERE game = %s", game))
    assert links == services(app).access.team_tokens() and set(links) == set(services(app).config.teams)
    with lead.client.session_transaction() as sess:
        sid = sess["sid"]
    stored = _rows(postgres_server, "SELECT id_hash FROM terrabank.sessions WHERE game = %s", game)
    assert stored == [(digest(sid),)]  # only the hash: a copy of the database hands out no live session
    assert not _rows(postgres_server, "SELECT 1 FROM terrabank.sessions WHERE id_hash = %s OR address = %s", sid, sid)


def test_two_games_in_one_database_keep_their_own_accounts_links_and_sessions(app, web, tmp_path, config):
    other = create_app({"DB": tmp_path / "other.db", "CONFIG": config, "TESTING": True,
                        "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    try:
        assert services(other).access.users() == []  # the first game's accounts are not this one's
        assert set(services(other).access.team_tokens().values()).isdisjoint(services(app).access.team_tokens().values())
        lead = web("lead")
        assert WebClient(other.test_client()).login("lead").status_code == 401
        replayed = other.test_client()
        replayed.set_cookie("session", lead.client.get_cookie("session").value)
        assert replayed.get("/api/me").get_json()["user"] is None  # another game's key and rows
        assert services(other).access.team_for(services(app).access.team_tokens()["blue"]) is None
    finally:
        services(other).bank.close()
        services(other).access.close()


def test_an_idle_session_ends_after_a_day(app):
    now = [1000.0]
    store = services(app).access.sessions(clock=lambda: now[0])
    sid = store.start("lead", "lead", "10.0.0.5", "Mozilla/5.0 (Linux; Android 14) Chrome/126.0",
                      services(app).access.since("lead"))
    assert store.check(sid).role == "lead"
    now[0] += IDLE_LIMIT - 1
    assert store.check(sid) is not None  # a request inside the day keeps it alive...
    now[0] += IDLE_LIMIT + 1
    assert store.check(sid) is None  # ...a day without one ends it
    assert store.listing() == []


def test_a_failed_write_of_last_seen_does_not_log_anyone_out(app, monkeypatch):
    now = [1000.0]
    store = services(app).access.sessions(clock=lambda: now[0])
    sid = store.start("lead", "lead", "10.0.0.5", "", services(app).access.since("lead"))

    def refused(key, at):
        raise StorageError("database_error", "the database refused the request")
    monkeypatch.setattr(store, "_touch", refused)
    now[0] += SEEN_EVERY + 1
    assert store.check(sid).user == "lead"


def test_counts_are_kept_in_the_database(app, tmp_path):
    """Two guards on one game (a restart, or a second process) count in the same rows."""
    first = services(app).access.lockout()
    for _ in range(auth.MAX_FAILURES):
        assert first.reserve([auth.USER + "Lead"], now=1000.0) == 0
    second = open_access(tmp_path / "web.db", services(app).config, "pbkdf2:sha256:1000")
    try:
        assert second.lockout().reserve([auth.USER + "lead"], now=1010.0) == auth.LOCK_SECONDS - 10 + 1
    finally:
        second.close()


def test_a_team_link_is_unique_in_its_game(app, postgres_server):
    import psycopg

    tokens = services(app).access.team_tokens()
    with pytest.raises(psycopg.errors.UniqueViolation):
        _rows(postgres_server, "UPDATE terrabank.team_tokens SET token = %s WHERE game = %s AND team = 'red'",
              tokens["blue"], _game(app))
    assert services(app).access.team_for(tokens["blue"]) == "blue"


def test_a_restarted_server_costs_no_request(app, web, postgres_server):
    """PostgreSQL restarted, or an administrator ended Terrabank's connections: the kept connections are
    replaced when they fail on their first statement, and the facilitator sees nothing."""
    lead = web("lead")
    for _ in range(2):
        postgres_server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE application_name = 'terrabank' AND pid <> pg_backend_pid()")
        reply = lead.client.get("/api/accounts")
        assert reply.status_code == 200 and {row["username"] for row in reply.get_json()["accounts"]} >= {"lead"}
        assert web("banker").client.get("/api/me").get_json()["user"] == "banker"  # a log-in: a transaction


def test_a_connection_lost_in_a_transaction_is_a_sentence_and_counts_nothing(app):
    guard = services(app).access.lockout()
    with pytest.raises(StorageError) as err:
        with guard._transaction() as counts:
            counts.put(auth.USER + "lead", auth.MAX_FAILURES, 1000.0)
            counts.conn.execute("SELECT pg_terminate_backend(pg_backend_pid())")  # the server ends it mid-way
    assert err.value.code == "database_connection_lost"
    assert "may not have been saved" in err.value.message and "PostgreSQL" in err.value.message
    assert guard.seconds_left(auth.USER + "lead", now=1000.0) == 0  # rolled back by the server: not locked


def test_a_server_gone_is_a_503_sentence_for_pages_and_log_ins(tmp_path, config, monkeypatch):
    """PostgreSQL stopped while the bank runs (a server of its own, stopped for good)."""
    import postgres_kit

    server = postgres_kit.Server()
    try:
        monkeypatch.setenv(ENV_VAR, server.url)
        app = create_app({"DB": tmp_path / "gone.db", "CONFIG": config, "TESTING": True,
                          "PASSWORD_HASH": "pbkdf2:sha256:1000"})
        services(app).access.add_user("lead", "correct horse", "lead")
        lead = WebClient(app.test_client())
        assert lead.login("lead").status_code == 200
        newcomer = WebClient(app.test_client())
    finally:
        server.stop()
    for reply in (lead.client.get("/api/accounts"), newcomer.login("lead")):
        assert reply.status_code == 503 and "Traceback" not in reply.get_data(as_text=True)
        error = refusal(reply)
        assert error["code"] == "database_unreachable" and "Check that PostgreSQL runs" in error["message"]
    services(app).bank.close()
    services(app).access.close()


def test_a_server_that_cannot_be_reached_is_one_sentence(postgres_server, tmp_path):
    url = postgres_server.url.replace(f":{postgres_server.port}/", ":1/")
    with pytest.raises(StorageError) as err:
        PostgresAccess(url, "nowhere")
    assert err.value.code == "database_unreachable" and "Check that PostgreSQL runs" in err.value.message


def test_accounts_of_a_game_that_does_not_exist_are_refused_with_a_sentence(postgres_server):
    with pytest.raises(StorageError) as err:
        PostgresAccess(postgres_server.url, "no-such-game")
    assert err.value.code == "database_missing" and "terrabank init" in err.value.message
