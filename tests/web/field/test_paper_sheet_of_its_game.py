"""A continuation ledger books in its own game only (bank/game/paper_sheet.py).

Facilitators install and rehearse the day before, then make the game again for the day (`terrabank
init --force --keep-links`: the same accounts, links and address). The ledgers printed during the
rehearsal named no game: one left in the kit box and typed back on game day booked its moves in the
day's game (a harvest nobody made) once the day's journal had passed its entry; so did another game's
ledger on a host serving two games. Each ledger's id now prints a check made from the game's mark
("feuille 143A-K7"): another game's is refused with every line under it, nothing booked, and a typo in
the check is refused naming it. The ids are read back from the real PDFs, as the lead reads the sheet.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from printkit import all_text, pages_text

from bank.cli.main import main
from bank.web import create_app
from conftest import CONFIG_PATH, WebClient

HASH = "pbkdf2:sha256:1000"
# "Feuille 143A-K7" at the ledger's top right (the check: two characters after the dash).
SHEET = re.compile(r"(?:Feuille|Sheet) (\d+[A-Z]{1,2}(?:-[A-Z0-9]{2})?)\b")
LEDGER = "1 14:02 Verts récolte eau 1\n2 14:04 Verts récolte eau 2\n"  # on the ledger of green, the 4th team (D)


def _app(db: Path, config=CONFIG_PATH, **extra):
    return create_app({"DB": db, "CONFIG": str(config), "TESTING": True, "PASSWORD_HASH": HASH, **extra})


def _close(app) -> None:
    services = app.extensions["terrabank"]
    services.bank.close()
    services.access.close()
    app.extensions["trias_games"].close()


def _lead(app, user: str = "lead", root: str = "", password: str = "correct horse") -> WebClient:
    client = WebClient(app.test_client())
    if root:  # a hosted game's pages and API live under its path
        client.csrf = client.client.get(f"{root}/api/csrf").get_json()["csrf"]
    reply = client.client.post(f"{root}/api/login", json={"username": user, "password": password},
                               headers={"X-CSRF-Token": client.csrf})
    assert reply.status_code == 200, reply.get_json()
    client.csrf = reply.get_json()["csrf"]
    return client


def send(client: WebClient, text: str, root: str = "") -> dict:
    reply = client.client.post(f"{root}/api/paper/batch", json={"batch": uuid.uuid4().hex, "text": text},
                               headers={"X-CSRF-Token": client.csrf})
    assert reply.status_code == 200, reply.get_json()
    return reply.get_json()


def play(client: WebClient, harvests: int, root: str = "") -> None:
    """The clock started and some harvests booked: the journal moves past a printed ledger's entry."""
    for i in range(harvests):
        reply = client.client.post(f"{root}/api/commands", json={"type": "harvest", "team": "blue", "card": "harvester-1",
                                                                  "resource": "water"},
                                   headers={"X-CSRF-Token": client.csrf, "Idempotency-Key": uuid.uuid4().hex})
        assert reply.status_code == 200, reply.get_json()


def printed_green_sheet(client: WebClient, root: str = "", lang: str = "fr") -> str:
    """Green's continuation ledger's id, as the PDF the admin page prints shows it."""
    reply = client.client.get(f"{root}/api/paper/ledgers.pdf?lang={lang}")
    assert reply.status_code == 200
    ids = SHEET.findall(all_text(reply.data))
    assert [i.split("-")[0][-1] for i in ids] == ["A", "B", "C", "D"], ids  # one per team, in config order
    return ids[3]


def picture(app) -> tuple:
    bank = app.extensions["terrabank"].bank
    return bank.last_seq, dict(bank.state.stock("green"))


def statuses(result: dict) -> list:
    return [(line["status"], (line.get("error") or {}).get("code")) for line in result["lines"]]


@pytest.fixture
def rehearsal(tmp_path, monkeypatch):
    """A game made with `terrabank init`, played a little; green's ledger printed."""
    monkeypatch.delenv("TERRABANK_CONFIG", raising=False)
    monkeypatch.delenv("TERRABANK_DB", raising=False)
    db = tmp_path / "terrabank.db"
    assert main(["--config", str(CONFIG_PATH), "--db", str(db), "init"]) == 0
    app = _app(db)
    for user in ("lead", "second"):
        app.extensions["terrabank"].access.add_user(user, "correct horse", "lead")
    lead = _lead(app)
    assert lead.command(type="start_clock").status_code == 200
    play(lead, 5)
    return {"db": db, "app": app, "lead": lead, "sheet": printed_green_sheet(lead), "seq": app.extensions["terrabank"].bank.last_seq}


