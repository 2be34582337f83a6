"""Print defects found on game day II: each printable read as a facilitator
who must laminate, cut and use it. Every test here failed before its fix.
"""

from __future__ import annotations

import io
import re
import subprocess

import pytest
from printkit import all_text, page_count, page_sizes_mm, pages_text, play_sample, pypdf

from printables import geometry as geo
from printables.bank_sheets import render_bank_sheets
from printables.boards import render_team_boards
from printables.cards import card_ids, payload, qr_place, render_cards
from printables.commons import render_common
from printables.dice import FACE, NET, net_lines, render_dice
from printables.game_aids import ordinal, render_event_sheet, render_rate_sign, render_score_track, track_top
from printables.geometry import LETTER, Box
from printables.join import link_lines, render_join, render_poster
from printables.report import render_report
from printables.rules_summary import render_rules_summary
from printables.trias_setup import render_setup
from printables.trias_sheets import render_aid, render_score_sheet

TEAM_URLS = {"blue": "http://192.168.4.1:5000/t/k7m2p9qrstuvwxyzabcd", "yellow": "http://192.168.4.1:5000/t/bbbb",
             "red": "http://terrabank-field.local:5000/t/cccc", "green": "http://192.168.4.1:5000/t/dddd"}


def _flat(data: bytes) -> str:
    return " ".join(all_text(data).split())


def sizes(data: bytes, page: int = 0) -> list:
    """(text, size in points) of every string drawn on a page."""
    found = []

    def visit(text, cm, tm, font, size):
        if text.strip() and font is not None:
            scale = (cm[0] ** 2 + cm[1] ** 2) ** 0.5 * ((tm[0] ** 2 + tm[1] ** 2) ** 0.5 or 1)
            found.append((text.strip(), size * scale, font["/BaseFont"].lstrip("/")))

    pypdf.PdfReader(io.BytesIO(data)).pages[page].extract_text(visitor_text=visit)
    return found


# --- the players' rules page: R28 ------------------------------------------------------------------

@pytest.mark.parametrize("lang, says, never", [
    ("fr", "Chaque équipe peut acheter chaque animal commun une fois", "Un animal commun par équipe"),
    ("en", "Each team may buy each common animal once", "A common animal for each team"),
])
def test_rules_page_says_each_team_may_buy_each_common_animal_once_r28(config, lang, says, never):
    text = _flat(render_rules_summary(config, lang))
    assert says in text and never not in text


# --- the typed join links -------------------------------------------------------------------------

def test_typed_link_is_monospaced_and_whole_or_broken_after_a_slash(config):
    for team, url in TEAM_URLS.items():
        drawn = sizes(render_join(config, {team: url}, "en", ("Terrabank", "sol-vert-42")))
        pieces = [(text, font) for text, _, font in drawn if text and text in url and len(text) > 3
                  and font.startswith("Courier")]
        joined = "".join(text for text, _ in pieces)
        assert joined == url, f"{url} printed as {pieces}"
        assert all(text.endswith("/") for text, _ in pieces[:-1])  # a break only after a slash
        assert not any(font.startswith("Helvetica") and "/t/" in text for text, _, font in drawn)


def test_link_lines_keep_a_short_link_on_one_line():
    from printables.drawing import MONO

    assert link_lines("http://10.0.0.2:5000/t/abcd", MONO, 8 * 25.4 / 72, 80) == ["http://10.0.0.2:5000/t/abcd"]
    assert link_lines("http://192.168.4.1:5000/t/k7m2p9qrstuvwxyzabcd", MONO, 10 * 25.4 / 72, 60) == \
        ["http://192.168.4.1:5000/t/", "k7m2p9qrstuvwxyzabcd"]


def test_new_team_tokens_have_no_look_alikes_and_old_links_keep_working(config, tmp_path):
    from bank.store.accounts import open_access

    access = open_access(str(tmp_path / "g.db"), config)
    try:
        access._add_tokens([("blue", "Il1O0-old_Token")], 0.0)  # a link printed before
        tokens = access.ensure_team_tokens(config.teams)
        assert tokens["blue"] == "Il1O0-old_Token" and access.team_for("Il1O0-old_Token") == "blue"
        new = [tokens[t] for t in config.teams if t != "blue"] + [access.rotate("blue")]
        for token in new:
            assert len(token) >= 16 and not set(token) & set("Il1O0oi-_"), token
            assert access.team_for(token) is not None
    finally:
        access.close()


