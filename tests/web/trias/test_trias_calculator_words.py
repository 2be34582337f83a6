"""The Trias score calculator's refusals in the reader's language (T2, T5, T7, T13 and the description's shape).

trias/calculator.py refuses a malformed description with a stable code and its parameters
(REFUSALS: code -> the English sentence). A French table read those sentences in English on the
French score page and in `terrabank trias score --lang fr|it`. Here the page (French by default,
English when switched, Italian too) and the terminal (--lang fr, it) say each refusal in their
language with its numbers, a refused description changes nothing, and every code the engine can
raise (found by reading trias/calculator.py, not listed by hand) has a sentence in every language.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import string
from pathlib import Path

import pytest

from bank.cli import trias_words
from needs import needs
from test_browser_trias_score import expect, phone, server, type_example_3  # noqa: F401 (fixtures)
from trias_kit import cli  # noqa: F401 (the fixture: `terrabank --db ... trias`)
from trias import calculator

CALCULATOR = Path(calculator.__file__)
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def example_3(**extra) -> dict:
    """T20's Example 3 (tiles, herds of Black, White, Cross, Grey), which scores without refusal."""
    masses = {"A": (3, (2, 0, 1, 0)), "B": (4, (0, 1, 1, 1)), "C": (8, (2, 0, 2, 0)), "D": (6, (0, 1, 1, 0)),
              "E": (1, (0, 1, 0, 1)), "F": (5, (1, 0, 0, 2)), "G": (4, (1, 1, 0, 0)), "H": (5, (1, 1, 0, 0))}
    players = ("Black", "White", "Cross", "Grey")
    return {"land_masses": [{"name": n, "tiles": t, "herds": dict(zip(players, h))} for n, (t, h) in masses.items()],
            **extra}


def bad_tiles(body):  # T2: the box has 36 land tiles
    body["land_masses"][1]["tiles"] = 40


def six_players(body):
    body["land_masses"][0]["herds"].update(Striped=1, Red=1)


def unknown_key(body):
    body["players"] = 4


def two_main(body):  # T5: one South Pole
    body["land_masses"][0]["main"] = True
    body["land_masses"][3]["main"] = True


def crowded(body):  # T2, T13: woods, the roomiest tile, holds 4 herds
    body["land_masses"][4]["herds"] = {"White": 3, "Grey": 3}


SIX = "Black, White, Cross, Grey, Striped, Red"
# change -> (code, the page's sentence in fr, en, it, the terminal's in fr, it)
CASES = {
    "bad tiles": (bad_tiles, "bad_tiles", {
        "fr": "land_masses[1].tiles : les tuiles d'un continent sont un nombre entier de 1 à 36.",
        "en": "land_masses[1].tiles: the tiles of a land mass are a whole number from 1 to 36.",
        "it": "land_masses[1].tiles: le tessere di un continente sono un numero intero da 1 a 36.",
        "cli-fr": "land_masses[1].tiles doit être un nombre entier de 1 à 36 : le nombre de tuiles du continent",
        "cli-it": "land_masses[1].tiles deve essere un numero intero da 1 a 36: il numero di tessere del continente"}),
    "too many players": (six_players, "too_many_players", {
        "fr": f"6 joueurs sont nommés ({SIX}) ; Trias se joue de 2 à 5 : gardez-en 5 au plus.",
        "en": f"6 players are named ({SIX}); Trias is for 2 to 5: keep 5 at most.",
        "it": f"Ci sono 6 giocatori ({SIX}); Trias si gioca da 2 a 5: tienine al massimo 5.",
        "cli-fr": f"6 joueurs sont nommés ({SIX}) ; Trias se joue de 2 à 5 : gardez-en 5 au plus",
        "cli-it": f"6 giocatori nominati ({SIX}); Trias si gioca da 2 a 5: tienine al massimo 5"}),
    "unknown key": (unknown_key, "unknown_key", {
        "fr": "Clé inconnue players : une description a land_masses, et si besoin stock et interim.",
        "en": "Unknown key players: a description has land_masses, and optionally stock and interim.",
        "it": "Chiave sconosciuta players: una descrizione ha land_masses e, se serve, stock e interim.",
        "cli-fr": "clé inconnue « players » : une description a land_masses, et si besoin stock et interim",
        "cli-it": "chiave sconosciuta «players»: una descrizione ha land_masses e, se serve, stock e interim"}),
    "two main land masses": (two_main, "two_main", {
        "fr": "Un seul continent porte le pôle Sud (T5) : cochez-en un seul comme principal.",
        "en": "Only one land mass holds the South Pole (T5): mark only one as the main one.",
        "it": "Solo un continente ha il Polo Sud (T5): segnane uno solo come principale.",
        "cli-fr": "un seul continent peut être le principal (celui du pôle Sud, T5) : mettez main à true "
                  "sur un seul",
        "cli-it": "solo un continente può essere quello del Polo Sud (T5): metti main a true su uno solo"}),
    "crowded land mass": (crowded, "crowded", {
        "fr": "land_masses[4] : trop de troupeaux (6) pour le nombre de tuiles (1) ; une tuile porte au plus "
              "4 troupeaux (T2, T13).",
        "en": "land_masses[4]: too many herds (6) for the number of tiles (1); a tile holds at most 4 herds (T2, T13).",
        "it": "land_masses[4]: troppi branchi (6) per il numero di tessere (1); una tessera ospita al massimo "
              "4 branchi (T2, T13).",
        "cli-fr": "land_masses[4] : trop de troupeaux (6) pour le nombre de tuiles (1) ; une tuile porte au plus "
                  "4 troupeaux (T2, T13)",
        "cli-it": "land_masses[4]: troppi branchi (6) per il numero di tessere (1); una tessera ospita al massimo "
                  "4 branchi (T2, T13)"}),
}


