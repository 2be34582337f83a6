"""Team links that phones can open.

Join cards, the poster and the admin page's links used whatever address the lead's browser or
the printing machine had: 127.0.0.1 or localhost opens the scanning phone itself. The links now
use the machine's network address (the one `serve` prints), the lead may name another, and a
loopback address is refused unless asked for in so many words.
"""

from __future__ import annotations

import argparse
import os
import stat

import pytest

from bank.cli import printing as cli_print
from bank.cli.main import main
from bank.errors import BankError
from bank.web.field import addresses


@pytest.fixture
def no_network(monkeypatch):
    """A machine with no network address: only 127.0.0.1 (a laptop not yet on the game's Wi-Fi)."""
    monkeypatch.setattr(addresses, "lan_addresses", lambda: [])


@pytest.fixture
def on_wifi(monkeypatch):
    """A machine on the game's Wi-Fi at 192.168.4.1."""
    monkeypatch.setattr(addresses, "lan_addresses", lambda: ["192.168.4.1"])


@pytest.mark.parametrize("base", ["http://127.0.0.1:5000", "http://localhost:5000", "http://[::1]:5000",
                                  "http://0.0.0.0:5000", "127.0.0.2", "http://169.254.3.4"])
def test_addresses_only_this_machine_opens_are_loopback(base):
    assert addresses.is_loopback(base)


@pytest.mark.parametrize("base", ["http://192.168.4.1:5000", "http://10.0.0.7", "http://terrabank.lan:8080"])
def test_network_addresses_are_not_loopback(base):
    assert not addresses.is_loopback(base)


@pytest.mark.parametrize("typed", ["", "ftp://x", "http://a b", "http://host/path", "http://user@host"])
def test_a_malformed_address_is_refused_with_an_example(typed):
    with pytest.raises(BankError) as err:
        addresses.normalise(typed)
    assert err.value.code == "bad_address" and "http://192.168.4.1:5000" in err.value.message


def test_a_bare_address_becomes_a_web_address():
    assert addresses.normalise(" 192.168.4.1:5000/ ") == "http://192.168.4.1:5000"


def test_the_lan_address_wins_over_the_lead_browsers_loopback(on_wifi):
    chosen = addresses.choose(None, "http://127.0.0.1:5001/", 5000)
    assert chosen["base"] == "http://192.168.4.1:5001" and not chosen["loopback"] and chosen["source"] == "lan"


def test_the_leads_own_choice_wins(on_wifi):
    assert addresses.choose("http://bank.lan:5000", "http://10.0.0.9:5000/", 5000)["base"] == "http://bank.lan:5000"


def test_with_only_loopback_known_the_choice_says_so(no_network):
    chosen = addresses.choose(None, "http://localhost:5000/", 5000)
    assert chosen["loopback"] and chosen["source"] == "loopback"


# ---- the print command ----

def _print(bank_path, tmp_path, *argv):
    from play import DEFAULT_CONFIG

    parser = argparse.ArgumentParser(prog="terrabank")
    cli_print.add_parser(parser.add_subparsers(dest="command"), lambda args: (str(DEFAULT_CONFIG), str(bank_path)))
    args = parser.parse_args(["print", "--out", str(tmp_path / "out"), *argv])
    return args.func(args)


def test_print_refuses_join_cards_to_a_loopback_address_without_a_choice(bank, bank_path, tmp_path, no_network):
    with pytest.raises(BankError) as err:
        _print(bank_path, tmp_path, "--kind", "join")
    assert err.value.code == "loopback_address" and "--loopback" in err.value.message
    assert not (tmp_path / "out").exists()  # nothing was written
    with pytest.raises(BankError, match="only this machine"):
        _print(bank_path, tmp_path, "--kind", "join", "--base", "http://localhost:5000")


def test_print_to_loopback_when_asked_in_so_many_words(bank, bank_path, tmp_path, no_network):
    assert _print(bank_path, tmp_path, "--kind", "join", "--loopback") == 0
    assert (tmp_path / "out" / "join-cards-fr.pdf").is_file()


