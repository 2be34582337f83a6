"""Named refusals: a stable code plus a sentence saying what is wrong and which rule."""


class TriasError(Exception):
    """A refused command; the state is unchanged. `code` is stable, `message` is a sentence."""

    def __init__(self, code: str, message: str, **params):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.params = params

    def to_dict(self) -> dict:
        """The refusal as JSON for an API reply."""
        return {"code": self.code, "message": self.message, "params": self.params}


class IllegalMove(TriasError):
    """The rules forbid this move in the current state."""


class BadCommand(TriasError):
    """The command itself is malformed: not a dict, unknown type, a missing or bad field."""
