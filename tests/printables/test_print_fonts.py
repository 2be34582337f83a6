"""Every team name prints as typed: emoji, accents and letters beyond French on every PDF.

Before: the print pack drew everything in ReportLab's built-in Helvetica, whose WinAnsi
encoding has no emoji and no 'Ł': "Les Verts 🌱 qui Poussent Vite" printed a black box
(a ZapfDingbats glyph) on every sheet, and the name came back from the PDF without its
emoji. A 30-letter name with no space ran past its coloured cell on the game-state sheet,
whose next cell covered it ("Mégalosaure-Anticons"). Now each character missing from
Helvetica is drawn in an embedded Noto font (printables/fonts.py), a word too wide breaks
after its hyphen, and `config check` refuses before the game a name no font can draw.
"""

from __future__ import annotations

import time
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from print_names_kit import GAME_DAY_NAMES, config_text_with_teams, config_with_teams
from printkit import all_text, drawn_strings, missing_glyphs, page_count, pages_text

from bank.cli.main import main
from bank.services.bank import Bank
from printables import pack
from printables.drawing import PT, finish, new_canvas, page, paragraph, text, wrap
from printables.fonts import fallbacks, runs, undrawable, width
from printables.geometry import Box
from printables.state_data import snapshot
from printables.state_sheet import render_state

# The documents that print the teams' names.
NAMED = ("cards", "team-boards", "bank-sheets", "shared-boards-a3", "join-cards")


def squeezed(value: str) -> str:
    """Text without its spaces and line ends: the PDF's text breaks a line where the font changes."""
    return "".join(unicodedata.normalize("NFC", value).split())


@pytest.fixture(scope="module")
def game_day_config():
    return config_with_teams(GAME_DAY_NAMES)


def test_the_print_fonts_are_installed_and_have_the_game_day_characters():
    assert [name for name, _ in fallbacks()] == ["TB-NotoSans", "TB-NotoSymbols", "TB-NotoEmoji"]
    for fr, en in GAME_DAY_NAMES:
        assert undrawable(fr) == [] and undrawable(en) == [], (fr, en)
    assert [font for font, _ in runs("Les Verts 🌱", "Helvetica-Bold")] == ["Helvetica-Bold", "TB-NotoEmoji"]
    assert runs("Bleus", "Helvetica") == [("Helvetica", "Bleus")]  # a French name embeds nothing
    assert undrawable("熊猫 Pandas") == ["熊", "猫"]
    assert undrawable("★ ✓") == ["★", "✓"]  # symbols none of the three fonts has: config check refuses them
    assert [ch for ch in NAME_ALPHABET if undrawable(ch)] == []  # what the generated names below are made of


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_name_comes_back_whole_from_every_sheet_with_no_box(game_day_config, lang):
    urls = {team: f"http://192.168.4.1:5000/t/tok{team}" for team in game_day_config.teams}
    docs = dict(pack.documents("all", game_day_config, lang, team_urls=urls, base="http://192.168.4.1:5000",
                               wifi=("Terrabank", "sol-vert-42")))
    names = [fr if lang == "fr" else en for fr, en in GAME_DAY_NAMES]
    for filename, render in docs.items():
        if lang == "en" and not filename.startswith(NAMED):
            continue  # the French run reads every document; the English one those with the names
        data = render()
        assert missing_glyphs(data) == [], filename
        if lang == "fr":  # long names wrap, never shrink under 8 pt (a card's owner fell to 5, a board's to 4)
            small = [(page + 1, text_drawn, round(size, 1)) for page in range(page_count(data))
                     for text_drawn, _, _, size, _ in drawn_strings(data, page) if size < 8 - 1e-6]
            assert small == [], (filename, small[:5])
        if filename.startswith(NAMED):
            text = squeezed(all_text(data))
            assert "…" not in text, filename  # nothing cut: a card's owner line once ended '· …'
            for team_name in names:
                assert squeezed(team_name) in text, (filename, team_name)
    emoji_pdf = docs[f"team-boards-{lang}.pdf"]()
    assert b"NotoEmoji" in emoji_pdf  # the emoji's outlines travel with the PDF, no font needed where it is printed
    assert "🌱" in all_text(emoji_pdf)  # and read back as the emoji itself (a copied name, a search)


