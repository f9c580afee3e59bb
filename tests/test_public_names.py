"""Every name the documentation gives a reader to import or run resolves: a dotted
``arena....`` name in the README or docs/ (prose or code) is a module or an attribute of one,
and the public names bots and scripts use keep working as the package is reorganised."""

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: dotted names in the docs that are not Python names: the bots' entry-point group and the
#: file an author's key is kept in
NOT_PYTHON = {"arena.bots", "arena.key"}


def documented_names() -> set[str]:
    names = set()
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = page.read_text()
        names.update(re.findall(r"(?<![\w./-])(arena(?:\.\w+)+)", text))
        for module, imported in re.findall(r"^\s*from (arena(?:\.\w+)*) import ([\w, ]+)$",
                                           text, re.M):
            names.update(f"{module}.{n.split(' as ')[0].strip()}" for n in imported.split(","))
    return names - NOT_PYTHON


def resolve(name: str):
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(name)


def test_the_docs_name_enough_to_check():
    names = documented_names()
    assert {"arena.hookimpl", "arena.sandbox.worker", "arena.sandbox.bot.make_bot"} <= names


@pytest.mark.parametrize("name", sorted(documented_names()))
def test_every_documented_name_resolves(name):
    assert resolve(name) is not None


def test_the_public_names_bots_and_scripts_use():
    import arena
    from arena import Registry, hookimpl, play_match, replay  # noqa: F401
    from arena.games import Result, zero_sum_scores  # noqa: F401
    from arena.games.cherki import GAME as CHERKI
    from arena.games.tractor import GAME as TRACTOR
    from arena.games.vandtia import GAME as VANDTIA
    from arena.sandbox import Limits, PythonBot, make_bot  # noqa: F401
    from arena.sandbox.bot import PythonBot as Same

    assert Same is PythonBot and arena.hookimpl is hookimpl
    assert {g.name for g in (VANDTIA, TRACTOR, CHERKI)} == {"vandtia", "tractor", "cherki"}
    with pytest.raises(AttributeError):
        arena.sandbox.nothing_of_the_kind  # noqa: B018


def test_the_worker_is_run_by_its_documented_module_name():
    # the protocol's entry point: without a configuration it says how it is used, no traceback
    out = subprocess.run([sys.executable, "-I", "-m", "arena.sandbox.worker"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith("usage: python -I -m arena.sandbox.worker CONFIG")
