"""The journal's one JSON text of a value: sorted keys, no spaces, non-ASCII kept (the rows' bytes, the
fingerprints, the chain and the snapshots are made of it, so it must never change).

Split from bank/store/journal.py when a faster way to make the same text took that file past
its 400 lines; journal.py re-exports it.
"""

from __future__ import annotations

import json

# json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False) builds a JSONEncoder and its C
# encoder on every call; a command books three of these texts (its fingerprint, its row's command and events):
# the C encoder is made once here, with the same settings, so the text is byte for byte the same.
# Without the circular-reference check: a cycle (never in JSON-parsed data) recurses, and then json.dumps
# itself is asked, which raises what it always raised.
_ENCODE = json.encoder.c_make_encoder and json.encoder.c_make_encoder(
    None, json.JSONEncoder(ensure_ascii=False).default, json.encoder.encode_basestring, None, ":", ",",
    True, False, True)  # markers, default, strings, indent, separators, sort_keys, skipkeys, allow_nan


def canonical_json(value) -> str:
    """JSON with sorted keys and no spaces: the same data always gives the same text."""
    if _ENCODE is not None:
        try:
            return "".join(_ENCODE(value, 0))
        except RecursionError:
            pass
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
