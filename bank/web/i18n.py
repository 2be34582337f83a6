"""French and English from standard gettext catalogues (translations/<lang>/LC_MESSAGES/messages.po).

Message ids are English. The .po files are read at start with Babel (no compile
step to forget on a Raspberry Pi); `pybabel extract -F babel.cfg` refreshes them.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from babel.messages.pofile import read_po

LANGUAGES = ("fr", "en")
FOLDER = Path(__file__).resolve().parent.parent.parent / "translations"


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict:
    """msgid -> msgstr for one language; missing or empty entries fall back to the English id."""
    path = FOLDER / lang / "LC_MESSAGES" / "messages.po"
    if not path.exists():
        return {}
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang)
    return {m.id: m.string for m in catalog if m.id and isinstance(m.id, str) and m.string}


def translate(lang: str, text: str, **params) -> str:
    """gettext with %(name)s parameters."""
    result = catalogue(lang if lang in LANGUAGES else "fr").get(text, text)
    return result % params if params else result
