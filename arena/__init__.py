"""arena: a tournament runner for card-game bots.

The public API: ``hookimpl`` for plugins, ``Registry`` to find games and bots, ``play_match``
to referee one match.
"""

__version__ = "0.1.0"
DEFAULT_DB = "sqlite:///results/arena.db"  # the database when neither --db nor $ARENA_DB


def __getattr__(name):  # lazy, so ``import arena`` (and ``arena --version``) stays cheap
    if name == "hookimpl":
        from .hookspecs import hookimpl

        return hookimpl
    if name == "Registry":
        from .plugins import Registry

        return Registry
    if name in ("play_match", "replay"):
        from . import referee

        return getattr(referee, name)
    raise AttributeError(name)


__all__ = ["hookimpl", "Registry", "play_match", "replay", "__version__"]
