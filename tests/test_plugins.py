"""Plugins: hooks documented, games in-process, bots only listed and run by sandboxed
workers - from entry points, bot files and manifests."""

import inspect
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import bot_file

import arena
from arena import hookspecs
from arena.errors import PluginError, UnknownBot, UnknownGame
from arena.plugins import Registry, bots_dirs_from_env


def test_every_hook_has_a_docstring_and_a_test():
    hooks = [name for name, f in inspect.getmembers(hookspecs, inspect.isfunction)
             if hasattr(f, "arena_spec")]
    assert sorted(hooks) == ["register_bots", "register_games"]
    source = open(__file__).read()
    for name in hooks:
        assert getattr(hookspecs, name).__doc__.strip()
        assert f"def {name}(" in source, f"no test implements {name}"


SPY = """
import os, arena
open(os.path.join(os.environ.get("HOME", "/tmp"), f"imported-by-{os.getpid()}"), "w").close()

class Bot:
    def act(self, observation, legal):
        return legal[-1]

@arena.hookimpl
def register_bots(register):
    register("spy", Bot, games=["vandtia"])
"""

RUNNER = """
import os, sys
from arena.plugins import Registry
from arena.sandbox.bot import make_bot
from arena.referee import play_match
registry = Registry(bots_dirs=[sys.argv[1]])
bots = [make_bot(registry.bot(n, "vandtia")) for n in ("spy", "random")]
match, _ = play_match(registry.game("vandtia"), "cardems", bots, 1)
for bot in bots:
    bot.close()
print(match.result.faults, os.getpid())
print(sorted(m for m in sys.modules if "arena_bots" in m or "botfile" in m or "spy" in m))
"""


def test_no_bot_code_runs_in_the_runners_process(tmp_path):
    bots, home = tmp_path / "bots", tmp_path / "home"
    bots.mkdir(), home.mkdir()
    (bots / "spy.py").write_text(SPY)
    out = subprocess.run([sys.executable, "-c", RUNNER, str(bots)], capture_output=True,
                         text=True, env={**os.environ, "HOME": str(home)}, timeout=60)
    faults, pid = out.stdout.splitlines()[0].rsplit(" ", 1)
    assert faults == "[None, None]", out.stderr
    assert out.stdout.splitlines()[1] == "[]", "no bot module was imported by the runner"
    assert not list(home.iterdir()), "the bot's top level ran elsewhere (in its sandbox)"


def test_built_in_games_and_bots_come_through_the_hooks_and_entry_points():
    registry = Registry()
    assert list(registry.games()) == ["cherki", "tractor", "vandtia"]
    assert {"random", "greedy"} <= set(registry.bots())
    assert registry.bot("random", "vandtia").source.startswith("card-arena ")
    assert Registry(entry_points=False).bots() == {}, "reference bots are entry points too"


def test_an_installed_entry_point_plugin_is_found():
    entry = Registry().bot("lowball", "vandtia")  # plugins/arena-example-bot, installed by tox
    assert entry.source == "arena-example-bot 0.1.0"


def test_a_single_file_bot_in_a_bots_folder(tmp_path):
    (tmp_path / "firsty.py").write_text(bot_file("firsty", ["vandtia", "tractor"]))
    (tmp_path / "_helper.py").write_text("raise RuntimeError('not a bot')")
    registry = Registry(bots_dirs=[tmp_path])
    entry = registry.bot("firsty", "vandtia")
    assert entry.source == str(tmp_path / "firsty.py")
    assert set(registry.bots()["firsty"]) == {"vandtia", "tractor"}, "one name, several games"


def test_one_name_may_be_registered_for_several_games_in_several_calls(tmp_path):
    (tmp_path / "dual.py").write_text(textwrap.dedent("""
        import arena
        @arena.hookimpl
        def register_bots(register):
            register("dual", object, games=["vandtia"])
            register("dual", object, games=["cherki"])
        """))
    assert set(Registry(bots_dirs=[tmp_path], entry_points=False).bots()["dual"]) == {
        "vandtia", "cherki"}