def test_a_ledger_books_once_in_its_own_game_from_any_device(rehearsal):
    app, lead, sheet = rehearsal["app"], rehearsal["lead"], rehearsal["sheet"]
    try:
        assert sheet.startswith(f"{rehearsal['seq']}D-")  # the entry it starts from, green's letter, then its check
        before = picture(app)
        assert statuses(send(lead, f"feuille {sheet}\n{LEDGER}")) == [("booked", None)] * 2
        after = picture(app)
        assert after[0] == before[0] + 2 and after[1]["water"] == before[1].get("water", 0) + 2
        # Another laptop, another account, its own batch, the id typed its own way: nothing more.
        second = _lead(app, "second")
        typed = sheet.replace("-", " ").lower()
        assert statuses(send(second, f"Feuille {typed}\n{LEDGER}")) == [("duplicate", None)] * 2
        assert picture(app) == after
    finally:
        _close(app)


def test_the_id_typed_as_a_phone_or_a_copied_pdf_writes_it_is_the_same_sheet(rehearsal):
    """A phone's keyboard turns "-" into a dash (en, em, the hyphen), a PDF copied gives one too, and a hand
    writes "143 D": before, each was refused as no sheet id at all. Typed from a second device after the
    ledger was booked, each is the same sheet: nothing booked twice. The copy's number typed as its box
    reads, "copie 2", was refused too."""
    app, lead, sheet = rehearsal["app"], rehearsal["lead"], rehearsal["sheet"]
    try:
        assert statuses(send(lead, f"feuille {sheet}\n{LEDGER}")) == [("booked", None)] * 2
        after = picture(app)
        second = _lead(app, "second")
        entry, check = sheet.split("-")
        spaced = f"{entry[:-1]} {entry[-1]}-{check}"
        for typed in (f"{entry}\u2013{check}", f"{entry}\u2014{check}", f"{entry}\u2010{check}",
                      f"{entry}\u2212{check}", spaced, f"{entry}\u2013{check}\u20131"):
            assert statuses(send(second, f"Feuille {typed}\n{LEDGER}")) == [("duplicate", None)] * 2, typed
        assert picture(app) == after
        # Its top right read as printed ("Feuille 143A-K7  copie [2]"): the second copy, its own lines. "copie"
        # with no number (an empty box, a number left out) is refused, never taken for the first copy.
        assert statuses(send(second, f"Feuille {sheet} copie\n{LEDGER}")) == [("refused", "paper_sheet_id")] + [
            ("refused", "paper_sheet_refused")] * 2
        assert picture(app) == after
        assert statuses(send(second, f"Feuille {sheet} copie 2\n{LEDGER}")) == [("booked", None)] * 2
        assert statuses(send(lead, f"feuille {sheet}/2\n{LEDGER}")) == [("duplicate", None)] * 2
    finally:
        _close(app)


def test_a_rehearsals_ledger_is_refused_by_the_game_made_again(rehearsal, monkeypatch):
    db, sheet = rehearsal["db"], rehearsal["sheet"]
    assert statuses(send(rehearsal["lead"], f"feuille {sheet}\n{LEDGER}")) == [("booked", None)] * 2
    _close(rehearsal["app"])
    # The next morning: the game made again, the same accounts and links; played past the sheet's entry.
    assert main(["--config", str(CONFIG_PATH), "--db", str(db), "init", "--force", "--keep-links"]) == 0
    day = _app(db)
    try:
        lead = _lead(day)  # the rehearsal's account, kept
        assert lead.command(type="start_clock").status_code == 200
        play(lead, 9)
        before = picture(day)
        assert before[0] > int(sheet.split("D")[0])  # the day's journal has passed the sheet's entry
        result = send(lead, f"feuille {sheet}\n{LEDGER}")
        assert statuses(result) == [("refused", "paper_sheet_other_game"), ("refused", "paper_sheet_refused"),
                                    ("refused", "paper_sheet_refused")]
        message = result["lines"][0]["error"]["message"]
        assert f"sheet {sheet} is not a sheet of this game" in message and "rehearsal" in message
        # Typed without its check (or printed by an older Terrabank, with none): refused too, saying what to type.
        missing = send(lead, f"feuille {sheet.split('-')[0]}\n{LEDGER}")
        assert statuses(missing)[0] == ("refused", "paper_sheet_check_missing")
        assert "type its id with the two characters printed after it" in missing["lines"][0]["error"]["message"]
        assert picture(day) == before  # nothing booked: no harvest nobody made
        # The day's own ledger from the same entry books.
        ours = printed_green_sheet(lead)
        assert ours != sheet and statuses(send(lead, f"feuille {ours}\n{LEDGER}")) == [("booked", None)] * 2
    finally:
        _close(day)


