"""Every hook a plugin can implement. Plugins mark implementations with ``arena.hookimpl``.

Two kinds of plugin use these hooks (see docs/writing-a-bot.md and design notes in README):

* trusted plugins (entry-point group ``arena``) register games;
* bot plugins (entry-point group ``arena.bots``, or a single ``.py`` file in a bots folder)
  register bots.

Registration hooks take a ``register`` callback, so one plugin may register any number of
things and the host validates and de-duplicates them.
"""

import pluggy

hookspec = pluggy.HookspecMarker("arena")
hookimpl = pluggy.HookimplMarker("arena")


@hookspec
def register_games(register):
    """Register game factories: call ``register(game)`` once per game.

    ``game`` is an :class:`arena.games.Game` (name, variants with player counts, move cap,
    ``new_state`` and ``from_deal``). Two plugins registering the same name is an error.
    """


@hookspec
def register_bots(register):
    """Register bots: call ``register(name, factory, games=[...], options=None)``.

    ``factory`` is a class (or any callable) that takes no arguments and returns an object
    with ``act(observation, legal)`` and optionally ``start(info)`` and ``end(result)``.
    One name may be registered for several games, in one call or several; the same name for
    the same game from two places is an error.

    ``options`` declares the options the bot takes (``NAME:key=value,...`` wherever a bot is
    named) with their defaults, e.g. ``{"iterations": 1000, "think_s": 0.0}``: given values
    are typed like the defaults, an undeclared key is an error, and ``start``'s
    ``info["options"]`` holds every option (defaults filled in). ``options={}``: the bot
    takes none. Left out: the bot takes any, each read as a number, ``true``/``false`` or text.
    """
