"""Shared drawing helpers: contrast, fitted text, QR encoding, token icons."""

from __future__ import annotations

from printkit import all_text
from reportlab.pdfbase.pdfmetrics import stringWidth

from printables.drawing import (INK, PT, break_anywhere, finish, fit_size, fits, ink_on, new_canvas, page,
                                paragraph, qr_runs, white_contrast)
from printables.geometry import Box
from printables.icons import DICE, amounts, describe, in_words, ordered


def test_text_colour_contrasts_with_its_background():
    assert ink_on("#f2c230") == INK        # dark text on the light yellow team
    assert ink_on("#1f6fd1") != INK        # white on blue
    assert white_contrast("#ffffff") == 1.0
    assert white_contrast("#000000") == 21.0


def test_fit_size_shrinks_only_what_is_too_wide():
    assert fit_size("ok", "Helvetica", 10, 100) == 10
    size = fit_size("a much longer line of text", "Helvetica", 10, 20, smallest=1)
    assert stringWidth("a much longer line of text", "Helvetica", size) <= 20 + 1e-6


def test_long_addresses_break_anywhere_within_the_width():
    url = "http://192.168.4.1:5000/t/abcdefghijklmnopqrstuvwxyz"
    lines = break_anywhere(url, "Helvetica", 3, 20)
    assert "".join(lines) == url and len(lines) > 1
    assert all(stringWidth(line, "Helvetica", 3) <= 20 for line in lines)


def test_paragraph_shrinks_to_fit_then_cuts_with_an_ellipsis():
    box = Box(0, 0, 30, 10)
    words = "word " * 12
    c, buf = new_canvas("t")
    with page(c, (50, 50)):
        used = paragraph(c, words, box, 12 * PT, smallest=5 * PT)
        assert used <= box.h + 1e-6
        paragraph(c, "word " * 200, box, 12 * PT, smallest=5 * PT)
    text = all_text(finish(c, buf))
    assert text.count("…") == 1
    assert fits("short", "Helvetica", 3, box)


def test_qr_runs_are_cached_and_square():
    runs, size = qr_runs("terrabank:card:blue:pirate-1")
    assert size == 29  # version 3 at level M holds this payload
    assert qr_runs("terrabank:card:blue:pirate-1")[0] is runs
    assert all(0 <= row < size and col + length <= size for row, col, length in runs)


def test_amounts_in_config_order_with_the_die_last(config):
    values = {DICE: 1, "energy": 2, "water": 3}
    assert ordered(config, values) == [("water", 3), ("energy", 2), (DICE, 1)]
    assert describe(config, values, "en") == "+3 Water, +2 Energy, +1 die"
    assert in_words(config, {"joker": 2}, "fr") == "2 Joker" and in_words(config, {}, "en") == "-"
    c, _ = new_canvas("t")
    assert amounts(c, config, values, 0, 0, 2, 3, draw=False) > 0