def refused(change) -> dict:
    body = example_3()
    change(body)
    return body


# -- the page ------------------------------------------------------------------------------------

def page_strings(client) -> dict:
    """The score page's strings as page.js gathers them (every <script data-strings>, in order)."""
    html = client.client.get("/trias/score").get_data(as_text=True)
    strings = {}
    for block in re.findall(r"<script type=\"application/json\" data-strings>(.*?)</script>", html, re.S):
        strings.update(json.loads(block))
    return strings


def error_text(strings: dict, error: dict) -> str:
    """TB.errorText (static/js/api.js) and TB.t (page.js): the page's "error.<code>" with the refusal's params,
    else the API's own (English) message."""
    key = "error." + error["code"]
    if key not in strings:
        return error["message"]
    params = error.get("params") or {}
    return PLACEHOLDER.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), strings[key])


def page_client(web, lang: str):
    client = web()
    if lang != "fr":  # French is the page's default (the game's language)
        assert client.client.post(f"/api/lang/{lang}", headers={"X-CSRF-Token": client.csrf}).status_code == 200
    return client


def post_score(client, body):
    return client.client.post("/trias/api/score", json=body, headers={"X-CSRF-Token": client.csrf})


@pytest.mark.parametrize("lang", ["fr", "en", "it"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_score_page_says_a_refusal_in_its_language_with_its_numbers(web, case, lang):
    change, code, sentences = CASES[case]
    client = page_client(web, lang)
    body = refused(change)
    sent = copy.deepcopy(body)
    reply = post_score(client, body)
    assert reply.status_code == 400
    error = reply.get_json()["error"]
    assert error["code"] == code
    assert error_text(page_strings(client), error) == sentences[lang]
    # The API's own message stays the calculator's English sentence (scripts and the field's place read it).
    assert error["message"] == calculator.REFUSALS[code].format(**error["params"])
    # Nothing changed: the body as sent, and the same page still counts Example 3.
    assert body == sent
    again = post_score(client, example_3())
    assert again.status_code == 200 and again.get_json()["totals"] == {"Black": 19, "White": 15, "Cross": 15, "Grey": 8}


def test_a_refusal_on_the_french_page_names_the_land_mass_the_page_marks(web):
    """score.js puts the sentence next to the land mass named by land_masses[N] in the message: still there."""
    error = post_score(page_client(web, "fr"), refused(bad_tiles)).get_json()["error"]
    assert "land_masses[1]" in error["message"] and error["params"]["where"] == "land_masses[1].tiles"


# -- the terminal --------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["fr", "it"])
@pytest.mark.parametrize("case", list(CASES))
def test_trias_score_says_a_refusal_in_its_lang_and_changes_nothing(cli, tmp_path, capsys, case, lang):  # noqa: F811
    change, _, sentences = CASES[case]
    path = tmp_path / "end.json"
    path.write_text(json.dumps(refused(change)), encoding="utf-8")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert cli("score", str(path), "--lang", lang) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f"terrabank: {path}: {sentences['cli-' + lang]}"
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_trias_score_in_english_keeps_the_calculators_sentence(cli, tmp_path, capsys):  # noqa: F811
    path = tmp_path / "end.json"
    path.write_text(json.dumps(refused(bad_tiles)), encoding="utf-8")
    assert cli("score", str(path), "--lang", "en") == 2
    assert capsys.readouterr().err.strip().endswith(f"{path}: land_masses[1].tiles must be a whole number from 1 to 36")


# -- every code, every language ------------------------------------------------------------------

def raised_codes() -> set:
    """The codes trias/calculator.py raises, read from its source: `_bad("code", ...)`, and the codes a helper
    receives to raise (`_name(..., "bad_player_name")` and its default "bad_name")."""
    tree = ast.parse(CALCULATOR.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("_bad", "CalculatorError", "_name"):
            args = node.args if node.func.id != "_name" else node.args[2:]
            args = args[:1] + [k.value for k in node.keywords if k.arg == "code"]
            for arg in args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add(arg.value)
                elif node.func.id != "_name" and not (isinstance(arg, ast.Name) and arg.id == "code"):
                    raise AssertionError(f"line {node.lineno}: a refusal code this test cannot read: "
                                         f"{ast.unparse(arg)}")
        if isinstance(node, ast.FunctionDef) and node.name == "_name":
            found |= {d.value for d in node.args.defaults if isinstance(d, ast.Constant)}
    return found


def _fields(template: str) -> set:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_the_scan_finds_every_refusal_and_each_has_its_english_sentence():
    codes = raised_codes()
    assert {"bad_tiles", "too_many_players", "unknown_key", "two_main", "bad_name", "bad_player_name"} <= codes
    assert codes == set(calculator.REFUSALS), "a code raised without an English sentence, or a sentence never raised"


def test_every_refusal_has_a_terminal_sentence_in_each_language_with_its_parameters():
    for code, english in calculator.REFUSALS.items():
        for lang in ("en", "fr", "it"):
            sentence = trias_words.WORDS[lang].get(f"calc_{code}")
            assert sentence, f"bank/cli/trias_words.py: no {lang} sentence for {code}"
            assert _fields(sentence) == _fields(english), (lang, code)
            assert re.findall(r"T\d+", sentence) == re.findall(r"T\d+", english), (lang, code)  # rule numbers kept
            assert lang == "en" or sentence != english, f"calc_{code} is not translated in {lang}"


@pytest.mark.parametrize("lang", ["fr", "en", "it"])
def test_every_refusal_has_a_sentence_on_the_score_page_in_each_language(web, lang):
    strings = page_strings(page_client(web, lang))
    english = page_strings(page_client(web, "en"))
    for code, sentence in calculator.REFUSALS.items():
        shown = strings.get(f"error.{code}")
        assert shown, f"templates/trias/score.html: no error.{code}"
        # Only parameters the refusal carries; the rule numbers kept.
        assert set(PLACEHOLDER.findall(shown)) <= _fields(sentence), (lang, code)
        assert re.findall(r"T\d+", shown) == re.findall(r"T\d+", sentence), (lang, code)
        if lang != "en":
            assert shown != english[f"error.{code}"], f"error.{code} is not translated in {lang}"


# -- in Chromium: the page's own scripts ---------------------------------------------------------

@needs("playwright", "chromium")
def test_in_chromium_a_refusal_reaches_the_french_page_in_french_beside_its_land_mass(phone):  # noqa: F811
    """A description the page's own checks let through but the calculator refuses (an older page, another
    script): the real reply, shown by score.js in French, under the form and beside land mass B."""
    type_example_3(phone)

    def send_forty_tiles(route):
        body = json.loads(route.request.post_data)
        body["land_masses"][1]["tiles"] = 40  # T2: 36 land tiles in the box
        route.continue_(post_data=json.dumps(body))

    phone.route("**/trias/api/score", send_forty_tiles)
    phone.click("#compute")
    sentence = "land_masses[1].tiles : les tuiles d'un continent sont un nombre entier de 1 à 36."
    expect(phone.locator("#form-error")).to_have_text(sentence)
    expect(phone.locator('[data-mass-msg="1"]')).to_have_text(sentence)
    expect(phone.locator("#result")).to_be_hidden()
