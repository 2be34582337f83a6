"""A refusal's sentence in the game's language, for whoever calls the API.

The bank's own messages are English and name things by their ids ("blue harvester-1 ...");
the pages have always shown the sentence of the refusal's code from their strings
(templates/_error_strings.html, _strings.html), with ids turned into the game's labels
(static/js/refusals.js). A script, a curl or the paper re-entry form got only the English.
Every JSON refusal under /api/ now also carries `text`: the same sentence the pages show, in the
request's language (the session's choice, else the game's), from the same catalogue entries.
`message` stays English, for logs and for developers; `code` is still what programs test.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from bank.web.i18n import translate

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
SOURCES = ("_error_strings.html", "_strings.html", "_outbox_strings.html")
_ENTRY = re.compile(r'"error\.([a-z_0-9]+)":\s*_\("((?:[^"\\]|\\.)*)"\)')


@lru_cache(maxsize=1)
def sentences() -> dict:
    """code -> the English message id of its page sentence, read from the pages' own string tables."""
    found = {}
    for name in SOURCES:
        for code, msgid in _ENTRY.findall((TEMPLATES / name).read_text(encoding="utf-8")):
            found.setdefault(code, msgid.replace('\\"', '"'))
    return found


def _label(things, key, lang):
    thing = things.get(key) if isinstance(key, str) else None
    return (thing.label.get(lang) or thing.label["fr"]) if thing is not None else key


def readable(params: dict, config, lang: str) -> dict:
    """The refusal's parameters as the pages write them: labels for ids, amounts with their names."""
    out = dict(params)
    if isinstance(out.get("missing"), dict):
        out["missing"] = ", ".join(f"{n} {_label(config.resources, r, lang)}" for r, n in out["missing"].items() if n)
    if isinstance(out.get("card"), str):
        role = config.role_of(out["card"])
        out["card"] = f"{role.label.get(lang) or role.label['fr']} {out['card'].rpartition('-')[2]}" if role else out["card"]
    for key, things in (("team", config.teams), ("owner", config.teams), ("building", config.buildings),
                        ("animal", config.animals), ("track", config.tracks), ("resource", config.resources)):
        if key in out:
            out[key] = _label(things, out[key], lang)
    if isinstance(out.get("requires"), list):
        out["requires"] = ", ".join(_label(config.buildings, b, lang) for b in out["requires"])
    if isinstance(out.get("accepts"), list):
        out["accepts"] = ", ".join(_label(config.resources, r, lang) for r in out["accepts"])
    return out


def text(error: dict, config, lang: str) -> str:
    """The sentence a page shows for this refusal; the English message when no page has one."""
    code, params = error.get("code") or "", dict(error.get("params") or {})
    locked = re.fullmatch(r"animals_locked_until_all_tracks_reach_(\d+)", code)
    if locked:  # the unlock level is part of the code
        code, params["level"] = "animals_locked", locked.group(1)
    if code == "track_full" and params.get("room") == 1:
        code = "track_full_one"
    if code == "exchange_not_a_multiple" and params.get("lower") == params.get("upper"):
        code = "exchange_not_a_multiple_one"  # fewer tokens than one rate's worth: one amount, never "8 or 8"
    msgid = sentences().get(code)
    if msgid is None:
        return error.get("message") or code
    try:
        return translate(lang, msgid, **readable(params, config, lang)) if "%(" in msgid else translate(lang, msgid)
    except (KeyError, TypeError, ValueError):  # a parameter the sentence needs is missing: say it in English
        return error.get("message") or code


def add_text(response, config, lang: str):
    """after_request: a JSON refusal under /api/ gains `text` (nothing else changes)."""
    if response.status_code < 400 or not response.is_json or response.direct_passthrough:
        return response
    try:
        body = json.loads(response.get_data())
    except ValueError:
        return response
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or "text" in error:
        return response
    error["text"] = text(error, config, lang)
    response.set_data(json.dumps(body, ensure_ascii=False))
    return response
