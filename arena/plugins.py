"""The one place that owns plugin managers and what the plugins register.

Games are trusted plugins: they load in this process through pluggy (entry-point group
``arena``; built-in games come in through the same hook). Bots are not: this process never
imports a bot. It only names bot *sources* - ``arena.bots`` entry points, ``*.py`` files and
``*.toml`` manifests of executables in bots folders - and asks a sandboxed worker
(``arena.sandbox.list_sources``) what each registers; a bot is later run from the same
source by a worker of its own.
"""

from __future__ import annotations

import importlib
import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path

import pluggy

from . import hookspecs
from .errors import ArenaError, PluginError, UnknownBot, UnknownGame
from .sandbox.files import digest_of

GAME_GROUP = "arena"
BOT_GROUP = "arena.bots"
DEFAULT_GAME_PLUGINS = ("arena.games.vandtia", "arena.games.tractor", "arena.games.cherki")
#: A bot's name, matched whole (``fullmatch``): lower-case letters, digits, ``. _ -``, at
#: most 40 characters, a letter or digit first
BOT_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,39}")


def get_plugin_manager() -> pluggy.PluginManager:
    """A fresh plugin manager with arena's hookspecs and nothing registered."""
    pm = pluggy.PluginManager("arena")
    pm.add_hookspecs(hookspecs)
    return pm


@dataclass(frozen=True)
class BotEntry:
    """One registered bot for one game: where it comes from and how a worker starts it."""

    name: str
    game: str
    source: str  # "DIST VERSION" for an entry point, else the file's path
    spec: dict = field(hash=False, compare=False)  # kind, target (and name, game, options)
    code_hash: str = ""
    #: the options the bot declares, with their defaults (None: it declares none, and takes
    #: any); a reference bot declares them, so a misspelt option is an error, not a no-op
    options: dict | None = field(default=None, hash=False, compare=False)

    def with_options(self, entrant: str, given: dict[str, str]) -> BotEntry:
        """This bot as the entrant ``entrant`` (``NAME:key=value,...``), its options typed
        by their declared defaults (or read as numbers, ``true``/``false`` or text)."""
        options = dict(self.options or {})  # the defaults, then what is given
        for key, text in given.items():
            if self.options is not None and key not in self.options:
                known = ", ".join(self.options) or "none"
                raise ArenaError(f"bot {self.name!r} has no option {key!r} (options: {known})")
            default = (self.options or {}).get(key)
            options[key] = _typed(key, text, default, self.options is not None)
        return replace(self, name=entrant, spec={**self.spec, "options": options})


#: A person's seat in ``arena play``: ``human`` or ``human:NAME`` (``arena.cli.human``).
HUMAN = "human"


def is_human(entrant: str) -> bool:
    return entrant == HUMAN or entrant.startswith(HUMAN + ":")


def check_human(entrant: str) -> None:
    """ArenaError unless a person's seat is ``human`` or ``human:NAME``, NAME one word of
    letters, digits, ``_``, ``-`` or ``.``."""
    name = entrant.partition(":")[2]
    if entrant.endswith(":") or (name and not all(c.isalnum() or c in "_-." for c in name)):
        raise ArenaError(f"{entrant!r}: a human seat is 'human' or 'human:NAME' (NAME: "
                         "letters, digits, _ - .)")


def parse_entrant(text: str) -> tuple[str, dict[str, str]]:
    """``"ismcts:iterations=2000,c=1.4"`` -> ``("ismcts", {"iterations": "2000", "c": "1.4"})``;
    a plain name has no options. ArenaError if malformed."""
    name, colon, rest = text.partition(":")
    if not colon:
        return text, {}
    options: dict[str, str] = {}
    for part in rest.split(","):
        key, eq, value = (p.strip() for p in part.partition("="))
        if not eq or not key or not value:
            raise ArenaError(f"bot {text!r}: options are written NAME:key=value,key=value")
        if key in options:
            raise ArenaError(f"bot {text!r}: option {key!r} given twice")
        options[key] = value
    return name, options


