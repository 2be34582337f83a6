"""The engine's refusals in the terminal, in the game's language: the sentence the Trias pages show.

A Trias page says a refusal with the sentence of its code ("error.<code>" in templates/trias/_head.html,
with its rule number: "These two places do not touch (T12)."), translated by the catalogues. The
terminal reads those same entries from the template, so the two never say a refusal differently and a
new page sentence reaches the terminal too. A code the pages have no sentence for (a storage fault, a
seat's bad name) keeps the engine's own English sentence, as on the pages.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

from bank.web.i18n import translate

PAGE_STRINGS = Path(__file__).resolve().parents[2] / "templates" / "trias" / "_head.html"
# "error.not_adjacent": _("These two places do not touch (T12)."), as the page's JSON block writes them.
_ENTRY = re.compile(r'"error\.(\w+)": _\(("(?:[^"\\]|\\.)*")\)')


@lru_cache(maxsize=1)
def page_sentences() -> dict:
    """code -> the English sentence (the catalogues' msgid) a Trias page shows for that refusal."""
    text = PAGE_STRINGS.read_text(encoding="utf-8")
    return {code: ast.literal_eval(quoted) for code, quoted in _ENTRY.findall(text)}


def refusal_text(lang: str, code: str, message: str) -> str:
    """The refusal as the pages say it in `lang`; the engine's `message` for a code they do not word."""
    sentence = page_sentences().get(code)
    return translate(lang, sentence) if sentence else message
