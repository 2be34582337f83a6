"""The big screen's and the phones' sentences read right whatever a team is called and whatever a count is.

Before: "Verts gagne" under a fight in the activity feed, "Bleus gagne l'événement", "Rouges prend la
tête" in the replay's captions ("Greens takes the lead" in English): a singular verb after a name the
config (or a facilitator) made plural. And "1 jetons" given to an event, "1 équipes · 1 écritures" in
the admin's list of hosted games, "garde les 1 derniers" for the paper copies kept.
Now a name is followed by a colon, a preposition or nothing (noun phrases, passives: "Combat gagné par
Verts contre Rouges"), and each count takes its language's form (ngettext).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from words_kit import COUNTS, WRONG_COUNT, in_words, js_t, team_names, template_strings, verb_after

from test_fight_plurals import page_strings

LANGS = ("fr", "en")


@pytest.fixture
def screen_words(app):
    """The big screen's feed and replay strings, per language."""
    return {lang: {**template_strings(app, "_feed_strings.html", lang), **template_strings(app, "_replay_strings.html", lang)}
            for lang in LANGS}


def captions(s: dict, lang: str, team: str, other: str) -> list:
    """Every sentence of the feed and the replay that names a team, as the scripts fill them."""
    return [js_t(s, lang, "feed_won", team=team),
            js_t(s, lang, "replay_first_building", team=team, building="Serre"),
            js_t(s, lang, "replay_lead", team=team),
            js_t(s, lang, "replay_lead_from", team=team, was=other),
            js_t(s, lang, "replay_event_won", team=team, title="« Grande crue »"),
            js_t(s, lang, "replay_fight", team=team, other=other)]


def test_no_verb_follows_a_team_name_on_the_big_screen(screen_words):
    @settings(max_examples=60, deadline=None)
    @given(team=team_names, other=team_names, lang=st.sampled_from(LANGS))
    def check(team, other, lang):
        if team in other or other in team or in_words(captions(screen_words[lang], lang, "#", "@"), team, other):
            return  # "Ours" inside "Oursons", a team called "Combat": what follows is not the name's
        for sentence in captions(screen_words[lang], lang, team, other):
            assert verb_after(sentence, team, lang) is None, sentence
            assert verb_after(sentence, other, lang) is None, sentence

    check()


@pytest.mark.parametrize("lang, forms", [("fr", {0: "0 jeton", 1: "1 jeton", 2: "2 jetons", 5: "5 jetons"}),
                                         ("en", {0: "0 tokens", 1: "1 token", 2: "2 tokens", 5: "5 tokens"})])
def test_tokens_given_to_an_event_take_the_count_s_form(screen_words, lang, forms):
    assert {n: js_t(screen_words[lang], lang, "feed_tokens", n=n) for n in COUNTS} == forms


@pytest.mark.parametrize("lang", LANGS)
def test_admin_counts_read_right_at_0_1_2_5(app, lang):
    said = page_strings(app, "/admin", lang)
    for n in COUNTS:
        lines = [js_t(said, lang, "host_teams", n=n), js_t(said, lang, "host_entries", n=n),
                 js_t(said, lang, "paper.saved", folder="/srv/papier", n=n, keep=n),
                 js_t(said, lang, "paper.saved_sessions", folder="/srv/papier", keep=n)]
        for line in lines:
            assert str(n) in line, line  # the key exists and says its count
            assert not WRONG_COUNT.search(line), line
            assert "toutes les 1 " not in line and "every 1 min" not in line, line
    assert js_t(said, lang, "host_teams", n=1) == {"fr": "1 équipe", "en": "1 team"}[lang]
    assert js_t(said, lang, "host_entries", n=2) == {"fr": "2 écritures", "en": "2 entries"}[lang]


@pytest.mark.parametrize("lang, one, two", [("fr", "gagnant : Verts", "gagnants : Verts, Rouges"),
                                            ("en", "winner: Verts", "winners: Verts, Rouges")])
def test_tied_winners_are_said_in_the_plural(app, lang, one, two):
    """The big screen's end and the console's journal: "gagnant : Verts, Rouges" was said of a tie."""
    said = page_strings(app, "/display", lang)
    assert js_t(said, lang, "winner_is", teams="Verts", n=1) == one
    assert js_t(said, lang, "winner_is", teams="Verts, Rouges", n=2) == two


@pytest.mark.parametrize("lang, forms", [("fr", ["0 jeton", "1 jeton", "2 jetons"]), ("en", ["0 tokens", "1 token", "2 tokens"])])
def test_server_side_ngettext_picks_the_count_s_form(app, lang, forms):
    """A template's ngettext given its count says the form itself (no script needed)."""
    from flask import render_template_string, session

    with app.test_request_context("/"):
        session["lang"] = lang
        said = [render_template_string('{{ ngettext("%(n)s token", "%(n)s tokens", n) }}', n=n) for n in (0, 1, 2)]
    assert said == forms
