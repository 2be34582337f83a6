"""docs/PERFORMANCE.md and docs/RELIABILITY.md say only what was measured and what is tested.

PERFORMANCE's table is made from bench/results/*.json by bench/record.py: a figure or a met
column typed by hand, or a result file changed without the table, fails here. RELIABILITY names
the test proving each guarantee as `tests/<file>.py::<test>`: a test renamed or moved without
its row fails here. Both pages stay readable in five minutes: under 200 lines.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PERFORMANCE = ROOT / "docs" / "PERFORMANCE.md"
RELIABILITY = ROOT / "docs" / "RELIABILITY.md"
NAMED_TEST = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
NAMED_FILE = re.compile(r"\b((?:tests|bench)/[\w/]+\.py)\b")


def record_module():
    spec = importlib.util.spec_from_file_location("bench_record", ROOT / "bench" / "record.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_performance_table_is_the_one_made_from_the_results_files():
    record = record_module()
    text = PERFORMANCE.read_text(encoding="utf-8")
    made = record.page_with_table(text, record.load())
    assert made == text, ("docs/PERFORMANCE.md's table differs from bench/results/*.json. A new figure is a row "
                          "of a results file (bench/record.py's docstring shows one), never typed in the table; "
                          "then run `.venv/bin/python bench/record.py` and commit both")


def test_every_result_row_has_a_figure_a_goal_it_can_be_met_against_and_a_command_that_exists():
    record = record_module()
    rows = record.load()
    assert len(rows) >= 10
    for row in rows:
        where = f"{row['file']}: {row.get('figure')!r}"
        assert row.get("figure") and "|" not in row["figure"], where
        assert isinstance(row["value"], (int, float)) and not isinstance(row["value"], bool), where
        if row.get("goal") is not None:
            assert row["goal"] in record.GOALS, where
            assert isinstance(row["limit"], (int, float)), where
        scripts = NAMED_FILE.findall(row["command"])
        assert scripts, f"{where}: its command names no bench/ or tests/ file"
        for script in scripts:
            assert (ROOT / script).is_file(), f"{where}: {script} does not exist (moved? update the result file)"


def test_the_met_column_follows_the_figure_and_the_goal():
    record = record_module()
    row = {"figure": "x", "value": 1.29, "unit": "x", "goal": "<=", "limit": 1.2, "command": "c"}
    assert record.met(row) == "**no**"
    assert record.met({**row, "value": 1.2}) == "yes"
    assert record.met({**row, "goal": ">=", "value": 0.38, "limit": 0.9}) == "**no**"
    assert record.met({**row, "goal": None}) == "(watched)"
    assert record.number(59700, "bytes") == "59,700 bytes" and record.number(1.711, "s") == "1.711 s"
    assert "| 1.29x | **no** |" in record.table([row])


def test_a_results_file_a_bench_records_lands_in_the_table(tmp_path):
    record = record_module()
    record.record("bench_x", [{"figure": "pages kept", "value": 200, "unit": "", "goal": "==", "limit": 200}],
                  command=".venv/bin/python bench/bench_x.py", measured="today", folder=tmp_path)
    rows = record.load(tmp_path)
    assert json.loads((tmp_path / "bench_x.json").read_text())["measured"] == "today"
    page = f"intro\n{record.BEGIN}\nold table\n{record.END}\nrest\n"
    made = record.page_with_table(page, rows)
    assert "old table" not in made and "| pages kept | = 200 | 200 | yes |" in made and made.endswith("rest\n")


def test_a_bench_recording_again_replaces_its_own_figure_and_keeps_the_others(tmp_path):
    record = record_module()
    first = [{"figure": "a", "value": 1, "unit": "", "goal": None, "limit": None},
             {"figure": "b", "value": 2, "unit": "", "goal": None, "limit": None}]
    record.record("x", first, command="bench/one.py", measured="monday", folder=tmp_path)
    record.record("x", [{**first[0], "value": 3}], command="bench/two.py", measured="tuesday", folder=tmp_path)
    rows = record.load(tmp_path)
    assert [(r["figure"], r["value"], r["command"], r["measured"]) for r in rows] == [
        ("a", 3, "bench/two.py", "tuesday"), ("b", 2, "bench/one.py", "monday")]


def reliability_rows() -> list[str]:
    text = RELIABILITY.read_text(encoding="utf-8")
    table = text.split("## Guarantees", 1)[1].split("\n## ", 1)[0]
    return [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| ---")][1:]


def test_every_guarantee_names_a_test_and_every_named_test_exists():
    rows = reliability_rows()
    assert len(rows) >= 30
    for line in rows:
        guarantee, proof = [cell.strip() for cell in line.strip("|").split("|")]
        if guarantee.startswith("**") and not proof:
            continue  # a heading row between groups
        named = NAMED_TEST.findall(proof)
        assert named, f"docs/RELIABILITY.md: {guarantee!r} names no `tests/<file>.py::<test>`"
        for path, name in named:
            file = ROOT / path
            assert file.is_file(), f"docs/RELIABILITY.md names {path}, which does not exist (moved? update the row)"
            assert re.search(rf"^(?:async )?def {name}\(", file.read_text(encoding="utf-8"), re.M), \
                f"docs/RELIABILITY.md names {path}::{name}, which is not a test there"


@pytest.mark.parametrize("page", [PERFORMANCE, RELIABILITY], ids=lambda p: p.name)
def test_the_page_is_short_and_every_file_it_names_exists(page):
    text = page.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200, f"{page.name} is {len(text.splitlines())} lines: keep it under 200"
    for path in set(NAMED_FILE.findall(text)):
        assert (ROOT / path).is_file(), f"{page.name} names {path}, which does not exist"


def slug(heading: str) -> str:
    # GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_links_to_a_section_of_either_page_find_it():
    anchors = {page.name: {slug(h) for h in re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)}
               for page in (PERFORMANCE, RELIABILITY)}
    sources = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for source in sources:
        for name, anchor in re.findall(r"(PERFORMANCE\.md|RELIABILITY\.md)#([\w\-]+)", source.read_text(encoding="utf-8")):
            assert anchor in anchors[name], f"{source.name} links to {name}#{anchor}, which has no such section"


QUOTED_SECTION = [re.compile(r'(PERFORMANCE|RELIABILITY)\.md,? "(?:#+ )?([^"]+)"'),
                  re.compile(r'"([^"]+)" in docs/(PERFORMANCE|RELIABILITY)\.md')]


def test_a_section_of_either_page_quoted_by_name_in_docs_code_or_tests_exists():
    headings = {name: {h.strip().lower() for h in re.findall(r"^#+ (.+)$", (ROOT / "docs" / f"{name}.md")
                                                              .read_text(encoding="utf-8"), re.M)}
                for name in ("PERFORMANCE", "RELIABILITY")}
    files = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    for folder in ("bank", "trias", "printables", "bench", "tests", "static", "templates"):
        files += [p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".js", ".css", ".html")]
    for file in files:
        text = file.read_text(encoding="utf-8", errors="replace")
        for pattern in QUOTED_SECTION:
            for match in pattern.finditer(text):
                name, section = match.groups() if pattern is QUOTED_SECTION[0] else match.groups()[::-1]
                assert section.lower() in headings[name], \
                    f"{file.relative_to(ROOT)} quotes docs/{name}.md's section {section!r}, which has no such heading"