def test_a_bot_name_two_sources_register_is_refused_for_both(tmp_path):
    """The first source listed must not win a name: a file in a bots folder registering an
    installed bot's name (or another file's) takes it from neither - both are refused, and
    each says which two."""
    (tmp_path / "random.py").write_text(bot_file("random"))
    registry = Registry(bots_dirs=[tmp_path])
    with pytest.raises(UnknownBot, match="unknown bot 'random'.*registered by card-arena "):
        registry.bot("random", "vandtia")
    why = registry.broken[str(tmp_path / "random.py")]
    assert why.startswith("bot 'random' is registered by card-arena ") and \
        f"and {tmp_path / 'random.py'}: refused for both" in why
    assert registry.bot("greedy", "vandtia")  # one distribution's modules share a name

    # two files of a folder: a's name hijacked by "aa" (listed first) - both refused
    folder = tmp_path / "two"
    folder.mkdir()
    (folder / "victim.py").write_text(bot_file("victim"))
    (folder / "aa.py").write_text(bot_file("victim"))
    (folder / "other.py").write_text(bot_file("other"))
    registry = Registry(bots_dirs=[folder], entry_points=False)
    assert list(registry.bots()) == ["other"]
    for name in ("aa.py", "victim.py"):
        assert registry.broken[str(folder / name)] == (
            f"bot 'victim' is registered by {folder / 'aa.py'} and {folder / 'victim.py'}: "
            "refused for both (rename one)")


def test_a_broken_bot_file_is_left_out_with_one_clear_reason(tmp_path):
    (tmp_path / "broken.py").write_text("def nope(:\n")
    (tmp_path / "fine.py").write_text(bot_file("fine"))
    registry = Registry(bots_dirs=[tmp_path])
    assert registry.bot("fine", "vandtia")
    assert registry.broken[str(tmp_path / "broken.py")].startswith(
        f"cannot load bot source {tmp_path / 'broken.py'}: SyntaxError")
    with pytest.raises(UnknownBot, match="1 bot source.* failed to load"):
        registry.bot("broken", "vandtia")


def test_a_missing_bots_folder_is_an_error(tmp_path):
    with pytest.raises(PluginError, match="bots folder not found"):
        Registry(bots_dirs=[tmp_path / "nope"]).bots()


def test_bad_registrations_are_rejected(tmp_path):
    for bad in ['register("Bad Name", Bot, games=["vandtia"])',
                'register("ok", Bot)', 'register("ok", 3, games=["vandtia"])']:
        (tmp_path / "b.py").write_text(textwrap.dedent(f"""
            import arena
            class Bot:
                pass
            @arena.hookimpl
            def register_bots(register):
                {bad}
            """))
        registry = Registry(bots_dirs=[tmp_path], entry_points=False)
        assert registry.bots() == {} and list(registry.broken) == [str(tmp_path / "b.py")]


def test_a_game_plugin_registers_through_register_games():
    from arena.games.vandtia import Vandtia

    class Mini(Vandtia):
        name = "mini"

    class GamePlugin:
        @arena.hookimpl
        def register_games(self, register):
            register(Mini())

    assert list(Registry(plugins=[GamePlugin()]).games()) == ["cherki", "mini", "tractor",
                                                            "vandtia"]


def test_unknown_names_are_user_errors(registry):
    with pytest.raises(UnknownGame, match="unknown game 'chess'"):
        registry.game("chess")
    with pytest.raises(UnknownBot, match="unknown bot 'nobody'"):
        registry.bot("nobody", "vandtia")
    with pytest.raises(UnknownBot, match="does not play tractor"):
        registry.bot("lowball", "tractor")


def test_bots_dirs_from_the_environment():
    assert bots_dirs_from_env({"ARENA_BOTS_DIR": "a:b"}) == ["a", "b"]
    assert bots_dirs_from_env({}) == []


def test_a_bot_file_that_registers_nothing_is_named_not_skipped(tmp_path):
    (tmp_path / "nohook.py").write_text("class Bot:\n    def act(self, o, legal):\n"
                                        "        return legal[0]\n")
    registry = Registry(bots_dirs=[tmp_path], entry_points=False)
    assert registry.bots() == {}
    assert "registers no bot" in registry.broken[str(tmp_path / "nohook.py")]
    out = subprocess.run([sys.executable, "-m", "arena", "--bots-dir", str(tmp_path), "bots"],
                         capture_output=True, text=True, timeout=120)
    assert f"not loaded: {tmp_path / 'nohook.py'}: it registers no bot" in out.stderr


def test_the_distribution_has_its_own_name_and_the_example_plugin_depends_on_it():
    import tomllib
    from importlib import metadata
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    ours = tomllib.loads((root / "pyproject.toml").read_text())["project"]["name"]
    assert ours == "card-arena", "PyPI's 'arena' is an unrelated project"
    assert metadata.version(ours) == arena.__version__
    plugin = tomllib.loads((root / "plugins" / "arena-example-bot" / "pyproject.toml")
                           .read_text())["project"]
    assert plugin["dependencies"] == [ours]
