"""The Trias rules pages (docs/rules/) against the code: every rule T1... is cited by the
engine (trias/) and named by a Trias test, every number cited exists, and the worked
example the tests reproduce reads the same on the pages."""

import re
from pathlib import Path

from trias_example_kit import EXAMPLE_3

from trias.scoring import mass_points

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"en": ROOT / "docs" / "rules" / "trias.md", "fr": ROOT / "docs" / "rules" / "trias-fr.md"}
CITATION = re.compile(r"\bT(\d+)(?:-T?(\d+))?\b")  # T12, T9-T15


def cited_in_code(paths) -> dict:
    """{rule number: first file citing it} for rules cited as T12 or T9-T15."""
    numbers = {}
    for path in paths:
        for a, b in CITATION.findall(path.read_text(encoding="utf-8")):
            for n in range(int(a), int(b or a) + 1):
                numbers.setdefault(n, path.relative_to(ROOT).as_posix())
    return numbers


def named_by_tests(paths) -> set:
    """Rules named in test function names: test_t10_..., test_t16_t20_..."""
    numbers = set()
    for path in paths:
        for name in re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.M):
            numbers.update(int(n) for n in re.findall(r"_t(\d+)(?=_|$)", name))
    return numbers


def rules(page: Path) -> list:
    """The rule numbers a page lists, as '- T12.' items, in page order."""
    return [int(n) for n in re.findall(r"^- T(\d+)\. ", page.read_text(encoding="utf-8"), re.M)]


TESTS = sorted((ROOT / "tests").rglob("test_trias_*.py"))
ENGINE = sorted((ROOT / "trias").rglob("*.py"))


def test_both_pages_list_every_trias_rule_once_with_the_same_numbers():
    english, french = rules(PAGES["en"]), rules(PAGES["fr"])
    assert english == list(range(1, len(english) + 1)) and len(english) >= 21, "rules missing, repeated or out of order"
    assert french == english, "the French page must keep the English page's numbering"


def test_every_trias_rule_is_cited_in_code_and_tests():
    listed = set(rules(PAGES["en"]))
    assert sorted(listed - named_by_tests(TESTS)) == [], "rules no Trias test names"
    assert sorted(listed - set(cited_in_code(ENGINE))) == [], "rules the Trias engine does not cite"


def test_every_trias_rule_cited_anywhere_exists_in_the_pages():
    """A mistyped number or a rule dropped from the pages shows up here, with the file citing it."""
    listed = set(rules(PAGES["en"]))
    paths = ENGINE + TESTS + [ROOT / "trias" / "README.md"] + sorted((ROOT / "static" / "js").rglob("*.js"))
    paths += sorted(p for folder in ("bank", "printables", "bench") for p in (ROOT / folder).rglob("*.py"))
    paths += sorted((ROOT / "templates").rglob("*.html"))  # the table companion's pages and print pack cite T too
    unknown = {n: where for n, where in cited_in_code(paths).items() if n not in listed}
    unknown.update({n: "a test name" for n in named_by_tests(TESTS) if n not in listed})
    assert unknown == {}, "rule numbers cited but absent from docs/rules/trias.md"


def example_3(lang: str) -> dict:
    """The T20 table of a page: {land mass: (tiles, [points per player])}, plus its total row."""
    text = PAGES[lang].read_text(encoding="utf-8")
    body = re.search(r"^- T20\. .*?(?=^- T21\. |^## )", text, re.M | re.S).group(0)
    rows = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"([A-H]) \((\d+)\)", cells[0])
        if match:
            rows[match[1]] = (int(match[2]), [0 if c == "-" else int(c) for c in cells[1:]])
        elif cells[0] == "total":
            rows["total"] = [int(c) for c in cells[1:]]
    return rows


def test_t20_example_3_on_both_pages_is_the_one_the_engine_reproduces():
    for lang in PAGES:
        page = example_3(lang)
        assert page.pop("total") == [19, 15, 15, 8], lang
        assert {name: (size, points) for name, (size, _, points) in EXAMPLE_3.items()} == page, lang
        for name, (size, herds, points) in EXAMPLE_3.items():
            assert mass_points(size, list(herds)) == page[name][1], f"{lang} {name}"