def test_a_hosts_two_games_refuse_each_others_ledgers(tmp_path):
    host = _app(tmp_path / "host.db", GAMES_DIR=str(tmp_path / "games"))
    host.extensions["terrabank"].access.add_user("boss", "correct horse", "lead")
    try:
        boss = _lead(host, "boss")
        leads, sheets = {}, {}
        for name in ("camp", "club"):
            made = boss.client.post("/api/host/games", json={"name": name}, headers={"X-CSRF-Token": boss.csrf})
            assert made.status_code == 201, made.get_json()
            root = f"/g/{name}"
            leads[name] = lead = _lead(host, "lead", root, made.get_json()["lead_password"])
            reply = lead.client.post(f"{root}/api/commands", json={"type": "start_clock"},
                                     headers={"X-CSRF-Token": lead.csrf, "Idempotency-Key": f"{name}-go"})
            assert reply.status_code == 200
            play(lead, 3, root)
            sheets[name] = printed_green_sheet(lead, root, "en")
        games = host.extensions["terrabank_hosted"]
        assert sheets["camp"].split("-")[0] == sheets["club"].split("-")[0]  # the same entry, the same letter
        for name, other in (("camp", "club"), ("club", "camp")):
            root, bank = f"/g/{name}", games.app(name).extensions["terrabank"].bank
            play(leads[name], 2, root)
            seq = bank.last_seq
            refused = send(leads[name], f"sheet {sheets[other]}\n{LEDGER}", root)
            assert [status for status, _ in statuses(refused)] == ["refused"] * 3
            assert refused["lines"][0]["error"]["code"] == "paper_sheet_other_game" and bank.last_seq == seq
            assert statuses(send(leads[name], f"sheet {sheets[name]}\n{LEDGER}", root)) == [("booked", None)] * 2
    finally:
        host.extensions["terrabank_hosted"].close()
        _close(host)


def test_a_typo_in_the_check_or_the_id_is_refused_naming_it(app, web):
    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    play(lead, 2)
    sheet = printed_green_sheet(lead, lang="en")
    seq, check = sheet.split("-")
    other = next(c for c in "ACDEFGHJKMPRTUVWXY" if c != check[0])  # one character read or typed wrong
    before = picture(app)
    wrong = send(lead, f"sheet {seq}-{other}{check[1]}\n{LEDGER}")
    error = wrong["lines"][0]["error"]
    assert error["code"] == "paper_sheet_other_game" and error["params"] == {"sheet": seq, "check": other + check[1]}
    assert f"{other}{check[1]} is not its check here" in error["message"] and "type it as printed" in error["message"]
    # The entry typed wrong under the right check: another sheet's id, whose check this is not.
    swapped = send(lead, f"sheet {int(seq[:-1]) + 1}D-{check}\n{LEDGER}")
    assert swapped["lines"][0]["error"]["code"] == "paper_sheet_other_game"
    assert picture(app) == before
    # The admin page says it in French too (templates/admin.html, the catalogue).
    page = lead.client.get("/admin").get_data(as_text=True)  # the game's language: French
    said = {}
    for block in re.findall(r'<script type="application/json" data-strings>(.*?)</script>', page, re.S):
        said.update(json.loads(block))
    assert "n'est pas une feuille de cette partie" in said["error.paper_sheet_other_game"]
    assert "n'a pas sa clé" in said["error.paper_sheet_check_missing"]


NAME = "Les Écureuils 🐿 du Mont-Doré !"  # 30 characters: an article, accents, an emoji, a dash


def test_a_long_name_with_accents_and_an_emoji_types_back_from_its_sheet_in_its_game_only(tmp_path):
    """The names path still holds with the check: the team's name as the sheet draws it (30 characters, an
    article, accents, an emoji in its own font) types back; the same ledger of another game from the same
    config.toml is refused."""
    assert len(NAME) == 30
    text = Path(CONFIG_PATH).read_text(encoding="utf-8")
    config = tmp_path / "config.toml"
    green = re.search(r'(\[\[teams\]\]\nid = "green"\nlabel = )\{[^}]*\}', text)
    config.write_text(text.replace(green.group(0), green.group(1) + f'{{ fr = "{NAME}", en = "{NAME}" }}'), encoding="utf-8")
    apps = [_app(tmp_path / f"names-{n}.db", config) for n in (1, 2)]
    try:
        leads, sheets = [], []
        for app in apps:
            app.extensions["terrabank"].access.add_user("lead", "correct horse", "lead")
            leads.append(lead := _lead(app))
            assert lead.command(type="start_clock").status_code == 200
            play(lead, 1)
            sheets.append(printed_green_sheet(lead))
        pieces = pages_text(leads[0].client.get("/api/paper/ledgers.pdf?lang=fr").data)[3]  # green's page, as drawn
        start = next(i for i, piece in enumerate(pieces) if piece.startswith("Registre de reprise · "))
        end = next(i for i, piece in enumerate(pieces) if piece.startswith("suite de l'état"))
        written = " ".join([pieces[start].split(" · ", 1)[1], *pieces[start + 1:end]])  # the emoji in its own font
        assert written == NAME, pieces[start:end]
        ledger = f"1 {written} récolte eau 1\n2 ecureuils du mont dore récolte eau 1\n"
        before = picture(apps[0])
        assert statuses(send(leads[0], f"feuille {sheets[0]}\n{ledger}")) == [("booked", None)] * 2
        assert picture(apps[0])[1]["water"] == before[1].get("water", 0) + 2
        other = picture(apps[1])
        assert [s for s, _ in statuses(send(leads[1], f"feuille {sheets[0]}\n{ledger}"))] == ["refused"] * 3
        assert picture(apps[1]) == other
    finally:
        for app in apps:
            _close(app)
