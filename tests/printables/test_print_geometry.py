"""Print layout without a PDF: sheets, bleed, safe zone, cut marks, duplex backs, tiles."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from printables import geometry as g
from printables.geometry import A3, A4, BLEED, CARD, SAFE, Box


def test_page_sizes_are_iso_millimetres():
    assert A4 == (210, 297)
    assert A3 == (297, 420)
    assert g.landscape(A3) == (420, 297)


def test_six_cards_of_63_by_88_fit_on_a4_with_bleed():
    sheet = g.impose()
    assert (sheet.cols, sheet.rows, sheet.count) == (2, 3, 6)


def test_every_card_has_its_size_bleed_and_safe_zone():
    for slot in g.impose().slots:
        assert (slot.trim.w, slot.trim.h) == CARD
        assert slot.bleed == slot.trim.inset(-BLEED)
        assert slot.safe == slot.trim.inset(SAFE)
        assert slot.bleed.contains(slot.trim) and slot.trim.contains(slot.safe)


def test_cards_stay_on_the_page_inside_the_margin():
    sheet = g.impose()
    printable = Box(0, 0, *A4).inset(g.GRID_MARGIN)
    assert all(printable.contains(s.bleed) for s in sheet.slots)


def test_cards_never_overlap():
    slots = g.impose(gutter=2).slots
    for a, b in itertools.combinations(slots, 2):
        assert not a.bleed.overlaps(b.bleed)


def test_grid_is_centred():
    grid = g.grid_box(g.impose())
    assert grid.x == pytest.approx(A4[0] - grid.right)
    assert grid.y == pytest.approx(A4[1] - grid.top)


def test_slots_read_left_to_right_then_top_down():
    slots = g.impose().slots
    assert [(s.row, s.col) for s in slots] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    assert slots[0].trim.y > slots[2].trim.y  # row 0 is the top row
    assert slots[0].trim.x < slots[1].trim.x


def test_a_gutter_or_a_wider_margin_can_cost_a_row():
    assert g.impose(gutter=6).rows == 2
    assert g.impose(margin=10).rows == 2


def test_a_page_too_small_holds_no_card():
    assert g.impose(page=(60, 80)).count == 0
    assert g.cut_marks(g.impose(page=(60, 80))) == []


def test_fit_count():
    assert g.fit_count(100, 30, 5) == 3   # 30 + 5 + 30 + 5 + 30 = 100
    assert g.fit_count(99, 30, 5) == 2
    assert g.fit_count(10, 30, 0) == 0


def _mark_boxes(marks):
    return [Box(min(a[0], b[0]), min(a[1], b[1]), abs(a[0] - b[0]) or 1e-3, abs(a[1] - b[1]) or 1e-3)
            for a, b in marks]


def test_cut_marks_line_up_with_every_trim_line():
    sheet = g.card_sheet()
    marks = g.cut_marks(sheet)
    xs = {s.trim.x for s in sheet.slots} | {s.trim.right for s in sheet.slots}
    ys = {s.trim.y for s in sheet.slots} | {s.trim.top for s in sheet.slots}
    vertical = {a[0] for a, b in marks if a[0] == b[0]}
    horizontal = {a[1] for a, b in marks if a[1] == b[1]}
    assert vertical == xs and horizontal == ys
    assert len(marks) == 2 * len(xs) + 2 * len(ys)


def test_cut_marks_stay_off_the_art_and_on_the_page():
    sheet = g.impose()
    page = Box(0, 0, *A4)
    for mark in _mark_boxes(g.cut_marks(sheet)):
        assert page.contains(mark)
        assert not any(mark.overlaps(s.bleed) for s in sheet.slots)


def test_duplex_long_edge_backs_are_mirrored_left_right():
    sheet = g.impose()
    backs = g.back_slots(sheet)
    for front, back in zip(sheet.slots, backs):
        assert back.index == front.index
        assert back.col == sheet.cols - 1 - front.col and back.row == front.row
        assert back.trim.x == pytest.approx(A4[0] - front.trim.right)
        assert back.trim.y == front.trim.y


def test_duplex_backs_land_exactly_behind_their_fronts():
    # Turning the back page over its vertical axis maps x to page width - x.
    sheet = g.impose()
    for front, back in zip(sheet.slots, g.back_slots(sheet)):
        assert back.trim.mirrored(A4[0]) == front.trim


def test_duplex_short_edge_swaps_rows():
    sheet = g.impose()
    for front, back in zip(sheet.slots, g.back_slots(sheet, "short")):
        assert (back.col, back.row) == (front.col, sheet.rows - 1 - front.row)
        assert back.trim.flipped(A4[1]) == front.trim


def test_duplex_refuses_an_unknown_flip():
    with pytest.raises(ValueError, match="long"):
        g.back_slots(g.impose(), "diagonal")


def test_two_a4_halves_rebuild_an_a3_board():
    big = g.landscape(A3)
    left, right = g.halves(big, A4, margin=6, overlap=10)
    assert left.scale == right.scale < 1
    printable = Box(0, 0, *A4).inset(6)
    assert printable.contains(left.clip) and printable.contains(right.clip)
    # The big page's left edge lands on the left tile, its right edge on the right tile.
    assert 0 * left.scale + left.dx == pytest.approx(left.clip.x)
    assert big[0] * right.scale + right.dx == pytest.approx(right.clip.right)
    # The strip shown twice is the overlap, in the same place of the big page.
    shared_left = ((left.overlap.x - left.dx) / left.scale, (left.overlap.right - left.dx) / left.scale)
    shared_right = ((right.overlap.x - right.dx) / right.scale, (right.overlap.right - right.dx) / right.scale)
    assert shared_left == pytest.approx(shared_right)
    assert shared_left[0] < big[0] / 2 < shared_left[1]


def test_halves_keep_the_aspect_of_the_board():
    tile = g.halves()[0]
    assert tile.clip.h == pytest.approx(g.landscape(A3)[1] * tile.scale)


def test_columns_and_stack_split_a_box():
    cols = g.columns(Box(0, 0, 100, 10), 3, 5)
    assert [c.x for c in cols] == pytest.approx([0, 35, 70]) and cols[0].w == pytest.approx(30)
    top, middle, bottom = g.stack(Box(0, 0, 10, 100), [20, None, 30], gap=5)
    assert (top.top, top.h) == (100, 20)
    assert middle.h == pytest.approx(40) and bottom.y == pytest.approx(0)


def test_cut_marks_only_for_the_cards_in_use():
    sheet = g.card_sheet()
    one = g.first(sheet, 1)
    assert one.count == 1 and len(g.cut_marks(one)) == 8


@pytest.mark.parametrize("sheet", [g.card_sheet(), g.impose(A4, (90.0, 130.0), bleed=0, gutter=6, margin=7, safe=5)],
                         ids=["role cards", "join cards"])
def test_cut_marks_stay_10_mm_from_the_sheet_edge_for_home_printers(sheet):
    marks = g.cut_marks(sheet)
    assert marks
    for (x1, y1), (x2, y2) in marks:
        for x, y in ((x1, y1), (x2, y2)):
            assert 10 - 1e-9 <= x <= A4[0] - 10 + 1e-9 and 10 - 1e-9 <= y <= A4[1] - 10 + 1e-9


def test_role_cards_share_their_cut_lines_and_keep_six_to_a_sheet():
    sheet = g.card_sheet()
    assert (sheet.cols, sheet.rows) == (2, 3)
    assert sheet.slots[0].trim.y == pytest.approx(sheet.slots[2].trim.top)  # one cut between two rows
    assert all(s.trim.w == 63 and s.trim.h == 88 for s in sheet.slots)


def test_back_cut_marks_mirror_the_front_ones_on_a_partial_sheet():
    sheet = g.card_sheet()
    front = g.first(sheet, 5)
    back = g.Sheet(sheet.page, sheet.cols, sheet.rows, tuple(g.back_slots(sheet)[:5]))

    def rounded(marks):
        return sorted(tuple((round(x, 6), round(y, 6)) for x, y in mark) for mark in marks)

    mirrored = [((A4[0] - x1, y1), (A4[0] - x2, y2)) for (x1, y1), (x2, y2) in g.cut_marks(front)]
    assert rounded(g.cut_marks(back)) == rounded(mirrored)


@settings(deadline=None)  # pure geometry: a loaded machine's slow first call is not a failure
@given(w=st.floats(20, 150), h=st.floats(20, 200), bleed=st.floats(0, 5), gutter=st.floats(0, 10),
       margin=st.floats(0, 20), landscape_page=st.booleans())
def test_any_imposition_stays_on_the_page_without_overlaps_and_duplexes(w, h, bleed, gutter, margin, landscape_page):
    page = g.landscape(A4) if landscape_page else A4
    sheet = g.impose(page, (w, h), bleed, gutter, margin)
    printable = Box(0, 0, *page).inset(margin - 1e-6)
    assert all(printable.contains(s.bleed) for s in sheet.slots)
    assert not any(a.bleed.overlaps(b.bleed) for a, b in itertools.combinations(sheet.slots, 2))
    for front, back in zip(sheet.slots, g.back_slots(sheet)):
        assert back.trim.mirrored(page[0]).x == pytest.approx(front.trim.x)
