"""Socket.IO auth data with text that cannot be written as UTF-8 is refused, with its reason.

A page's connect carries JSON (`{"team": token}`, `{"display": true, "key": key}`, a Trias
`{"seat": token}`); JSON may spell a lone surrogate (`"\\ud800"`), which Python keeps in a str but
cannot encode: the look-up of the link raised UnicodeEncodeError, two tracebacks, and the socket was
neither accepted nor refused. Checked here before any look-up, the client hears why instead.
"""

from __future__ import annotations

from flask_socketio import ConnectionRefusedError


def unreadable_key(data, depth: int = 0) -> str | None:
    """The name of the first value (at any depth) holding text UTF-8 cannot encode, or None."""
    if depth > 4:
        return None  # auth data a page sends is flat; deeper nesting is ignored by every handler
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        if isinstance(key, str) and not _encodes(key):
            return "a key"
        if isinstance(value, str) and not _encodes(value):
            return repr(key) if isinstance(key, str) else "a list item"
        if isinstance(value, (dict, list)):
            found = unreadable_key(value, depth + 1)
            if found:
                return found
    return None


def refuse_unreadable(auth) -> None:
    """Raise ConnectionRefusedError, with a sentence, when the auth data holds unencodable text."""
    where = unreadable_key(auth)
    if where is not None:
        raise ConnectionRefusedError(
            f"bad_auth_text: {where} in the connection's data holds text that is not valid Unicode (a lone "
            "surrogate), so no link or key can match it; open the link as it was given (scan the QR code "
            "again) or reload the page")


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