def test_a_french_pack_with_french_names_embeds_nothing(config):
    for filename, render in pack.documents("boards", config, "fr"):
        data = render()
        assert b"FontFile2" not in data and missing_glyphs(data) == [], filename


def test_a_name_too_wide_for_its_cell_breaks_after_its_hyphen_and_is_never_cut(game_day_config, tmp_path):
    assert wrap("Mégalosaure-Anticonstitutionné", "Helvetica-Bold", 8 * PT, 25, "any") == [
        "Mégalosaure-", "Anticonstitutionné"]
    no_dash = wrap("Anticonstitutionnellement", "Helvetica-Bold", 8 * PT, 30, "any")
    assert "".join(no_dash) == "Anticonstitutionnellement" and len(no_dash) == 2
    bank = Bank.create(tmp_path / "g.db", game_day_config)
    bank.execute({"id": "c1", "type": "start_clock"})
    now = time.time()
    snap = snapshot(bank.state, game_day_config, now, bank.last_seq, now, chain_head=bank.head_at(bank.last_seq))
    bank.close()
    data = render_state(snap, game_day_config, "fr")
    lines = pages_text(data)[0]
    assert "Mégalosaure-" in lines and "Anticonstitutionné" in lines
    assert missing_glyphs(data) == []
    name_cell = [box for text, box, _, _, _ in drawn_strings(data) if text in ("Mégalosaure-", "Anticonstitutionné")]
    coloured_cell_right = 14 + 38  # state_sheet.py: the team's cell, left margin + name column
    assert name_cell and all(box[2] <= coloured_cell_right + 0.5 for box in name_cell), name_cell


def _check(tmp_path, monkeypatch, names):
    path = tmp_path / "config.toml"
    path.write_text(config_text_with_teams(names), encoding="utf-8")
    monkeypatch.setenv("TERRABANK_CONFIG", str(path))
    monkeypatch.chdir(tmp_path)
    return main(["config", "check"])


def test_config_check_accepts_emoji_names_and_refuses_a_character_no_font_draws(tmp_path, monkeypatch, capsys):
    assert _check(tmp_path, monkeypatch, GAME_DAY_NAMES) == 0
    assert "6 teams" in capsys.readouterr().out
    names = [GAME_DAY_NAMES[0], ("Les Pandas 熊猫", "The Pandas")]
    assert _check(tmp_path, monkeypatch, names) == 2
    said = capsys.readouterr().err
    assert "'teams[yellow].label.fr'" in said and "Les Pandas 熊猫" in said
    assert "U+718A" in said and "U+732B" in said  # each character named, to find it in the file
    assert "e.g. 'Les Pandas'" in said  # and what to write instead


# Letters a lead may type: French and other Latin accents, Greek, Cyrillic, dashes, symbols, emoji (with
# their joiners and variation selectors), a decomposed accent; never a script no print font draws.
NAME_ALPHABET = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -'’,.&") + list(
    "éèêëàâäîïôöùûüçœæÉÈÊÀÂÎÔÛÇŒÆłŁńśźżąęčřšžğışĂăőűßñ") + list("αβγδΩΣЖЯжяё—–·♥⚽☀") + [
    "🌱", "🥚", "🐉", "✨", "🌟", "💧", "🔥", "🦕", "❤️", "👍🏽", "👩‍🚀", "🇫🇷", "e\u0301", "1️⃣"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(NAME_ALPHABET), min_size=1, max_size=30).map("".join).filter(str.strip),
       st.sampled_from(["Helvetica", "Helvetica-Bold"]))
def test_any_typed_name_is_drawn_whole_with_a_glyph_for_every_character(value, font):
    assert undrawable(value) == []
    c, buf = new_canvas("names")
    with page(c, (210, 297)):
        text(c, value, 10, 200, 12 * PT, font)
        paragraph(c, value, Box(10, 100, 20, 40), 11 * PT, font, smallest=8 * PT)
    data = finish(c, buf)
    assert missing_glyphs(data) == []
    drawn = pages_text(data)[0]
    expected = squeezed(value)
    assert squeezed("".join(drawn)).startswith(expected)  # the line, whole and in order
    assert squeezed("".join(drawn)) == expected * 2  # and the paragraph: broken over lines, never cut
    assert width(value, font, 12) > 0


