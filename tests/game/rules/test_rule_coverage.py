"""The field game's rules pages (docs/rules/) against the code: every rule R1... is cited
by the engine and by a test, every number cited exists, and the pages' tables of numbers
say what config.toml says."""

import re
from pathlib import Path

import pytest

from bank.game.config import load_config

ROOT = Path(__file__).resolve().parents[3]
PAGES = {"en": ROOT / "docs" / "rules" / "field-game.md", "fr": ROOT / "docs" / "rules" / "jeu-de-terrain.md"}
CITATION = re.compile(r"\bR(\d+)(?:-R?(\d+))?\b")  # R12, R35.3, R11-R15, R18-19


def cited(paths) -> dict:
    """{rule number: first file citing it} over the files."""
    numbers = {}
    for path in paths:
        for a, b in CITATION.findall(path.read_text(encoding="utf-8")):
            for n in range(int(a), int(b or a) + 1):
                numbers.setdefault(n, path.relative_to(ROOT).as_posix())
    return numbers


def python_files(*folders) -> list:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def rules(page: Path) -> list:
    """The rule numbers a page lists, as '- R12.' items, in page order."""
    return [int(n) for n in re.findall(r"^- R(\d+)\. ", page.read_text(encoding="utf-8"), re.M)]


def test_both_pages_list_every_rule_once_with_the_same_numbers():
    english, french = rules(PAGES["en"]), rules(PAGES["fr"])
    assert english == list(range(1, len(english) + 1)) and len(english) >= 35, "rules missing, repeated or out of order"
    assert french == english, "the French page must keep the English page's numbering"


def test_every_rule_is_cited_by_the_engine_and_by_a_test():
    listed = set(rules(PAGES["en"]))
    tests = [p for p in python_files("tests") if p.name != Path(__file__).name]  # citing them here proves nothing
    assert sorted(listed - set(cited(tests))) == [], "rules no test cites"
    assert sorted(listed - set(cited(python_files("bank")))) == [], "rules the engine (bank/) does not cite"


def test_every_rule_cited_anywhere_exists_in_the_pages():
    """A mistyped number or a rule dropped from the pages shows up here, with the file citing it."""
    paths = python_files("bank", "printables", "tests", "bench") + sorted((ROOT / "static" / "js").glob("*.js"))
    paths += sorted((ROOT / "templates").glob("*.html")) + sorted((ROOT / "docs").glob("*.md"))
    paths += [ROOT / "config.toml", ROOT / "README.md"]
    listed = set(rules(PAGES["en"]))
    unknown = {n: where for n, where in cited(paths).items() if n not in listed}
    assert unknown == {}, "rule numbers cited but absent from docs/rules/field-game.md"


# Words of the pages' tables, per language, for the resources and dice of config.toml.
WORDS = {"en": {"die": "dice", "dice": "dice", "jokers": "joker"},
         "fr": {"dé": "dice", "dés": "dice", "jokers": "joker", "eau": "water", "flore": "flora",
                "dioxygène": "dioxygen", "faune": "fauna", "énergie": "energy", "joker": "joker"}}


def amounts(cell: str, lang: str) -> dict:
    """'5 energy, 5 water' (or '2 dés') -> {'energy': 5, 'water': 5}."""
    result = {}
    for n, word in re.findall(r"(\d+) (\w+)", cell):
        result[WORDS[lang].get(word, word)] = int(n)
    return result


def table(lang: str, number: int) -> list:
    """The rows (lists of cells) of the table inside rule `number`, header first."""
    text = PAGES[lang].read_text(encoding="utf-8")
    body = re.search(rf"^- R{number}\. .*?(?=^- R\d+\. |^## )", text, re.M | re.S).group(0)
    rows = [[c.strip().strip("*").strip() for c in line.strip().strip("|").split("|")]
            for line in body.splitlines() if line.strip().startswith("|")]
    return [r for r in rows if not set("".join(r)) <= set("- ")]


def by_label(items: dict, lang: str) -> dict:
    return {item.label[lang].lower(): item for item in items.values()}


@pytest.fixture(scope="module")
def config():
    return load_config(ROOT / "config.toml")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_r21_buildings_table_matches_the_config(config, lang):
    buildings = by_label(config.buildings, lang)
    rows = table(lang, 21)[1:]
    assert len(rows) == len(config.buildings)
    for name, _needs, cost, _effect, reputation in rows:
        building = buildings[name.lower()]
        assert (amounts(cost, lang), int(reputation)) == (building.cost, building.reputation), f"{name}: page and config.toml disagree"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_r28_r30_animals_table_matches_the_config(config, lang):
    animals = by_label(config.animals, lang)
    kinds = {"common": "common", "commun": "common", "unique": "unique"}
    rows = table(lang, 30)[1:]
    assert len(rows) == len(config.animals)
    for name, kind, price in rows:
        animal = animals[name.lower()]
        assert (kinds[kind], amounts(price, lang)) == (animal.kind, animal.cost), f"{name}: page and config.toml disagree"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_r25_r27_track_icons_table_matches_the_config(config, lang):
    header, *rows = table(lang, 27)
    tracks = by_label(config.tracks, lang)
    order = [tracks[name.lower()] for name in header[1:]]
    for track in order:
        assert {int(r[0]) for r in rows} == set(track.icons), track.id
    for level, *cells in rows:
        for track, cell in zip(order, cells):
            assert amounts(cell, lang) == track.icons[int(level)], f"{track.id} level {level}"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_r18_rounds_table_matches_the_config(config, lang):
    roles = by_label(config.roles, lang)
    pairs, optional = [], False
    for first, *rest in table(lang, 18)[1:]:
        if not rest[0]:  # the line that opens the pairs of the "everyone fights" option
            optional = True
            continue
        a, b = (roles[r] for r in re.split(r" and | et ", first.lower()))
        pairs.append(((a.id, b.id), (int(rest[0]), int(rest[1])), optional))
    assert pairs == [(p.roles, p.rounds, p.everyone_fights_only) for p in config.fight_pairs], \
        "the R18 table and [[fights.pairs]] in config.toml disagree (rounds, order or option)"


def test_no_pointer_to_rules_outside_the_repository():
    """Whoever clones the project has docs/rules/, not a RULES.md kept beside it."""
    stale = re.compile(r"\.\./shared|\b(?:RULES|TRIAS)\.md")
    paths = python_files("bank", "printables", "trias", "tests", "bench")
    paths += sorted(ROOT.glob("*.md")) + sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "trias" / "README.md", ROOT / "config.toml"]
    found = [f"{p.relative_to(ROOT)}:{i}" for p in paths if p.name not in ("test_rule_coverage.py", "test_trias_rule_coverage.py")
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if stale.search(line)]
    assert found == [], "point to docs/rules/field-game.md or docs/rules/trias.md instead"
    links = set(re.findall(r"docs/rules/[\w-]+\.md", " ".join(p.read_text(encoding="utf-8") for p in paths)))
    assert links and sorted(link for link in links if not (ROOT / link).exists()) == [], "links to missing rules pages"
