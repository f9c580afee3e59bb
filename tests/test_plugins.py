"""Plugins: hooks documented, bots from in-process plugins, bot files and entry points."""

import inspect
import textwrap

import pytest
from conftest import bot_file

import arena
from arena import hookspecs
from arena.bot import make_bot
from arena.errors import PluginError, UnknownBot, UnknownGame
from arena.plugins import Registry, bots_dirs_from_env
from arena.referee import play_match


def test_every_hook_has_a_docstring_and_a_test():
    hooks = [name for name, f in inspect.getmembers(hookspecs, inspect.isfunction)
             if hasattr(f, "arena_spec")]
    assert sorted(hooks) == ["register_bots", "register_games"]
    source = open(__file__).read()
    for name in hooks:
        assert getattr(hookspecs, name).__doc__.strip()
        assert f"def {name}(" in source, f"no test implements {name}"


class InProcess:
    class Bot:
        def act(self, observation, legal):
            return legal[-1]

    @arena.hookimpl
    def register_bots(self, register):
        register("last", self.Bot, games=["vandtia"])


def test_a_bot_plugin_registered_in_process_plays():
    registry = Registry(plugins=[InProcess()])
    entry = registry.bot("last", "vandtia")
    assert entry.source == "InProcess"
    match, _ = play_match(registry.game("vandtia"), "cardems",
                          [make_bot(entry), make_bot(registry.bot("random", "vandtia"))], 1)
    assert match.result.faults == [None, None]


def test_built_in_games_and_bots_come_through_the_hooks_and_entry_points():
    registry = Registry()
    assert list(registry.games()) == ["vandtia"]
    assert {"random", "greedy"} <= set(registry.bots())
    assert registry.bot("random", "vandtia").source.startswith("arena ")
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


def test_one_name_may_be_registered_for_several_games_in_several_calls():
    class Two:
        @arena.hookimpl
        def register_bots(self, register):
            register("dual", object, games=["vandtia"])
            register("dual", object, games=["cherki"])

    assert set(Registry(plugins=[Two()], entry_points=False).bots()["dual"]) == {
        "vandtia", "cherki"}


def test_the_same_bot_name_for_the_same_game_twice_is_an_error(tmp_path):
    (tmp_path / "random.py").write_text(bot_file("random"))
    with pytest.raises(PluginError, match="registered twice"):
        Registry(bots_dirs=[tmp_path]).bots()


def test_a_broken_bot_file_is_one_clear_error(tmp_path):
    (tmp_path / "broken.py").write_text("def nope(:\n")
    with pytest.raises(PluginError, match="cannot load bot file .*broken.py: SyntaxError"):
        Registry(bots_dirs=[tmp_path]).bots()


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
        with pytest.raises(PluginError):
            Registry(bots_dirs=[tmp_path], entry_points=False).bots()


def test_a_game_plugin_registers_through_register_games():
    from arena.games.vandtia import Vandtia

    class Mini(Vandtia):
        name = "mini"

    class GamePlugin:
        @arena.hookimpl
        def register_games(self, register):
            register(Mini())

    assert list(Registry(plugins=[GamePlugin()]).games()) == ["mini", "vandtia"]


def test_unknown_names_are_user_errors(registry):
    with pytest.raises(UnknownGame, match="unknown game 'chess'"):
        registry.game("chess")
    with pytest.raises(UnknownBot, match="unknown bot 'nobody'"):
        registry.bot("nobody", "vandtia")
    with pytest.raises(UnknownBot, match="does not play tractor"):
        registry.bot("random", "tractor")


def test_bots_dirs_from_the_environment():
    assert bots_dirs_from_env({"ARENA_BOTS_DIR": "a:b"}) == ["a", "b"]
    assert bots_dirs_from_env({}) == []
