"""The team phone's script bundle leaves out the lines that are only a comment (bank/web/serving/bundles.py):
a fifth of its gzipped bytes, which every phone pays on the Wi-Fi at its first load. What it may never do is
change what the code does: each case below is a way a naive stripper would break a script."""

from __future__ import annotations

import gzip
from pathlib import Path

from bank.web.serving.bundles import without_comment_lines

ROOT = Path(__file__).resolve().parents[3]


def test_comment_lines_and_blocks_go_and_every_line_of_code_stays_as_it_was():
    script = b"""/* The page's helpers.
 * More words. */
(function () {
  // why this is so
  var a = 1; // a trailing comment stays with its code
  /** A block of its own. */
  var url = "http://example/x"; /* mid-line block */ var b = 2;
})();"""
    assert without_comment_lines(script) == b"""(function () {
  var a = 1; // a trailing comment stays with its code
  var url = "http://example/x"; /* mid-line block */ var b = 2;
})();"""


def test_a_licence_a_block_followed_by_code_and_an_unclosed_block_are_kept():
    licence = b"/*!\n * Socket.IO v4\n * Released under the MIT License.\n */\nvar io = 1;"
    assert without_comment_lines(licence) == licence
    code_after = b"/* first\n   second */ var kept = true;\nvar next = 1;"
    assert without_comment_lines(code_after) == code_after
    unclosed = b"var a = 1;\n/* never closed\nvar b = 2;"
    assert without_comment_lines(unclosed) == unclosed


def test_lines_inside_a_template_literal_or_a_continued_string_are_text_not_comments():
    literal = b"var help = `Type:\n// this line is text shown to the facilitator\n/* and so is this */`;\nvar x = 1;"
    assert without_comment_lines(literal) == literal
    continued = b'var s = "first part \\\n// still the string";\n// a comment\nvar y = 2;'
    assert without_comment_lines(continued) == b'var s = "first part \\\n// still the string";\nvar y = 2;'


def test_the_phones_scripts_keep_every_line_of_code_and_lose_a_fifth_of_their_gzipped_bytes():
    names = ["js/delta.js", "js/page.js", "js/api.js", "js/witness.js", "js/live.js", "js/clock.js", "js/board_labels.js",
             "js/board_status.js", "js/board_sections.js", "js/refusals.js", "js/board_feed.js", "js/team.js"]
    before = after = 0
    for name in names:
        original = (ROOT / "static" / name).read_bytes()
        stripped = without_comment_lines(original)
        for run in _left_out(original.split(b"\n"), stripped.split(b"\n"), name):
            assert _only_comments(b"\n".join(run)), (name, run)
        before, after = before + len(gzip.compress(original, 9)), after + len(gzip.compress(stripped, 9))
    assert after < 0.85 * before, (before, after)


def _left_out(original: list, kept: list, name: str) -> list:
    """The runs of lines left out: the kept lines must be the original's, unchanged and in order."""
    runs, run, k = [], [], 0
    for line in original:
        if k < len(kept) and line == kept[k]:
            k += 1
            if run:
                runs.append(run)
                run = []
        else:
            run.append(line)
    assert k == len(kept), f"{name}: a line was changed or moved"
    return runs + ([run] if run else [])


def _only_comments(text: bytes) -> bool:
    """Whether `text` is nothing but whitespace, // lines and /* */ blocks, read from its start."""
    rest = text.strip()
    while rest:
        if rest.startswith(b"//"):
            rest = rest.partition(b"\n")[2].strip()
        elif rest.startswith(b"/*") and b"*/" in rest[2:]:
            rest = rest[2:].partition(b"*/")[2].strip()
        else:
            return False
    return True