# --- US Letter -----------------------------------------------------------------------------------

LETTER_MM = (round(LETTER[0]), round(LETTER[1]))


def _letter_pack(config, lang="en"):
    yield "boards", render_team_boards(config, lang, paper="letter")
    yield "cards", render_cards(config, lang, paper="letter")
    yield "rules", render_rules_summary(config, lang, paper="letter")
    yield "dice", render_dice(config, lang, paper="letter")
    yield "bank-sheets", render_bank_sheets(config, lang, paper="letter")
    yield "halves", render_common(config, lang, halves=True, paper="letter")
    yield "score-halves", render_score_track(config, lang, halves=True, paper="letter")
    yield "rate", render_rate_sign(config, lang, paper="letter")
    yield "event", render_event_sheet(config, lang, paper="letter")
    yield "join", render_join(config, TEAM_URLS, lang, ("Terrabank", "sol-vert-42"), paper="letter")
    yield "poster", render_poster(config, "http://10.0.0.1:5000/display", lang, paper="letter")
    yield "trias-setup", render_setup(4, 7, lang, "letter")
    yield "trias-score-sheet", render_score_sheet(lang, paper="letter")
    yield "trias-aid", render_aid(lang, "letter")


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_printable_comes_on_letter_with_every_word_on_the_sheet(config, bank, lang):
    from test_print_layout import check_page

    play_sample(bank)
    docs = dict(_letter_pack(config, lang))
    docs["report"] = render_report(bank, lang, paper="letter")
    for name, data in docs.items():
        for page, size in enumerate(page_sizes_mm(data)):
            assert size in (LETTER_MM, LETTER_MM[::-1]), f"{name} page {page + 1} is {size}"
            if "halves" not in name:  # a half shows words cut at its glue edge on purpose
                check_page(data, page, size)


@pytest.mark.parametrize("sheet", [geo.card_sheet(LETTER),
                                   geo.impose(LETTER, (90.0, 124.0), bleed=0, gutter=6, margin=7, safe=5)])
def test_on_letter_every_cut_has_its_marks_10_mm_from_the_edge(sheet):
    marks = geo.cut_marks(sheet)
    xs = {round(v, 3) for s in sheet.slots for v in (s.trim.x, s.trim.right)}
    ys = {round(v, 3) for s in sheet.slots for v in (s.trim.y, s.trim.top)}
    assert sheet.count >= 4
    assert {round(a[0], 3) for a, b in marks if a[0] == b[0]} == xs  # every vertical cut marked
    assert {round(a[1], 3) for a, b in marks if a[1] == b[1]} == ys  # every horizontal cut marked
    for a, b in marks:
        for x, y in (a, b):
            assert geo.HOME_EDGE - 1e-6 <= x <= LETTER[0] - geo.HOME_EDGE + 1e-6
            assert geo.HOME_EDGE - 1e-6 <= y <= LETTER[1] - geo.HOME_EDGE + 1e-6


