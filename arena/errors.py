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
