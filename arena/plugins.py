"""The one place that owns plugin managers and what the plugins register.

``Registry`` loads lazily, once: built-in games and bots come in through the same hooks and
entry points as anyone's. Games are trusted plugins (entry-point group ``arena``); bots come
from the ``arena.bots`` group, from single ``.py`` files in bots folders, or from plugin
objects handed in directly (tests, embedding).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pluggy

from . import hookspecs
from .errors import PluginError, UnknownBot, UnknownGame

GAME_GROUP = "arena"
BOT_GROUP = "arena.bots"
DEFAULT_GAME_PLUGINS = ("arena.games.vandtia",)
BOT_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


def get_plugin_manager() -> pluggy.PluginManager:
    """A fresh plugin manager with arena's hookspecs and nothing registered."""
    pm = pluggy.PluginManager("arena")
    pm.add_hookspecs(hookspecs)
    return pm


@dataclass(frozen=True)
class BotEntry:
    """One registered bot for one game."""

    name: str
    game: str
    factory: object
    source: str


def _source(pm: pluggy.PluginManager, plugin) -> str:
    for p, dist in pm.list_plugin_distinfo():
        if p is plugin:
            return f"{dist.project_name} {dist.version}"
    path = getattr(plugin, "__arena_file__", None)
    if path:
        return str(path)
    return getattr(plugin, "__name__", None) or type(plugin).__name__


def _load_file(path: Path):
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    stem = re.sub(r"\W", "_", path.stem)
    module_name = f"arena_botfile_{stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # a broken bot file is the user's mistake, reported in one line
        raise PluginError(f"cannot load bot file {path}: {type(e).__name__}: {e}") from None
    module.__arena_file__ = path
    return module


class Registry:
    """Games and bots from every plugin, loaded on first use."""

    def __init__(self, bots_dirs=(), plugins=(), entry_points: bool = True):
        self.bots_dirs = [Path(d) for d in bots_dirs]
        self.plugins = list(plugins)
        self.entry_points = entry_points
        self._games: dict | None = None
        self._bots: dict | None = None

    # -- games ---------------------------------------------------------------------------

    def games(self) -> dict:
        if self._games is None:
            pm = get_plugin_manager()
            for name in DEFAULT_GAME_PLUGINS:
                pm.register(importlib.import_module(name), name=name)
            for plugin in self.plugins:
                pm.register(plugin)
            if self.entry_points:
                pm.load_setuptools_entrypoints(GAME_GROUP)
            games: dict = {}
            for impl in pm.hook.register_games.get_hookimpls():
                source = _source(pm, impl.plugin)

                def register(game, source=source):
                    name = getattr(game, "name", None)
                    if not isinstance(name, str) or not getattr(game, "variants", None):
                        raise PluginError(f"{source} registered a game without name/variants")
                    if name in games and games[name] is not game:
                        raise PluginError(f"game {name!r} is registered twice ({source})")
                    games[name] = game

                impl.function(register=register)
            self._games = dict(sorted(games.items()))
        return self._games

    def game(self, name: str):
        games = self.games()
        if name not in games:
            raise UnknownGame(f"unknown game {name!r} (games: {', '.join(games) or 'none'})")
        return games[name]

    # -- bots ----------------------------------------------------------------------------

    def bots(self) -> dict[str, dict[str, BotEntry]]:
        """``{bot name: {game name: BotEntry}}``, names sorted."""
        if self._bots is None:
            pm = get_plugin_manager()
            if self.entry_points:
                pm.load_setuptools_entrypoints(BOT_GROUP)
            for plugin in self.plugins:
                pm.register(plugin)
            for folder in self.bots_dirs:
                if not folder.is_dir():
                    raise PluginError(f"bots folder not found: {folder}")
                for path in sorted(folder.glob("*.py")):
                    if not path.name.startswith("_"):
                        pm.register(_load_file(path))
            bots: dict[str, dict[str, BotEntry]] = {}
            for impl in pm.hook.register_bots.get_hookimpls():
                source = _source(pm, impl.plugin)

                def register(name, factory, games=(), source=source):
                    if not isinstance(name, str) or not BOT_NAME.match(name):
                        raise PluginError(f"{source}: bad bot name {name!r} "
                                          "(lower-case letters, digits, . _ -)")
                    if not callable(factory):
                        raise PluginError(f"{source}: bot {name!r} factory is not callable")
                    if isinstance(games, str) or not games:
                        raise PluginError(f"{source}: bot {name!r} needs games=[...]")
                    for game in games:
                        per_game = bots.setdefault(name, {})
                        if game in per_game:
                            raise PluginError(
                                f"bot {name!r} for {game} is registered twice "
                                f"({per_game[game].source} and {source})")
                        per_game[game] = BotEntry(name, game, factory, source)

                try:
                    impl.function(register=register)
                except PluginError:
                    raise
                except Exception as e:
                    raise PluginError(f"{source}: register_bots failed: "
                                      f"{type(e).__name__}: {e}") from None
            self._bots = dict(sorted(bots.items()))
        return self._bots

    def bot(self, name: str, game: str) -> BotEntry:
        bots = self.bots()
        if name not in bots:
            raise UnknownBot(f"unknown bot {name!r} (bots: {', '.join(bots) or 'none'})")
        if game not in bots[name]:
            plays = ", ".join(bots[name])
            raise UnknownBot(f"bot {name!r} does not play {game} (it plays: {plays})")
        return bots[name][game]


def bots_dirs_from_env(environ=None) -> list[str]:
    """Folders named in ``ARENA_BOTS_DIR`` (several separated by the OS path separator)."""
    value = (environ if environ is not None else os.environ).get("ARENA_BOTS_DIR", "")
    return [d for d in value.split(os.pathsep) if d]
