"""Named errors: every refusal the bank gives, as a code plus a sentence."""


class BankError(Exception):
    """A refusal: nothing was changed. `code` is stable, `message` says what to do."""

    def __init__(self, code: str, message: str, **params):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.params = params

    def to_dict(self) -> dict:
        """The refusal as JSON for the API and the journal of refusals."""
        return {"code": self.code, "message": self.message, "params": self.params}


class RuleError(BankError):
    """The rules of the game forbid this command in the current state."""


class CommandError(BankError):
    """The command itself is malformed: a missing field, an unknown id, a bad amount."""


class NotAllowed(BankError):
    """The sender's role may not do this; decided where the bank decides, under its lock."""


class IdConflict(BankError):
    """A command id was already used for a command with other content."""


class ConfigError(Exception):
    """config.toml is missing or wrong; the message names the key and the fix."""
