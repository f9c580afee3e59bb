"""Errors a user can cause. The CLI turns any of them into one line on stderr and exit 2."""


class ArenaError(Exception):
    """A mistake in what the user asked for (unknown name, bad option, bad deal...)."""

    def __str__(self) -> str:  # KeyError-style quoting would garble the one-line message
        return str(self.args[0]) if self.args else ""


class UnknownGame(ArenaError, KeyError):
    pass


class UnknownBot(ArenaError, KeyError):
    pass


class GameError(ArenaError, ValueError):
    """Bad game set-up: unknown variant, wrong number of players, malformed deal."""


class IllegalAction(ValueError):
    """An action that is not in the current legal list (the referee turns it into a forfeit)."""


class PluginError(ArenaError):
    """A plugin that cannot be loaded or registers something inconsistent."""


class BotFault(Exception):
    """A bot broke the rules of its seat: it forfeits the match. ``reason`` is stored with the
    result (``timeout``, ``crash: ...``, ``protocol error: ...``, ``memory exceeded``...),
    ``log`` is the tail of what it wrote to stderr."""

    def __init__(self, reason: str, log: str = ""):
        super().__init__(reason)
        self.reason, self.log = reason, log


def crash_reason(e: BaseException) -> str:
    """The stored reason for a bot that raised ``e``: ``crash: Type: first line``."""
    text = str(e).splitlines()[0][:200] if str(e) else ""
    return f"crash: {type(e).__name__}: {text}" if text else f"crash: {type(e).__name__}"
