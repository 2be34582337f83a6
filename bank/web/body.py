"""Reading a request's JSON body safely: size, syntax, depth and numbers, each with a clear refusal.

Werkzeug's get_json lets a deeply nested body raise RecursionError (a 500),
takes NaN/Infinity and duplicate keys (the last wins), and trusts Content-Length: a chunked body without one
skips a length check. Every route that reads JSON goes through read_object().
"""

from __future__ import annotations

import json
import math
import re

from flask import request

MAX_DEPTH = 8  # a command is an object of tables of numbers: 3 levels deep at most
# JSON may write "\ud800" alone, which is no character at all: such text cannot be stored, logged
# or sent back as UTF-8, and failed deep inside (a 500 from the log-in lock-out).
_SURROGATE = re.compile("[\ud800-\udfff]")


# The only way JSON text gives a lone surrogate is an escape \uD800-\uDFFF: UTF-8 cannot encode one (decode()
# refuses it). Text without such an escape, and with no more opening brackets than MAX_DEPTH (each level of
# nesting needs one), cannot fail either check of _shape: a command's body is read without that walk.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class BodyError(Exception):
    """A body the API cannot read: an HTTP status, a code and a sentence."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large a number")
    return value


class _DuplicateKey(ValueError):
    """An object naming the same key twice: JSON would silently keep the last one."""


def _unique_keys(pairs: list) -> dict:
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


def _shape(value, limit: int) -> tuple[int, bool]:
    """How deep lists and objects nest (stopping as soon as `limit` is passed), and whether any key or
    string holds a lone surrogate: one walk of the body for both, as every command pays for it."""
    deepest, broken, todo = 0, False, [(value, 1)]
    while todo:
        node, level = todo.pop()
        if isinstance(node, str):
            broken = broken or bool(_SURROGATE.search(node))
        elif isinstance(node, (list, dict)):
            deepest = max(deepest, level)
            if deepest > limit:
                return deepest, broken
            if isinstance(node, dict):
                todo.extend((key, level) for key in node)
                todo.extend((child, level + 1) for child in node.values())
            else:
                todo.extend((child, level + 1) for child in node)
    return deepest, broken


def parse(raw: bytes, what: str) -> dict:
    """A JSON object from bytes, or BodyError saying what is wrong and what to send."""
    if not raw.strip():
        raise BodyError(400, "empty_body", f"the {what} is empty; send a JSON object with a 'type'")
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite,
                           object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        # {"type": "award", "type": "harvest"} would be booked as whatever came last: a proxy, a
        # log and the bank could each read a different command. Refuse rather than guess.
        raise BodyError(400, "duplicate_key", f"the {what} gives {str(exc.args[0])[:30]!r} twice; "
                        "send each field once") from None
    except RecursionError:
        raise BodyError(400, "too_deep", f"the {what} nests lists or objects too deeply; send a flat JSON object") from None
    except UnicodeDecodeError:
        raise BodyError(400, "not_utf8", f"the {what} is not UTF-8 text; send JSON encoded as UTF-8") from None
    except ValueError as exc:
        raise BodyError(400, "not_json", f"the {what} is not valid JSON ({str(exc)[:80]}); "
                        "send a JSON object with a 'type'") from None
    if not isinstance(value, dict):
        raise BodyError(400, "not_json", f"the {what} must be a JSON object like {{\"type\": ...}}, not a {type(value).__name__}")
    if raw.count(b"{") + raw.count(b"[") <= MAX_DEPTH and not _SURROGATE_ESCAPE.search(raw):
        return value  # too shallow to nest too deep, and no escape that could be a lone surrogate
    depth, broken = _shape(value, MAX_DEPTH)
    if depth > MAX_DEPTH:
        raise BodyError(400, "too_deep", f"the {what} nests lists or objects more than {MAX_DEPTH} levels deep; "
                        "send a flat JSON object")
    if broken:
        raise BodyError(400, "bad_text", f"the {what} holds text that is not a character (a lone \\ud800-\\udfff "
                        "escape); send the text again as plain UTF-8")
    return value


def read_object(max_bytes: int, what: str = "command") -> dict:
    """The request's JSON object, read at most max_bytes + 1 bytes so a chunked body is limited too."""
    if (request.content_length or 0) > max_bytes:
        raise BodyError(413, "too_large", f"the {what} is larger than {max_bytes} bytes; a command is a few hundred bytes")
    raw = request.stream.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise BodyError(413, "too_large", f"the {what} is larger than {max_bytes} bytes; a command is a few hundred bytes")
    return parse(raw, what)
