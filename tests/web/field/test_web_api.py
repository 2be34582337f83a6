"""The JSON API: commands, idempotency, the permission table, login, CSRF (docs/API.md)."""

import pytest

from bank.game.engine import COMMANDS
from bank.web.access.permissions import PERMISSIONS

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}


def test_a_banker_harvest_through_the_api_reaches_the_team_view(web, tokens):
    lead, banker = web("lead"), web("banker")
    assert lead.command(type="start_clock").status_code == 200
    reply = banker.command(**HARVEST)
    assert reply.status_code == 200 and reply.get_json()["duplicate"] is False
    team = web().client.get(f"/api/team/{tokens['blue']}").get_json()
    assert team["view"]["stock"]["water"] == 6


def test_idempotent_retry_books_once(web, app):
    lead = web("lead")
    lead.command(type="start_clock")
    first = lead.command(key="phone-42", **HARVEST).get_json()
    for _ in range(3):
        again = lead.command(key="phone-42", **HARVEST).get_json()
        assert again["seq"] == first["seq"] and again["duplicate"] is True
    assert app.extensions["terrabank"].bank.state.stock("blue")["water"] == 6


def test_same_key_other_content_is_refused(web):
    lead = web("lead")
    lead.command(type="start_clock")
    lead.command(key="k1", **HARVEST)
    reply = lead.command(key="k1", **{**HARVEST, "resource": "flora"})
    assert reply.status_code == 409 and reply.get_json()["error"]["code"] == "id_conflict"


def test_rule_refusal_is_409_with_a_sentence_and_changes_nothing(web, app):
    lead = web("lead")
    before = app.extensions["terrabank"].bank.last_seq
    reply = lead.command(**HARVEST)
    error = reply.get_json()["error"]
    assert reply.status_code == 409 and error["code"] == "clock_not_running" and "start the clock" in error["message"]
    assert app.extensions["terrabank"].bank.last_seq == before


def test_malformed_command_is_400_naming_the_field(web):
    lead = web("lead")
    lead.command(type="start_clock")
    reply = lead.command(type="harvest", team="purple", card="harvester-1", resource="water")
    assert reply.status_code == 400 and "purple" in reply.get_json()["error"]["message"]
    reply = lead.client.post("/api/commands", data="not json", headers={"X-CSRF-Token": lead.csrf, "Idempotency-Key": "x"})
    assert reply.status_code == 400 and reply.get_json()["error"]["code"] == "not_json"


def _sample(kind: str) -> dict:
    return {"type": kind}


@pytest.fixture(scope="module")
def table_app(tmp_path_factory, storage_backend):
    """One app for the whole permission table (120 cells): a cell's caller is a new client with its own session,
    and the permission is checked before the rules, whatever an allowed cell booked before it. An app a cell
    cost 0.1 CPU-second to build (its routes compiled, its game created)."""
    from bank.game.config import load_config
    from conftest import CONFIG_PATH, facilitated_app

    yield from facilitated_app(tmp_path_factory.mktemp("table"), load_config(CONFIG_PATH))


@pytest.mark.parametrize("who", [None, "team", "referee", "banker", "lead"])
@pytest.mark.parametrize("kind", sorted(k for k, (_, phase) in COMMANDS.items() if phase != "system"))
def test_permission_table(table_app, who, kind):
    """Every forbidden cell of (caller x command type) is refused before the rules are asked."""
    from conftest import WebClient

    app = table_app
    client = WebClient(app.test_client())
    if who == "team":
        # A team phone has no session: its token gives read access only.
        token = app.extensions["terrabank"].access.team_tokens()["blue"]
        assert client.client.get(f"/api/team/{token}").status_code == 200
    elif who:
        assert client.login(who).status_code == 200
    before = app.extensions["terrabank"].bank.last_seq
    reply = client.command(**_sample(kind))
    allowed = who in PERMISSIONS[kind]
    if allowed:
        assert reply.status_code not in (401, 403)
    else:
        assert reply.status_code == (401 if who in (None, "team") else 403)
        assert app.extensions["terrabank"].bank.last_seq == before


def test_system_commands_cannot_be_sent(web):
    reply = web("lead").command(type="setup")
    assert reply.status_code in (400, 403)


def test_csrf_missing_is_refused(web, app):
    lead = web("lead")
    reply = lead.client.post("/api/commands", json={"type": "start_clock"}, headers={"Idempotency-Key": "c1"})
    assert reply.status_code == 403 and reply.get_json()["error"]["code"] == "csrf_failed"
    assert app.extensions["terrabank"].bank.state.clock["status"] == "setup"


