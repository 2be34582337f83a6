"""The end-of-game report's moments and its "why" sentence, and the rules summary's worked example of the
team bonus (R12), read right whatever a team is called.

Before: "5 min · Verts construit : Serre", "Verts achète l'animal Mouton", "Rouges prend la tête avec
5 points", "Verts gagne avec 12 points" (and "Greens builds", "Greens wins with"): a singular verb after
names that are often plural; the rules summary said "Bleus avec centre de purification récolte Eau".
Now a name is followed by a colon, a preposition or "en tête", "in the lead".
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st
from words_kit import in_words, team_names, verb_after

from printables.report import why_sentence
from printables.report_moments import moment_line
from printables.rule_lines import W as RULE_WORDS, _example


def named(config, first: str, second: str):
    """The test config with its first two teams renamed (the same name in every language)."""
    ids = list(config.teams)
    renamed = dict(config.teams)
    for team_id, label in zip(ids, (first, second)):
        renamed[team_id] = dataclasses.replace(config.teams[team_id], label={"fr": label, "en": label})
    return dataclasses.replace(config, teams=renamed), ids[0], ids[1]


def moments(config, a: str, b: str) -> list:
    """One event of each kind that names a team."""
    building, animal = next(iter(config.buildings)), next(iter(config.animals))
    resource = next(iter(config.resources))
    return [{"type": "building_built", "team": a, "building": building, "minute": 5},
            {"type": "animal_bought", "team": a, "animal": animal, "minute": 6},
            {"type": "new_leader", "team": a, "points": 5, "minute": 7},
            {"type": "new_leader", "team": b, "was": a, "points": 1, "minute": 8},
            {"type": "exchange", "team": a, "tokens": {resource: 10}, "points": 2, "minute": 9},
            {"type": "award", "team": b, "points": 2, "reason": "aide", "minute": 10}]


def lines_for(config, first: str, second: str, lang: str) -> list:
    """Every moment line that names a team, and the "why" sentence, with the teams so named."""
    renamed, a, b = named(config, first, second)
    lines = [moment_line(renamed, event, {}, lang) for event in moments(renamed, a, b)]
    summary = SimpleNamespace(ended={"winners": [a], "reason": "time"},
                              standings=[{"team": a, "reputation": 12}, {"team": b, "reputation": 9}],
                              teams={a: SimpleNamespace(sources={})})
    return lines + [why_sentence(renamed, summary, lang), _example(renamed, lang, RULE_WORDS[lang])]


def test_no_verb_follows_a_team_name_in_the_report(config):
    @settings(max_examples=40, deadline=None)
    @given(first=team_names, second=team_names, lang=st.sampled_from(["fr", "en"]))
    def check(first, second, lang):
        if first in second or second in first or in_words(lines_for(config, "#", "@", lang), first, second):
            return  # "Ours" inside "Oursons", a team called "Serre": what follows is not the name's
        for line in lines_for(config, first, second, lang):
            for name in (first, second):
                assert verb_after(line, name, lang) is None, line

    check()
