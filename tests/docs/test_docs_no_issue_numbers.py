"""No issue numbers in the code's comments (bank/, trias/, printables/, static/, templates/, bench/) nor the docs
(deploy/'s files included).

An issue number tells the reader nothing without the tracker, and goes stale when the code moves on;
the history is in git (`git log -S`). A comment that needs the story says it in a sentence.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("bank", "trias", "printables", "static", "templates", "bench")
KINDS = (".py", ".js", ".css", ".html")
ISSUE = re.compile(r"\bissues?\s*#?\d+", re.I)
# "#41" alone, as trackers write it (a CSS colour like #333 is not searched: .css is left out).
HASH_NUMBER = re.compile(r"(?<![\w&#/\"'])#\d{1,4}\b(?![\w-])")


def sources():
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in KINDS and "vendor" not in path.parts and path.is_file():
                yield path


def test_no_issue_number_in_the_codes_comments():
    found = []
    for path in sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ISSUE.search(line) or (path.suffix != ".css" and HASH_NUMBER.search(line)):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "say why in the code's words, not by issue number:\n" + "\n".join(found)


def test_no_issue_number_in_the_docs_a_user_reads():
    # deploy/'s files too: an operator copies them to /etc and reads their comments there.
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted(p for p in (ROOT / "deploy").rglob("*") if p.is_file())]
    found = [f"{page.relative_to(ROOT)}:{number}: {line.strip()[:100]}" for page in pages
             for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1) if ISSUE.search(line)]
    assert not found, "the docs say what is, not which issue made it:\n" + "\n".join(found)


def test_the_patterns_catch_what_they_are_for():
    assert ISSUE.search("(issue 27: a browser's page)") and ISSUE.search("Issues 15 and 24") and ISSUE.search("issue #41")
    assert not ISSUE.search("the issue at hand") and not ISSUE.search("issued 3 tokens")
    assert HASH_NUMBER.search("fixed in #41.") and HASH_NUMBER.search("(#7)")
    assert not HASH_NUMBER.search('TB.$("#clock-line")') and not HASH_NUMBER.search("&#8203;")
    assert len(list(sources())) > 100
