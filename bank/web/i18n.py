"""French, English and (for Trias) Italian from standard gettext catalogues
(translations/<lang>/LC_MESSAGES/messages.po).

Message ids are English. The .po files are read at start with Babel (no compile
step to forget on a Raspberry Pi); `pybabel extract -F babel.cfg` refreshes them.

Italian exists for Trias only: its catalogue holds the Trias pages'
messages and the few shared ones they show. A field-game page asked in Italian speaks
the game's language instead (French by default), so a phone left on Italian after a
Trias game never sees a bank page half in one language and half in another; and a
message the Italian catalogue lacks falls back to French, the app's default, not to the
English id (an Italian table at a French event reads French before it reads English).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

LANGUAGES = ("fr", "en", "it")      # a catalogue each
FIELD_LANGUAGES = ("fr", "en")      # the field game's pages, sheets and API speak these
TRIAS_LANGUAGES = ("fr", "en", "it")  # the Trias pages and printables speak these
DEFAULT = "fr"
FALLBACK = {"it": "fr"}             # a missing Italian message is said in French
TRIAS_BLUEPRINTS = ("trias", "trias_score")
FOLDER = Path(__file__).resolve().parent.parent.parent / "translations"


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict:
    """msgid -> msgstr for one language; missing or empty entries are left out (see translate).

    A plural entry (msgid_plural, msgstr[0], msgstr[1]) is kept under its singular msgid as the
    tuple of its forms (see translate_plural)."""
    path = FOLDER / lang / "LC_MESSAGES" / "messages.po"
    if not path.exists():
        return {}
    from babel.messages.pofile import read_po  # Babel is loaded with the first catalogue, not by every CLI start

    with path.open("rb") as f:
        catalog = read_po(f, locale=lang)
    found = {m.id: m.string for m in catalog if m.id and isinstance(m.id, str) and m.string}
    found.update({m.id[0]: tuple(m.string) for m in catalog
                  if isinstance(m.id, tuple) and m.string and all(m.string)})
    return found


def translate(lang: str, text: str, **params) -> str:
    """gettext with %(name)s parameters: the language's entry, else its fallback's (Italian: French), else the id."""
    lang = lang if lang in LANGUAGES else DEFAULT
    result = _single(catalogue(lang).get(text))
    if result is None and lang in FALLBACK:
        result = _single(catalogue(FALLBACK[lang]).get(text))
    if result is None:
        result = text
    return result % params if params else result


def _single(found):
    """A plain entry; a plural one is said through translate_plural (its count picks the form)."""
    return None if isinstance(found, tuple) else found


def plural_index(lang: str, n) -> int:
    """Which plural form a count takes: French says "0 jeton", "1 jeton"; English and Italian "0 tokens".

    The .po headers' Plural-Forms say the same (n > 1, n != 1); the pages' TB.one follows this rule."""
    n = abs(n) if isinstance(n, (int, float)) else 2
    return 0 if (n < 2 if lang == "fr" else n == 1) else 1


def plural_forms(lang: str, singular: str, plural: str) -> list:
    """[one, other] in the language (its fallback's, else the English ids): a script picks by TB.one."""
    return list(_forms(lang, singular, plural)[1])


def translate_plural(lang: str, singular: str, plural: str, n, **params) -> str:
    """ngettext with %(name)s parameters (n among them): the form the count takes in the language."""
    code, forms = _forms(lang, singular, plural)
    return forms[plural_index(code, n)] % {"n": n, **params}


def _forms(lang: str, singular: str, plural: str) -> tuple:
    """(language whose rule applies, its two forms): Italian missing falls back to French, then English."""
    lang = lang if lang in LANGUAGES else DEFAULT
    for code in (lang, FALLBACK.get(lang)):
        forms = catalogue(code).get(singular) if code else None
        if isinstance(forms, tuple) and len(forms) == 2:
            return code, forms
    return "en", (singular, plural)


def page_language(asked, default: str = DEFAULT, *, trias: bool = False) -> str:
    """The language a page speaks: the one asked if this kind of page has it, else the game's, else French."""
    offered = TRIAS_LANGUAGES if trias else FIELD_LANGUAGES
    for lang in (asked, default):
        if lang in offered:
            return lang
    return DEFAULT


def is_trias_page(blueprint) -> bool:
    """True for the Trias pages and their API (blueprints "trias" and "trias_score")."""
    return blueprint in TRIAS_BLUEPRINTS


def request_language() -> str:
    """This request's language: the session's choice, else the game's; Italian only on a Trias page.

    "The game" is the bank's field game, unless the route named another for this request
    (`speak_for`: a Trias game speaks the language it was made in)."""
    from flask import current_app, g, request, session  # the web's helper; translate() above needs no Flask

    default = g.get("game_language") or current_app.extensions["terrabank"].config.language
    return page_language(session.get("lang"), default, trias=is_trias_page(request.blueprint))


def speak_for(game_language: str | None) -> None:
    """This request is about a game made in `game_language`: its pages speak it unless the device chose
    another (every phone scanning an Italian game's seat code opened in French)."""
    from flask import g

    if game_language in LANGUAGES:
        g.game_language = game_language


def page_languages() -> tuple:
    """The languages the language switch offers on this request's page (Italian on Trias pages only)."""
    from flask import request

    return TRIAS_LANGUAGES if is_trias_page(request.blueprint) else FIELD_LANGUAGES
