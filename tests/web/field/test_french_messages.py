"""No English rule sentence on a French page.

The bank's refusals carry an English sentence, a stable code and parameters. The French console
showed building prerequisites in English ("the Power plant II needs the Power plant I first").
Every code the rules can raise is found here by reading the code itself, and each must have a
French sentence on the pages that book commands and on the phones, using only parameters the
refusal carries. A browser test then meets one prerequisite refusal on the French console.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
RAISING = sorted((ROOT / "bank" / "game" / "rules").glob("*.py")) + [ROOT / "bank" / "game" / n for n in ("fields.py", "engine.py", "turn.py")]
ERRORS = ("RuleError", "CommandError", "BankError")
# A code built with the unlock level in it: the pages read the level from the code (static/js/refusals.js).
PREFIXES = {"animals_locked_until_all_tracks_reach_": ("animals_locked", {"level"})}
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@functools.cache  # every Python file of bank/ parsed: once per run, not once per refusal and test
def _choices() -> frozenset:
    """The `what` of every fields.choice(cmd, name, allowed, what): its refusal is unknown_<what>."""
    found = set()
    for path in (ROOT / "bank").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "choice" \
                    and len(node.args) >= 4 and isinstance(node.args[3], ast.Constant):
                found.add("unknown_" + node.args[3].value.replace(" ", "_"))
    return frozenset(found)


def raised_codes() -> dict:
    """{code: parameters it may carry}, from every RuleError/CommandError/BankError raised by the rules."""
    return {code: set(params) for code, params in _raised_codes().items()}  # a copy: the scan is read once


@functools.cache
def _raised_codes() -> dict:
    codes: dict = {}
    for path in RAISING:
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) in ERRORS and node.args):
                continue
            first, params = node.args[0], {k.arg for k in node.keywords}
            if isinstance(first, ast.Constant):
                names = [first.value]
            elif isinstance(first, ast.JoinedStr):  # f"animals_locked_until_all_tracks_reach_{unlock}"
                code, extra = PREFIXES[first.values[0].value]
                names, params = [code], params | extra
            elif isinstance(first, ast.BinOp) and ast.unparse(first.left) == "'unknown_'":
                names = sorted(_choices())
            else:
                raise AssertionError(f"{path.name}:{node.lineno}: a refusal code this test cannot read: {ast.unparse(first)}")
            for name in names:
                codes.setdefault(name, set()).update(params)
    return codes


def test_the_scan_finds_the_refusals_a_player_meets():
    codes = raised_codes()
    assert {"building_required", "not_enough_tokens", "animals_locked", "unknown_team", "track_full"} <= set(codes)
    assert codes["building_required"] >= {"building", "requires"}


def _strings(client, path: str) -> dict:
    """Every data-strings block of a page, merged as page.js merges them."""
    html = client.get(path).get_data(as_text=True)
    merged = {}
    for block in re.findall(r'<script type="application/json" data-strings>(.*?)</script>', html, re.S):
        merged.update(json.loads(block))
    return merged


@pytest.fixture
def pages(web, tokens):
    """The French and English strings of the console, fight, admin and phone pages."""
    lead, english = web("lead"), web("lead")
    english.client.post("/api/lang/en", headers={"X-CSRF-Token": english.csrf})
    paths = ["/console", "/fight", "/admin", f"/t/{tokens['blue']}"]
    return {path: (_strings(lead.client, path), _strings(english.client, path)) for path in paths}


@pytest.mark.parametrize("path", ["/console", "/fight", "/admin", "/t/"])
def test_every_rule_refusal_has_a_french_sentence(pages, path):
    fr, en = next(v for k, v in pages.items() if k.startswith(path))
    missing = [code for code in raised_codes() if f"error.{code}" not in fr]
    assert not missing, f"no sentence on {path} for: {missing}"
    untranslated = [code for code in raised_codes() if fr[f"error.{code}"] == en[f"error.{code}"]]
    assert not untranslated, f"English on the French page {path}: {untranslated}"


def test_french_sentences_use_only_the_parameters_a_refusal_carries(pages):
    fr, en = pages["/console"]
    for code, params in raised_codes().items():
        used = set(PLACEHOLDER.findall(fr[f"error.{code}"]))
        assert used <= params, f"error.{code} names {used - params}, which the refusal does not carry"
        assert used == set(PLACEHOLDER.findall(en[f"error.{code}"])), code


# ---- in the browser: one prerequisite refusal on the French console ----

@pytest.fixture
def live(tmp_path):
    """The app served on 127.0.0.1 with a started game, blue rich enough to build anything."""
    from browserkit import serve_in_thread
    from needs import require

    require("playwright", "chromium")
    import logging

    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_app({"DB": str(tmp_path / "fr.db"), "CONFIG": str(ROOT / "config.toml"), "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    services.access.add_user("lea", "password1", "lead")
    services.bank.execute({"id": "s1", "type": "start_clock"})
    services.bank.execute({"id": "s2", "type": "inventory", "team": "blue", "reason": "set-up",
                           "counted": {r: 30 for r in ("water", "energy", "dioxygen", "flora")}})
    url, _ = serve_in_thread(app)
    return url


def test_a_building_prerequisite_is_refused_in_french_on_the_console(chromium, live):
    from browserkit import log_in_to
    from playwright.sync_api import expect

    page = chromium.new_page(viewport={"width": 1366, "height": 768})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    log_in_to(page, live, "/console")
    page.click('#team-picker [data-team="blue"]')
    page.click('[data-tab="build"]')
    why = page.locator('[data-panel="build"] [data-item="power_plant_2"] .why-blocked')
    expect(why).to_have_text("Ce bâtiment (Centrale II) demande d’abord : Centrale I.")
    # The bank's own refusal, as a tap on a stale page would meet it: the banner speaks French too.
    page.evaluate("W.send({type: 'build', team: 'blue', building: 'power_plant_2'}, {banner: document.getElementById('banner')})")
    banner = page.locator("#banner")
    expect(banner).to_have_class(re.compile("banner-error"))
    expect(banner).to_contain_text("demande d’abord : Centrale I")
    assert "needs" not in banner.inner_text() and "first" not in banner.inner_text()
    page.close()
    assert not errors, errors
