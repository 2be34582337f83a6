"""bank/web/push/delta.py: the patch of two JSON pictures rebuilds the new one exactly.

static/js/delta.js must give exactly the Python result: tests/web/push/test_browser_delta.py runs
these same random cases through it in Chromium.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bank.web.push.delta import PatchError, apply, diff, same, size

# JSON as the bank sends it: no NaN or infinities, keys are strings.
scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(max_size=8)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(st.text(max_size=4), inner, max_size=5), max_leaves=25)


def related(draw_from):
    """A picture and a changed copy of it: pages mostly see small edits, not unrelated values."""
    @st.composite
    def pair(draw):
        old = draw(draw_from)
        return old, draw(_edited(old))
    return pair()


@st.composite
def _edited(draw, value):
    """`value` with a few random edits: keys added and removed, lists grown or cut, leaves changed."""
    if isinstance(value, dict):
        out = {k: draw(_edited(v)) if draw(st.booleans()) else v for k, v in value.items()
               if draw(st.integers(0, 5))}  # now and then a key goes
        if draw(st.booleans()):
            out[draw(st.text(max_size=3))] = draw(json_values)
        return out
    if isinstance(value, list):
        out = [draw(_edited(v)) if draw(st.booleans()) else v for v in value]
        choice = draw(st.integers(0, 3))
        if choice == 1:
            out += draw(st.lists(json_values, max_size=3))
        elif choice == 2 and out:
            out = out[:draw(st.integers(0, len(out) - 1))]
        return out
    return draw(json_values) if draw(st.integers(0, 3)) == 0 else value


@settings(max_examples=250, deadline=None)
@given(json_values, json_values)
def test_apply_of_the_diff_rebuilds_any_json(old, new):
    assert same(apply(old, diff(old, new)), new)


@settings(max_examples=250, deadline=None)
@given(related(json_values))
def test_apply_of_the_diff_rebuilds_an_edited_picture_and_leaves_the_old_one_alone(pair):
    old, new = pair
    before = repr(old)
    assert same(apply(old, diff(old, new)), new)
    assert repr(old) == before


@settings(max_examples=150, deadline=None)
@given(related(json_values))
def test_a_patch_is_never_much_bigger_than_the_new_picture(pair):
    """Several changes are sent whole when that is smaller; one change may cost a few bytes of framing."""
    old, new = pair
    assert size(diff(old, new)) <= size([["s", [], new]]) + 16


def test_a_list_that_grew_becomes_an_append_and_a_removed_key_is_named():
    rows = [{"seq": n, "type": "harvest", "team": "blue"} for n in range(5)]
    old = {"rows": rows, "gone": 1, "stock": {"water": 5, "flora": 2, "fauna": 7, "energy": 1}}
    new = {"rows": rows + [{"seq": 5}], "stock": {"water": 6, "flora": 2, "fauna": 7, "energy": 1}}
    assert diff(old, new) == [["d", ["gone"]], ["a", ["rows"], [{"seq": 5}]], ["s", ["stock", "water"], 6]]


def test_the_same_picture_gives_an_empty_patch():
    assert diff({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]}) == []


def test_true_and_one_are_not_the_same_value():
    assert diff({"a": 1}, {"a": True}) == [["s", ["a"], True]]
    assert apply({"a": 1}, diff({"a": 1}, {"a": 1.0}))["a"].__class__ is float


PATCHES_THAT_DO_NOT_FIT = [
    [["s", ["stock", "water"], 1]],      # no "stock" in the picture
    [["d", ["missing"]]],
    [["a", ["n"], [1]]],                  # "n" is not a list
    [["s", ["rows", 5], 1]],              # past the end
    [["s", ["rows", "0"], 1]],            # a list has no key "0"
    [["x", ["n"], 1]],
    [["s", ["n"]]],
    [["d", []]],
    "not a list",
]


@pytest.mark.parametrize("patch", PATCHES_THAT_DO_NOT_FIT)
def test_a_patch_that_does_not_fit_is_refused_and_changes_nothing(patch):
    picture = {"n": 1, "rows": [1]}
    with pytest.raises(PatchError):
        apply(picture, patch)
    assert picture == {"n": 1, "rows": [1]}