def drawn_ink(value: str, tmp_path):
    """(the PDF, its page as grey pixels) of one line of `value` in bold."""
    import subprocess

    from needs import require
    from PIL import Image

    require("pdftoppm")
    c, buf = new_canvas("ink")
    with page(c, (90, 20)):
        text(c, value, 5, 8, 14 * PT, "Helvetica-Bold")
    data = finish(c, buf)
    (tmp_path / "t.pdf").write_bytes(data)
    subprocess.run(["pdftoppm", "-r", "100", "-png", "-singlefile", str(tmp_path / "t.pdf"), str(tmp_path / "t")],
                   check=True)
    return data, Image.open(tmp_path / "t.png").convert("L")


def test_a_skin_tone_prints_as_the_bare_emoji_and_reads_back_whole(tmp_path):
    """Noto Emoji has no colour: a tone after an emoji was drawn as a hatched swatch of its own beside it
    ("👍🏽" as a thumb and a box). It is now in the PDF's text but not on the paper."""
    from PIL import ImageChops

    toned, toned_ink = drawn_ink("Les 👍🏽 de Łódź", tmp_path)
    bare, bare_ink = drawn_ink("Les 👍 de Łódź", tmp_path)
    assert ImageChops.difference(toned_ink, bare_ink).getbbox() is None  # the same ink, to the pixel
    assert squeezed(all_text(toned)) == squeezed("Les 👍🏽 de Łódź") and missing_glyphs(toned) == []
    assert width("👍🏽 x", "Helvetica", 12) == width("👍 x", "Helvetica", 12)
    assert width("🏽 x", "Helvetica", 12) > width(" x", "Helvetica", 12)  # a tone alone is the character typed


def test_a_name_copied_from_the_pdf_is_the_name_a_tone_or_a_soft_hyphen_inside_it(tmp_path):
    """What a viewer's copy gives (poppler's pdftotext): a tone drawn unseen kept its width in the PDF, the letters
    after it overlapped it and were copied on a line of their own ("Ma 👍🏽" then "Ma"); a soft hyphen (a name pasted
    from a web page) printed and copied as "-" ("Ga-la": two words, no team when typed back). Now the line, whole."""
    import subprocess

    from needs import require
    from PIL import ImageChops

    require("pdftotext")
    for name, copied in (("Les 👍🏽 de Łódź", "Les 👍🏽 de Łódź"), ("Ga\u00adla Méga\u00adlo", "Gala Mégalo")):
        data, ink = drawn_ink(name, tmp_path)
        text = subprocess.run(["pdftotext", str(tmp_path / "t.pdf"), "-"], check=True, capture_output=True,
                              text=True).stdout
        assert text.strip() == copied, (name, text)
    plain, plain_ink = drawn_ink("Gala Mégalo", tmp_path)
    assert ImageChops.difference(ink, plain_ink).getbbox() is None  # on the paper: no hyphen


def test_a_keycap_prints_as_its_digit_never_as_a_frame_over_the_next_letters(tmp_path):
    """ReportLab sets no text: the keycap of "1️⃣" (an enclosing mark) was drawn as a frame of its own after
    the 1, half hiding it, and over the next letter ("Équipe 1️⃣" and "Équipe 2️⃣" both printed "Équipe ▯",
    "#️⃣ Dièses" a box over the D). The digit now prints bare, as re-entry reads it; the PDF's text keeps it."""
    from PIL import ImageChops

    keycaps, keycaps_ink = drawn_ink("Équipe 1️⃣ · #️⃣ Dièses", tmp_path)
    bare, bare_ink = drawn_ink("Équipe 1 · # Dièses", tmp_path)
    assert ImageChops.difference(keycaps_ink, bare_ink).getbbox() is None  # the same ink, to the pixel
    assert squeezed(all_text(keycaps)) == squeezed("Équipe 1️⃣ · #️⃣ Dièses") and missing_glyphs(keycaps) == []
    assert width("Équipe 1️⃣ x", "Helvetica", 12) == width("Équipe 1 x", "Helvetica", 12)
