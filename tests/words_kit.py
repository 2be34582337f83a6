"""Sentences that must read right whatever a team is called and whatever a count is.

Team names are often plural adjectives ("Verts", "Les Rouges") and facilitators type their own, so
no sentence may put a name before a conjugated verb ("Verts gagne"): the tests render the pages'
strings, the replay's captions and the report's lines with generated names and look at what follows
each name. Counts must take the form their language gives them: no "les 1 continents", "1 jetons".
"""

from __future__ import annotations

import json
import re

from flask import render_template, session
from hypothesis import strategies as st

COUNTS = (0, 1, 2, 5)

# What may follow a team's name in a sentence: punctuation, the end, or a word that is not a verb.
AFTER_NAME = {
    "fr": re.compile(r"^(\s*[:,·.;()\u2014\u2013\u2192\u2194]|\s*$|\s+(en tête|contre|devant|avec|et|\d))"),
    "en": re.compile(r"^(\s*[:,·.;()\u2014\u2013\u2192\u2194]|\s*$|\s+(in the lead|against|ahead|with|and|\d))"),
}
# The tell-tale of a count whose noun did not follow it (French and English alike).
WRONG_COUNT = re.compile(r"\bles 1 |\b1 (continents|jetons|tokens|cartes|cards|troupeaux|herds|équipes|teams|"
                         r"écritures|entries|branchi|carte nel|continenti)\b|\b[02-9] (card|token|herd|team|entry) |"
                         r"\b0 (cartes|jetons|troupeaux|équipes|écritures)\b")

# Names as facilitators type them: plural-looking, singular, long, accented, with spaces.
team_names = st.one_of(
    st.sampled_from(["Verts", "Rouges", "Les Bleus", "Écureuils Agiles", "Équipe Soleil", "Ours",
                     "Greens", "Reds", "The Foxes", "Team Sun", "Chouette", "Hérissons du Mont-Aigoual"]),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzéèêàçôÉÈ", min_size=3, max_size=18).map(str.capitalize),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzéèàç", min_size=3, max_size=14).map(lambda s: s.capitalize() + "s"),
)


# Verbs the pages and sheets said after a team's name, even a few words on ("Bleus avec la serre récolte").
VERBS = re.compile(r"\b(gagne|construit|achète|prend|passe|change|échange|récolte|perd|mène|finit|"
                   r"wins|builds|buys|takes|exchanges|harvests|loses|leads)\b")


def verb_after(text: str, team: str, lang: str) -> str | None:
    """The words following `team` in `text` when they are not punctuation or a preposition, or when its
    clause (up to the next punctuation) holds a conjugated verb: a verb whose subject is the name, then."""
    for found in re.finditer(r"(?<!\w)" + re.escape(team) + r"(?!\w)", text):
        rest = text[found.end():]
        clause = re.split(r"[:,·.;()\u2014\u2013\u2192\u2194]", rest, maxsplit=1)[0]
        if not AFTER_NAME[lang].match(rest) or VERBS.search(clause):
            return rest[:40]
    return None


def in_words(sentences: list, *names: str) -> bool:
    """Whether a name is also a word of the sentences themselves (a team called "Combat"): skipped."""
    said = " ".join(sentences).casefold()
    return any(re.search(r"(?<!\w)" + re.escape(n.casefold()) + r"(?!\w)", said) for n in names)


def one(lang: str, n) -> bool:
    """page.js's TB.one: French says "0 jeton", "1 jeton"; English and Italian "1 token", "0 tokens"."""
    return abs(n) < 2 if lang == "fr" else abs(n) == 1


def js_t(strings: dict, lang: str, key: str, **params) -> str:
    """What page.js's TB.t makes of a key: a plural entry's form by params n, then %(name)s filled."""
    text = strings.get(key, key)
    if isinstance(text, list):
        text = text[0 if one(lang, params.get("n", 2)) else 1]
    return re.sub(r"%\((\w+)\)s", lambda m: str(params.get(m.group(1), m.group(0))), text)


def template_strings(app, template: str, lang: str, path: str = "/") -> dict:
    """The data-strings JSON a template gives its scripts, rendered in `lang` as a page at `path` would."""
    import json

    with app.test_request_context(path):
        session["lang"] = lang
        html = render_template(template)
    merged = {}
    for block in re.findall(r'<script type="application/json" data-strings>(.*?)</script>', html, re.S):
        merged.update(json.loads(block))
    return merged


def strings(html: str) -> dict:
    """The JSON string blocks a page gives its scripts, merged as page.js merges them."""
    merged = {}
    for block in re.findall(r'<script type="application/json" data-strings>(.*?)</script>', html, re.S):
        merged.update(json.loads(block))
    return merged
