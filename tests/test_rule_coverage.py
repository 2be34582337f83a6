"""Every rule of RULES.md is cited by the engine and by at least one test."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT.parent / "shared" / "RULES.md"


def cited(folder: Path) -> set:
    numbers = set()
    for path in folder.rglob("*.py"):
        for a, b in re.findall(r"R(\d+)(?:-R?(\d+))?", path.read_text(encoding="utf-8")):
            numbers.update(range(int(a), int(b or a) + 1))
    return numbers


@pytest.mark.skipif(not RULES.exists(), reason="../shared/RULES.md is not beside the repository")
def test_every_rule_is_cited_in_code_and_tests():
    rules = {int(n) for n in re.findall(r"^- R(\d+)\.", RULES.read_text(encoding="utf-8"), re.M)}
    assert rules, "RULES.md lists no rules"
    assert sorted(rules - cited(ROOT / "tests")) == [], "rules no test cites"
    assert sorted(rules - cited(ROOT / "bank")) == [], "rules the engine does not cite"