def test_print_paper_letter_from_the_command_and_from_config(tmp_path, monkeypatch):
    from play import DEFAULT_CONFIG

    from bank.cli.main import main

    assert main(["--config", str(DEFAULT_CONFIG), "--db", str(tmp_path / "none.db"), "print", "--kind", "boards",
                 "--paper", "letter", "--out", str(tmp_path / "a")]) == 0
    written = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert written == ["bonus-dice-letter-fr.pdf", "rules-summary-letter-fr.pdf", "team-boards-letter-fr.pdf"]
    assert set(page_sizes_mm((tmp_path / "a" / written[0]).read_bytes())) == {LETTER_MM}
    text = DEFAULT_CONFIG.read_text(encoding="utf-8")
    assert '[print]\n' in text and 'paper = "a4"' in text  # documented where a facilitator looks
    letter = tmp_path / "letter.toml"
    letter.write_text(text.replace('paper = "a4"', 'paper = "letter"'), encoding="utf-8")
    assert main(["--config", str(letter), "--db", str(tmp_path / "none.db"), "print", "--kind", "sheets",
                 "--out", str(tmp_path / "b")]) == 0
    names = sorted(p.name for p in (tmp_path / "b").iterdir())
    assert "event-sheet-letter-fr.pdf" in names and "score-track-letter-halves-fr.pdf" in names
    assert set(page_sizes_mm((tmp_path / "b" / "event-sheet-letter-fr.pdf").read_bytes())) == {LETTER_MM}
    assert main(["--config", str(DEFAULT_CONFIG), "--db", str(tmp_path / "none.db"), "print", "--kind", "cards",
                 "--paper", "a3", "--out", str(tmp_path / "c")]) == 2  # a3 is the Trias map's only


# --- role-card QR codes: a 1.5 px blur at 100 dpi --------------------------------------------------