def test_join_cards_holding_the_team_links_are_readable_by_their_owner_only(bank, bank_path, tmp_path, on_wifi):
    """A join card is a team's secret link (and the Wi-Fi password); it was written 0644,
    readable by every account of the machine. A card file left 0644 by an earlier print becomes 0600 too."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "join-cards-fr.pdf").write_bytes(b"old")
    os.chmod(out / "join-cards-fr.pdf", 0o644)
    assert _print(bank_path, tmp_path, "--kind", "all") == 0
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in out.glob("*.pdf")}
    assert modes["join-cards-fr.pdf"] == 0o600 and modes["big-screen-poster-fr.pdf"] == 0o600
    assert modes["cards-fr.pdf"] & 0o044  # the rest of the pack is for everyone to print
    assert not list(out.glob(".*.tmp"))


def test_print_uses_the_network_address_serve_prints(bank, bank_path, tmp_path, on_wifi):
    from printkit import all_text

    assert _print(bank_path, tmp_path, "--kind", "join", "--lang", "en") == 0
    text = all_text((tmp_path / "out" / "join-cards-en.pdf").read_bytes()).replace("\n", "")
    assert "http://192.168.4.1:5000/t/" in text and "127.0.0.1" not in text


def test_print_on_another_machine_uses_the_address_the_bank_served_on(bank, bank_path, tmp_path, on_wifi, capsys):
    from printkit import all_text

    from bank.cli.serve import remember_address

    remember_address(bank_path, "http://10.9.8.7:5000")  # what `serve` noted on the bank's own machine
    assert _print(bank_path, tmp_path, "--kind", "join", "--lang", "en") == 0
    text = all_text((tmp_path / "out" / "join-cards-en.pdf").read_bytes()).replace("\n", "")
    assert "http://10.9.8.7:5000/t/" in text and "192.168.4.1" not in text
    assert "use http://10.9.8.7:5000 (the address the bank last served on)" in capsys.readouterr().out


def test_print_all_still_prints_the_rest_and_says_why_the_cards_are_missing(bank, bank_path, tmp_path, no_network, capsys):
    assert _print(bank_path, tmp_path, "--kind", "all") == 0
    names = {p.name for p in (tmp_path / "out").iterdir()}
    assert "cards-fr.pdf" in names and "join-cards-fr.pdf" not in names
    assert "Join cards and poster skipped" in capsys.readouterr().out


def test_links_warn_when_phones_cannot_reach_them(tmp_path, capsys, monkeypatch, no_network):
    from play import DEFAULT_CONFIG

    db = str(tmp_path / "g.db")
    assert main(["--db", db, "--config", str(DEFAULT_CONFIG), "init"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "--config", str(DEFAULT_CONFIG), "links"]) == 0
    out = capsys.readouterr()
    assert "phones cannot reach it" in out.err and "--base" in out.err


# ---- the admin page's API ----

def test_the_address_endpoint_proposes_the_network_address(web, on_wifi):
    reply = web("lead").client.get("/api/teams/address")  # the test client is "localhost"
    assert reply.get_json()["base"] == "http://192.168.4.1:5000" and not reply.get_json()["loopback"]
    assert web("banker").client.get("/api/teams/address").status_code == 403


def test_the_address_endpoint_refuses_a_malformed_address(web):
    reply = web("lead").client.get("/api/teams/address?base=http://a b")
    assert reply.status_code == 400 and reply.get_json()["error"]["code"] == "bad_address"


def test_join_cards_to_loopback_are_refused_by_the_web_unless_chosen(web, no_network):
    lead = web("lead")
    for kind in ("join", "poster"):
        reply = lead.client.get(f"/api/print/{kind}.pdf")
        assert reply.status_code == 409 and reply.get_json()["error"]["code"] == "loopback_address"
        assert lead.client.get(f"/api/print/{kind}.pdf?loopback=1").data.startswith(b"%PDF")
    assert lead.client.get("/api/print/cards.pdf").status_code == 200  # no link on them: printed as ever


def test_the_qr_code_carries_the_link_and_follows_a_new_link(web, tokens, on_wifi):
    import qrcode

    lead = web("lead")
    svg = lead.client.get("/api/teams/red/qr.svg?base=http://192.168.4.1:5000")
    assert svg.mimetype == "image/svg+xml" and svg.headers["Cache-Control"] == "no-store"

    def modules(payload):  # the dark modules the SVG must draw, from qrcode's own matrix
        code = qrcode.QRCode(border=4, error_correction=qrcode.constants.ERROR_CORRECT_M)
        code.add_data(payload)
        return sum(row.count(True) for row in code.get_matrix())
    assert svg.data.count(b"V") == modules(f"http://192.168.4.1:5000/t/{tokens['red']}")
    new = lead.client.post("/api/teams/red/rotate", json={}, headers={"X-CSRF-Token": lead.csrf}).get_json()["token"]
    again = lead.client.get("/api/teams/red/qr.svg?base=http://192.168.4.1:5000").data
    assert again != svg.data and again.count(b"V") == modules(f"http://192.168.4.1:5000/t/{new}")
    assert lead.client.get("/api/teams/purple/qr.svg").status_code == 404


# ---- the admin page in a browser: the QR codes, also right after a new link ----

@pytest.fixture
def admin_page(chromium, tmp_path, monkeypatch):
    """The admin page of a lead, the bank served on 127.0.0.1 (as a lead's laptop opens it)."""
    import logging
    import re

    from browserkit import log_in_to, serve_in_thread
    from play import DEFAULT_CONFIG
    from playwright.sync_api import expect

    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_app({"DB": str(tmp_path / "g.db"), "CONFIG": str(DEFAULT_CONFIG), "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    app.extensions["terrabank"].access.add_user("lea", "password1", "lead")
    url, _ = serve_in_thread(app)
    page = chromium.new_page(viewport={"width": 390, "height": 844})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def open_admin():
        log_in_to(page, url, "/admin")
        expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"))
        page.locator("#links .link-qr").first.wait_for()
        return page
    yield app, open_admin
    page.close()
    assert not errors, errors


def _drawn(page, team: str) -> None:
    """Wait until the team's QR image has loaded and is drawn."""
    page.wait_for_function("team => { const i = document.querySelector(`#links .link-row[data-team=\"${team}\"] .link-qr`); "
                           "return i && i.complete && i.naturalWidth > 0; }", arg=team)


def _scan(locator, tmp_path) -> list:
    """What a phone's camera reads from a QR code on the screen (zbarimg on a screenshot)."""
    import subprocess

    from needs import require

    require("zbarimg")
    shot = tmp_path / "qr.png"
    locator.screenshot(path=str(shot))
    out = subprocess.run(["zbarimg", "--quiet", "--raw", str(shot)], capture_output=True, text=True, check=False)
    return out.stdout.split()


def test_the_admin_qr_codes_open_the_network_address_also_after_a_new_link(admin_page, on_wifi, tmp_path):
    from playwright.sync_api import expect

    app, open_admin = admin_page
    page = open_admin()
    tokens = app.extensions["terrabank"].access.team_tokens()
    expect(page.locator("#address-note")).to_contain_text("http://192.168.4.1:")
    red = page.locator('#links .link-row[data-team="red"]')
    port = page.evaluate("location.port")
    _drawn(page, "red")  # the image loaded, not only its element there: a scan of a blank image read nothing
    assert _scan(red.locator(".link-qr"), tmp_path) == [f"http://192.168.4.1:{port}/t/{tokens['red']}"]
    rotate = red.locator("button.btn-danger")
    rotate.click()
    page.wait_for_timeout(800)  # the second tap must come a moment later
    rotate.click()
    expect(page.locator("#banner")).to_contain_text("Rouges")
    new = app.extensions["terrabank"].access.team_tokens()["red"]
    assert new != tokens["red"]
    red = page.locator('#links .link-row[data-team="red"]')
    expect(red.locator("code")).to_have_text(f"http://192.168.4.1:{port}/t/{new}")
    _drawn(page, "red")
    assert _scan(red.locator(".link-qr"), tmp_path) == [f"http://192.168.4.1:{port}/t/{new}"]
    assert page.locator("#address-warning").is_hidden()


def test_the_admin_page_warns_about_loopback_and_prints_only_when_chosen(admin_page, no_network):
    from playwright.sync_api import expect

    _, open_admin = admin_page
    page = open_admin()
    expect(page.locator("#address-warning")).to_be_visible()
    expect(page.locator("#address-warning")).to_contain_text("ne s’ouvre que sur cette machine")
    join = page.locator("#print-join")
    join.click()
    expect(page.locator("#banner")).to_contain_text("ne s’ouvriraient que sur cette machine")
    assert "loopback=1" not in join.get_attribute("href")
    page.locator("#loopback-ok input").check()
    assert "loopback=1" in join.get_attribute("href") and "loopback=1" in page.locator("#print-poster").get_attribute("href")
    # The lead types the address the phones use: the warning goes, the links follow.
    page.fill("#address-form [name=base]", "192.168.4.7:5000")
    page.click("#address-form button")
    expect(page.locator("#address-warning")).to_be_hidden()
    expect(page.locator('#links .link-row[data-team="blue"] code')).to_contain_text("http://192.168.4.7:5000/t/")
    assert "base=http%3A%2F%2F192.168.4.7%3A5000" in join.get_attribute("href")


def test_serve_warns_when_its_address_is_loopback_only():
    from bank.cli.serve import loopback_warning

    assert "phones cannot reach it" in loopback_warning("http://127.0.0.1:5000")
    assert loopback_warning("http://192.168.4.1:5000") is None


def test_serve_behind_a_proxy_says_where_the_phones_go_instead_of_warning():
    """The systemd unit listens on 127.0.0.1 behind nginx (TERRABANK_PROXIES=1). Every start of it logged
    "phones cannot reach it ... start again, or give --base" and a QR code of its loopback port: an operator
    following docs/DEPLOY.md read a fault where the setup was right."""
    from bank.cli.serve import loopback_warning

    said = loopback_warning("http://127.0.0.1:5001", proxied=True)
    assert "proxy's address" in said and "admin page" in said
    assert "cannot reach" not in said and "start again" not in said
    assert loopback_warning("http://192.168.4.1:5000", proxied=True) is None


def test_the_noted_address_survives_for_the_print_command(tmp_path):
    from bank.cli.serve import remember_address, remembered_address

    assert remembered_address(tmp_path / "g.db") is None
    remember_address(tmp_path / "g.db", "http://192.168.4.1:5000")
    assert remembered_address(tmp_path / "g.db") == "http://192.168.4.1:5000"
    assert (tmp_path / "g-address.txt").is_file()  # beside the game file, named after it
