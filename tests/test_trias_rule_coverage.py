"""Every rule of TRIAS.md is cited by the engine (trias/) and named by a Trias test."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT.parent / "shared" / "TRIAS.md"


def cited_in_code(paths) -> set:
    """Rules cited as T12 or T9-T15 anywhere in the files."""
    numbers = set()
    for path in paths:
        for a, b in re.findall(r"\bT(\d+)(?:-T?(\d+))?", path.read_text(encoding="utf-8")):
            numbers.update(range(int(a), int(b or a) + 1))
    return numbers


def named_by_tests(paths) -> set:
    """Rules named in test function names: test_t10_..., test_t16_t20_..."""
    numbers = set()
    for path in paths:
        for name in re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.M):
            numbers.update(int(n) for n in re.findall(r"_t(\d+)(?=_|$)", name))
    return numbers


@pytest.mark.skipif(not RULES.exists(), reason="../shared/TRIAS.md is not beside the repository")
def test_every_trias_rule_is_cited_in_code_and_tests():
    rules = {int(n) for n in re.findall(r"^- T(\d+)\.", RULES.read_text(encoding="utf-8"), re.M)}
    assert rules, "TRIAS.md lists no rules"
    tests = named_by_tests(sorted((ROOT / "tests").glob("test_trias_*.py")))
    engine = cited_in_code(sorted((ROOT / "trias").rglob("*.py")))
    assert sorted(rules - tests) == [], "rules no Trias test names"
    assert sorted(rules - engine) == [], "rules the Trias engine does not cite"