def test_login_locks_out_after_five_failures(web):
    client = web()
    for _ in range(5):
        assert client.login("banker", "wrong password").status_code == 401
    reply = client.login("banker", "correct horse")
    assert reply.status_code == 429 and "try again in" in reply.get_json()["error"]["message"]


def test_team_token_rotation_stops_the_old_link(web, tokens):
    lead = web("lead")
    reply = lead.client.post("/api/teams/red/rotate", headers={"X-CSRF-Token": lead.csrf})
    new = reply.get_json()["token"]
    assert web().client.get(f"/api/team/{tokens['red']}").status_code == 404
    assert web().client.get(f"/api/team/{new}").status_code == 200
    banker = web("banker")
    assert banker.client.post("/api/teams/red/rotate", headers={"X-CSRF-Token": banker.csrf}).status_code == 403


def test_team_sees_no_other_team_stock(web, tokens):
    data = web().client.get(f"/api/team/{tokens['blue']}").get_json()
    assert data["view"]["team"] == "blue"
    assert "teams" not in data and "stock" not in str(data["standings"])


def test_facilitator_views_need_a_login(web):
    assert web().client.get("/api/state").status_code == 401
    assert web().client.get("/api/journal").status_code == 401
    assert web("referee").client.get("/api/state").status_code == 200


def test_exports_for_the_lead_only(web):
    lead = web("lead")
    reply = lead.client.get("/api/export/standings.csv")
    assert reply.status_code == 200 and reply.data.decode().startswith("rank,team")
    assert web("banker").client.get("/api/export/journal.json").status_code == 403
    assert lead.client.get("/api/export/../../etc/passwd").status_code == 404


def test_security_headers_keep_the_team_token_out_of_referers(web):
    reply = web().client.get("/api/public")
    assert reply.headers["Referrer-Policy"] == "no-referrer"
    assert "default-src 'self'" in reply.headers["Content-Security-Policy"]


ROUTES = [  # every state-changing route other than /api/commands, and who may use it
    ("/api/teams/red/rotate", {"lead"}),
]


@pytest.mark.parametrize("who", [None, "team", "referee", "banker", "lead"])
@pytest.mark.parametrize("route, allowed", ROUTES)
def test_permission_table_of_other_routes(web, tokens, who, route, allowed):
    client = web(who if who != "team" else None)
    if who == "team":
        client.client.get(f"/api/team/{tokens['blue']}")
    reply = client.client.post(route, headers={"X-CSRF-Token": client.csrf})
    if who in allowed:
        assert reply.status_code == 200
    else:
        assert reply.status_code in (401, 403)
        assert web().client.get(f"/api/team/{tokens['red']}").status_code == 200  # the link still works


def test_oversized_command_is_refused(web):
    lead = web("lead")
    reply = lead.client.post("/api/commands", data=b"{" + b" " * 70_000 + b"}",
                             headers={"X-CSRF-Token": lead.csrf, "Content-Type": "application/json", "Idempotency-Key": "big"})
    assert reply.status_code == 413 and reply.get_json()["error"]["code"] == "too_large"


def test_history_gives_the_reputation_curve_from_the_journal(web):
    lead = web("lead")
    lead.command(type="start_clock")
    lead.command(type="award", team="red", points=2, reason="fair play")
    lead.command(type="award", team="blue", points=1, reason="help")
    points = web().client.get("/api/history").get_json()["points"]
    assert [p["rep"]["red"] for p in points] == [2, 2] and points[-1]["rep"]["blue"] == 1


@pytest.mark.parametrize("kind", ["cards", "boards", "sheets-a3", "sheets-a4", "bank-sheets", "join", "poster", "report",
                                  "score-track", "rate-sign", "event-sheet", "bonus-dice", "rules-summary"])
def test_print_pack_downloads_for_the_lead(web, kind):
    reply = web("lead").client.get(f"/api/print/{kind}.pdf?loopback=1")  # the test client is "localhost"
    assert reply.status_code == 200 and reply.data.startswith(b"%PDF")
    assert web("banker").client.get(f"/api/print/{kind}.pdf").status_code == 403


def test_every_print_link_on_the_admin_page_downloads_a_pdf(web):
    """The lead's download list and the routes cannot drift apart."""
    import re

    lead = web("lead")
    page = lead.client.get("/admin").get_data(as_text=True)
    links = re.findall(r'href="(/api/print/[a-z0-9-]+\.pdf)"', page)
    assert len(links) >= 13
    for link in links:
        reply = lead.client.get(link + "?loopback=1")
        assert reply.status_code == 200 and reply.data.startswith(b"%PDF"), link