def thinks_by_clock(entrant: str) -> bool:
    """Whether an entrant has a wall-clock budget (an option ``think_s`` above 0): its moves
    then depend on the machine, and a season with it is not reproducible."""
    try:
        return float(parse_entrant(entrant)[1].get("think_s", 0)) > 0
    except (ArenaError, ValueError):
        return False


def split_entrants(value: str) -> list[str]:
    """A comma-separated list of entrants, where an entrant's own options also use commas:
    ``"ismcts:iterations=200,c=1.4,greedy"`` -> ``["ismcts:iterations=200,c=1.4",
    "greedy"]`` (a part with ``=`` and no ``:`` belongs to the entrant before it)."""
    out: list[str] = []
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        if "=" in part and ":" not in part and out and ":" in out[-1]:
            out[-1] += "," + part
        else:
            out.append(part)
    return out


def _typed(key: str, text: str, default, declared: bool):
    kind = type(default) if declared and default is not None else None
    if kind is bool or (kind is None and text in ("true", "false")):
        if text not in ("true", "false", "1", "0"):
            raise ArenaError(f"option {key} is true or false, got {text!r}")
        return text in ("true", "1")
    for number in ((kind,) if kind in (int, float) else (int, float) if kind is None else ()):
        try:
            return number(text)
        except ValueError:
            if kind is not None:
                raise ArenaError(f"option {key} needs {'a whole' if kind is int else 'a'} "
                                 f"number, got {text!r}") from None
    return text


def _source(pm: pluggy.PluginManager, plugin) -> str:
    for p, dist in pm.list_plugin_distinfo():
        if p is plugin:
            return f"{dist.project_name} {dist.version}"
    return getattr(plugin, "__name__", None) or type(plugin).__name__


def _check_registration(source: str, name, games, is_callable: bool = True) -> None:
    if not isinstance(name, str) or not BOT_NAME.fullmatch(name):
        raise PluginError(f"{source}: bad bot name {name!r} (lower-case letters, digits, "
                          ". _ -; at most 40)")
    if not is_callable:
        raise PluginError(f"{source}: bot {name!r} factory is not callable")
    if isinstance(games, str) or not games:
        raise PluginError(f"{source}: bot {name!r} needs games=[...]")


def _manifest(path: Path) -> tuple[str, list, dict, str, dict | None]:
    """``(name, games, spec, code hash, options)`` of an executable bot's ``NAME.toml``."""
    from .sandbox.process import exec_spec

    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise PluginError(f"cannot read bot manifest {path}: {e}") from None
    name, games = data.get("name", path.stem), data.get("games")
    _check_registration(str(path), name, games)
    spec = exec_spec(path, data)
    own, manifest = set(spec["read"]), str(path.resolve())
    # its code: the manifest, the program where it is the bot's own, and its own files
    spec["code_files"] = [str(path)] + [a for a in spec["target"]
                                        if os.path.realpath(a) in own - {manifest}
                                        and os.path.isfile(a)]
    digest = digest_of(spec["code_files"])
    options = data.get("options")
    if options is not None and not isinstance(options, dict):
        raise PluginError(f"{path}: 'options' must be a table of option = default")
    return name, list(games), spec, digest, options


def _here(name: str, folders) -> str:
    """A hint for a bot not found whose file is in the current folder, which is not a bots
    folder unless named one (``--bots-dir .``)."""
    stem = name[:-3] if name.endswith(".py") else name
    if not Path(f"{stem}.py").is_file() and not (Path(stem).is_dir() and
                                                   Path(stem, "__init__.py").is_file()):
        return ""
    if any(Path(f).resolve() == Path.cwd().resolve() for f in folders):
        return ""
    return (f"; {stem}.py is in this folder, which is not a bots folder: name it one "
            f"(arena --bots-dir . ...) or submit the file (arena submit {stem}.py)")