def _raster(data: bytes, tmp_path, page: int, dpi: int):
    from needs import require
    from PIL import Image

    require("pdftoppm")
    pdf = tmp_path / "cards.pdf"
    pdf.write_bytes(data)
    stem = tmp_path / f"p{page}-{dpi}"
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", "-f", str(page), "-l", str(page), "-singlefile", str(pdf),
                    str(stem)], check=True)
    return Image.open(f"{stem}.png").convert("L")


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_role_card_code_decodes_after_a_blur_of_1_5_px_at_100_dpi(config, tmp_path, paper):
    """Each back sheet rasterised at 100 dpi, blurred 1.5 px, and each card (its bleed box) read by zbarimg."""
    from needs import require
    from PIL import ImageFilter

    require("pdftoppm", "zbarimg")
    pdf = render_cards(config, "en", paper=paper)
    sheet = geo.card_sheet(geo.paper_size(paper))
    backs = geo.back_slots(sheet)
    cards, found = card_ids(config), []
    per_team = -(-len(cards) // sheet.count)
    px = 100 / 25.4
    for t, team in enumerate(config.teams):
        for k in range(per_team):
            chunk = cards[k * sheet.count:(k + 1) * sheet.count]
            blurred = _raster(pdf, tmp_path, 2 * (t * per_team + k) + 2, 100).filter(ImageFilter.GaussianBlur(1.5))
            for card, slot in zip(chunk, backs):
                b = slot.bleed
                blurred.crop((int(b.x * px), int(blurred.height - b.top * px), int(b.right * px) + 1,
                              int(blurred.height - b.y * px) + 1)).save(tmp_path / "card.png")
                out = subprocess.run(["zbarimg", "--quiet", "--raw", str(tmp_path / "card.png")], capture_output=True,
                                     text=True, check=False).stdout.split()
                assert [code.lower() for code in out] == [payload(team, card)], f"{team} {card}: {out}"
                found.append(card)
    assert len(found) == len(cards) * len(config.teams)


def test_role_card_codes_keep_a_white_quiet_zone_of_4_modules(config, tmp_path):
    from printables.cards import qr_payload
    from printables.drawing import qr_runs

    pdf = render_cards(config, "en")
    sheet = geo.card_sheet()
    backs = geo.back_slots(sheet)
    image = _raster(pdf, tmp_path, 2, 300)
    px = 300 / 25.4
    for card, slot in zip(card_ids(config), backs):
        x, y, size = qr_place(slot)
        modules = qr_runs(qr_payload("blue", card))[1]
        assert size / modules >= 1.05  # mm per module: what survived the blur above
        quiet = 4 * size / modules
        ring = Box(x - quiet, y - quiet, size + 2 * quiet, size + 2 * quiet)
        for edge in range(int(ring.w * px) + 1):  # every pixel of the quiet zone's outer edge and of its inner one
            for bx, by in ((ring.x + edge / px, ring.y + 0.2), (ring.x + edge / px, ring.top - 0.2),
                           (ring.x + 0.2, ring.y + edge / px), (ring.right - 0.2, ring.y + edge / px),
                           (x - 0.3, y - quiet + edge / px * (size + 2 * quiet) / ring.w)):
                value = image.getpixel((int(bx * px), int(image.height - by * px)))
                assert value > 240, f"{card}: not white at ({bx:.1f}, {by:.1f}) mm"


# --- the bank's summary: rules the app enforces --------------------------------------------------

def test_bank_summary_says_the_rules_the_app_enforces(config):
    en = _flat(render_bank_sheets(config, "en")).split("Paper ledger")[0]
    assert "Only an exact multiple of the rate is exchanged (10 or 20 tokens, never 15)" in en  # R32, economy.exchange
    assert "equal givers share the better rank (1, 1, 3)" in en  # game_events.rank
    assert "gave nothing, no rank and no reward" in en
    assert "The tokens given go to the bank's box." in en  # game_events.close: the pot returns to the reserve
    assert "With 'everyone fights', any winner, whatever their role, takes what the loser carries." in en  # fights
    fr = _flat(render_bank_sheets(config, "fr"))
    assert "jamais 15" in fr and "le meilleur rang partagé" in fr and "rien donné, ni rang ni récompense" in fr
    assert "vont à la boîte de la banque" in fr and "tout gagnant, quel que soit son rôle, prend ce que porte" in fr
    for lang in ("fr", "en"):  # still the whole summary on one page
        assert page_count(render_bank_sheets(config, lang)) == 1 + len(config.teams)


# --- the rate sign: written by hand ----------------------------------------------------------------

@pytest.mark.parametrize("lang", ["fr", "en"])
def test_rate_sign_leaves_the_rate_to_write_and_prints_the_start_small(config, lang):
    pdf = render_rate_sign(config, lang)
    drawn = sizes(pdf)
    big = [(text, size) for text, size, _ in drawn if size > 20 and re.search(r"\d", text)]
    assert not big, f"numbers in large type on a sign updated by hand: {big}"
    start = [size for text, size, _ in drawn if ("10 jetons = 1 point" if lang == "fr" else "10 tokens = 1 point") in text]
    assert start and max(start) <= 14.01
    assert any(text in ("Jetons", "Tokens") for text, _, _ in drawn)


# --- the report ------------------------------------------------------------------------------------

def _terraform(bank, t0: float = 1_700_000_000.0) -> None:
    """Blue then Green lead; Green completes every track, builds, and the game ends."""
    steps = iter(range(1, 1000))

    def do(minute, **command):
        return bank.execute({"id": f"tf-{next(steps)}", **command}, now=t0 + minute * 60)

    do(0, type="start_clock")
    for team in ("blue", "green"):
        do(1, type="inventory", team=team, counted={r: 300 for r in ("energy", "water", "dioxygen", "fauna", "flora")})
    do(3, type="award", team="blue", points=5, reason="fair play")
    do(5, type="build", team="green", building="greenhouse")
    do(8, type="raise_tracks", team="green", steps={tr: 10 for tr in ("phytosphere", "hydrosphere", "atmosphere")})
    do(9, type="set_rate", tokens=5, points=1)
    do(20, type="end_game")


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_report_says_why_the_winner_won_and_tells_buildings_terraformation_and_leaders(bank, lang):
    _terraform(bank)
    pdf = render_report(bank, lang)
    text = _flat(pdf)
    if lang == "en":
        assert re.search(r"Green: \d+ points, \d+ more than Blue\. Where the points came from: Tracks \d+, "
                         r"Buildings \d+\.", text), text[:600]
        assert "5 min · Green: built Greenhouse" in text
        assert "8 min · terraformation complete: every track at its last level" in text
        assert "3 min · Blue in the lead with 5 points" in text
        assert re.search(r"\d+ min · Green in the lead with \d+ points, ahead of Blue", text)
    else:
        assert re.search(r"Verts : \d+ points, \d+ de plus que Bleus\. D'où viennent ces points", text)
        assert "5 min · Verts : construction du bâtiment Serre" in text
        assert "terraformation complète : toutes les pistes au dernier niveau" in text
        assert re.search(r"Verts en tête avec \d+ points, devant Bleus", text)


def test_report_rate_changes_stand_apart_before_the_teams_stories(bank):
    play_sample(bank)
    pages = pages_text(render_report(bank, "en"))
    rate_page = next(i for i, lines in enumerate(pages) if "Exchange rate" in lines)
    story_page = next(i for i, lines in enumerate(pages) if "Fights (0 won, 2 lost)" in " ".join(lines))
    assert rate_page < story_page  # among the game's sections, not after the last team's story
    last = pages[-1]
    assert "Exchange rate" not in last


def test_ranks_read_1st_2nd_3rd_and_one_tile_is_singular(config):
    assert [ordinal("en", n) for n in (1, 2, 3, 4, 11, 12, 21, 22)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "21st", "22nd"]
    assert [ordinal("fr", n) for n in (1, 2, 3)] == ["1re", "2e", "3e"]
    assert "2nd 3rd 4th" in _flat(render_event_sheet(config, "en")) and "2th" not in _flat(render_event_sheet(config, "en"))
    for seed in range(40):  # a set-up whose legend counts a single tile (the pole)
        text = _flat(render_setup(4, seed, "fr"))
        assert not re.search(r"\b1 tuiles\b", text)
        assert not re.search(r"\b1 tiles\b", _flat(render_setup(4, seed, "en")))
        if re.search(r"\b1 tuile\b", text):
            break
    else:
        pytest.fail("no set-up shows a single tile of a kind")


# --- the dice net: cut solid, fold dashed ----------------------------------------------------------

def test_dice_net_folds_are_the_shared_edges_and_cuts_the_outline():
    cuts, folds = net_lines(0.0, 100.0)
    assert len(folds) == 5 + 7  # five edges between faces, one per glue tab
    points = {}
    for a, b in cuts:
        for p in (a, b):
            points[(round(p[0], 3), round(p[1], 3))] = points.get((round(p[0], 3), round(p[1], 3)), 0) + 1
    assert set(points.values()) == {2}  # the cuts close round the net: one outline
    faces = [Box(col * FACE, 100.0 - (row + 1) * FACE, FACE, FACE) for col, row in NET]
    for (x1, y1), (x2, y2) in folds:  # a fold lies on a face's edge
        assert any(Box(x1, y1, x2 - x1, y2 - y1).overlaps(f.inset(-0.01)) for f in faces)


@pytest.mark.parametrize("lang, cut, fold", [("fr", "trait plein : couper", "pointillés : plier"),
                                             ("en", "solid line: cut", "dashed line: fold")])
def test_dice_page_has_a_legend_and_dashed_folds(config, lang, cut, fold):
    pdf = render_dice(config, lang)
    first = pages_text(pdf)[0]
    assert cut.replace(" :", "\u00a0:") in first or cut in first
    assert fold.replace(" :", "\u00a0:") in first or fold in first
    stream = pypdf.PdfReader(io.BytesIO(pdf)).pages[0].get_contents().get_data().decode("latin-1")
    assert re.search(r"\[[\d. ]+\] 0 d", stream)  # a dash pattern is set for the folds


# --- the score track on A4 ---------------------------------------------------------------------------

@pytest.mark.parametrize("paper, size", [("a4", (210, 297)), ("letter", LETTER_MM)])
def test_score_track_comes_as_two_halves_that_join(config, paper, size):
    pdf = render_score_track(config, "en", halves=True, paper=paper)
    assert page_sizes_mm(pdf) == [size, size]
    words = [set(lines) for lines in pages_text(pdf)]
    numbers = {str(n) for n in range(track_top(config) + 1)}
    assert numbers <= words[0] | words[1]  # every square on one half or the other
    assert any(line.startswith("1/2") for line in words[0]) and any(line.startswith("2/2") for line in words[1])


def test_the_pack_holds_the_score_track_halves(config, tmp_path):
    from printables.pack import build

    names = {p.name for p in build("sheets", tmp_path, config, "fr")}
    assert "score-track-a4-halves-fr.pdf" in names and "score-track-fr.pdf" in names