class Registry:
    """Games and bots from every plugin, loaded on first use. ``plugins`` are trusted
    in-process plugin objects (games); bots come only from ``bot_sources``."""

    def __init__(self, bots_dirs=(), plugins=(), entry_points: bool = True):
        self.bots_dirs = [Path(d) for d in bots_dirs]
        self.plugins = list(plugins)
        self.entry_points = entry_points
        self._games: dict | None = None
        self._bots: dict | None = None
        self.broken: dict[str, str] = {}  # bot source -> why it could not be loaded
        #: submitted bots (``arena.leagues.store``): a callable giving their entries, asked once,
        #: on first use; their names are ``NAME@VERSION``, and plain ``NAME`` is the latest
        self.submitted = None
        self.latest: dict[str, str] = {}  # submitted NAME -> NAME@VERSION of its latest

    def refresh(self) -> Registry:
        """Forget the bots listed so far, so that the next use lists them again (versions
        submitted meanwhile); the games stay."""
        self._bots, self.latest, self.broken = None, {}, {}
        return self

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

    def bot_sources(self) -> list[tuple[str, dict]]:
        """``(label, spec)`` of every place bots may come from, in a fixed order."""
        sources = []
        if self.entry_points:
            for ep in sorted(metadata.entry_points(group=BOT_GROUP), key=lambda e: e.name):
                dist = f"{ep.dist.name} {ep.dist.version}" if ep.dist else ep.value
                sources.append((dist, {"kind": "module", "target": ep.value}))
        for folder in self.bots_dirs:
            if not folder.is_dir():
                raise PluginError(f"bots folder not found: {folder}")
            inside = folder.resolve()
            for path in sorted(folder.iterdir()):
                if path.name.startswith("_") or path.suffix not in (".py", ".toml"):
                    continue
                target = path.resolve()
                if target.parent != inside and inside not in target.parents:
                    self.broken[str(path)] = (f"{path}: a link out of the bots folder: not "
                                              "listed (copy the file in instead)")
                    continue
                if not target.is_file():
                    self.broken[str(path)] = f"{path}: not a file: not listed"
                    continue
                kind = "file" if path.suffix == ".py" else "manifest"
                sources.append((str(path), {"kind": kind, "target": str(target)}))
        return sources

    def bots(self) -> dict[str, dict[str, BotEntry]]:
        """``{bot name: {game name: BotEntry}}``, names sorted. A source that cannot be
        loaded (or registers something wrong) is left out and named in ``broken``."""
        if self._bots is not None:
            return self._bots
        from .sandbox.process import list_sources

        sources = self.bot_sources()
        owner = {label: _owner(label, spec) for label, spec in sources}
        groups: dict[str, list[int]] = {}  # an owner's sources, listed by one worker
        for i, (label, spec) in enumerate(sources):
            if spec["kind"] != "manifest":
                groups.setdefault(owner[label], []).append(i)
        order = [i for group in groups.values() for i in group]
        answers = list_sources([[sources[i][1] for i in g] for g in groups.values()])
        listed_by = dict(zip(order, answers, strict=True))
        listed: list[tuple[str, list]] = []
        for i, (label, spec) in enumerate(sources):
            try:
                if spec["kind"] == "manifest":
                    found = [_manifest(Path(spec["target"]))]
                else:
                    found = self._registered(label, spec, listed_by[i])
            except PluginError as e:
                self.broken[label] = str(e)
                continue
            listed.append((label, found))
        # a name two owners register is neither's (the first listed must not win it): an
        # installed distribution owns what its entry points register, a folder's file its own
        claims: dict[str, dict[str, None]] = {}
        for label, found in listed:
            for name, *_ in found:
                claims.setdefault(name, {})[label] = None
        bots: dict[str, dict[str, BotEntry]] = {}
        for label, found in listed:
            for name, games, run, digest, options in found:
                owners = {owner[other] for other in claims[name]}
                clash = [g for g in games if g in bots.get(name, {})]
                if len(owners) > 1 or clash:
                    both = " and ".join(claims[name]) if len(owners) > 1 else \
                        f"{bots[name][clash[0]].source} and {label} for {clash[0]}"
                    self.broken[label] = (f"bot {name!r} is registered by {both}: refused "
                                          "for both (rename one)")
                    for game in clash:  # (two owners: neither ever added it)
                        del bots[name][game]
                    continue
                # its files, and the hash they must still have when a worker starts it
                checked = {"code_files": [run["target"]], "code": digest_of([run["target"]])} \
                    if run["kind"] == "file" else {"code": digest} if run.get("code_files") \
                    else {}
                for game in games:
                    bots.setdefault(name, {})[game] = BotEntry(
                        name, game, label, {**run, "name": name, "game": game, **checked},
                        digest, options)
        if self.submitted is not None:
            for entry in self.submitted():
                base = entry.name.partition("@")[0]
                if base in bots:  # an installed bot or a bots folder's took the name first
                    self.broken[entry.source] = f"bot {base!r} is also installed: not listed"
                    continue
                bots.setdefault(entry.name, {})[entry.game] = entry
                self.latest[base] = max(self.latest.get(base, entry.name), entry.name,
                                        key=lambda n: int(n.partition("@")[2]))
        self._bots = dict(sorted((name, games) for name, games in bots.items() if games))
        return self._bots

    def canonical(self, entrant: str) -> str:
        """An entrant as seasons store it: a submitted bot named without a version is its
        latest version (``mybot`` -> ``mybot@4``, options kept), so results and ratings are
        per version."""
        name, colon, options = entrant.partition(":")
        self.bots()
        if name in self.latest:
            name = self.latest[name]
        return name + colon + options

    @staticmethod
    def _registered(label: str, spec: dict, answer: dict) -> list:
        if "error" in answer:
            raise PluginError(f"cannot load bot source {label}: {answer['error']}")
        if not answer["bots"]:
            raise PluginError("it registers no bot (a register_bots hook marked "
                              "@arena.hookimpl calls register(name, factory, games=[...]))")
        found = []
        for bot in answer["bots"]:
            _check_registration(label, bot["name"], bot["games"], bot["callable"])
            found.append((bot["name"], bot["games"], spec, bot["code_hash"],
                          bot.get("options")))
        return found

    def bot(self, name: str, game: str) -> BotEntry:
        """The entry of bot ``name`` for ``game``; ``name`` may carry options
        (``NAME:key=value,...``), and the entry is then that entrant, named as written."""
        entrant, (name, options) = name, parse_entrant(name)
        bots = self.bots()
        if name in self.latest:  # a submitted bot without a version: its latest
            name = self.latest[name]
            entrant = self.canonical(entrant)
        base, at, version = name.partition("@")
        if at and name not in bots and base in self.latest:
            newest = self.latest[base].partition("@")[2]
            raise UnknownBot(f"bot {base!r} has no version {version!r} (versions 1-{newest})")
        broken = (f"; {len(self.broken)} bot source(s) failed to load: " + "; ".join(
            why if label in why else f"{label}: {why}" for label, why in self.broken.items())
            if self.broken else "")
        if name not in bots:
            raise UnknownBot(f"unknown bot {name!r} (bots: {', '.join(bots) or 'none'}{broken})"
                             + _here(name, self.bots_dirs))
        if game not in bots[name]:
            plays = ", ".join(bots[name])
            raise UnknownBot(f"bot {name!r} does not play {game} (it plays: {plays}{broken})")
        entry = bots[name][game]
        return entry.with_options(entrant, options) if entrant != name or entry.options \
            else entry


def _owner(label: str, spec: dict) -> str:
    """Who owns a bot source: an installed distribution (an entry point's label is
    ``NAME VERSION``), or a bots folder's file."""
    return label.rsplit(" ", 1)[0] if spec["kind"] == "module" else label


def bots_dirs_from_env(environ=None) -> list[str]:
    """Folders named in ``ARENA_BOTS_DIR`` (several separated by the OS path separator)."""
    value = (environ if environ is not None else os.environ).get("ARENA_BOTS_DIR", "")
    return [d for d in value.split(os.pathsep) if d]
