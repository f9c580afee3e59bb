import os
import random

import pytest

from arena.games.vandtia import GAME
from arena.plugins import Registry


def pure_module(module):
    """An engine module that ``setup.py`` compiles (``vandtia``, ``tractor``) run as plain
    Python, under a name of its own."""
    import importlib.util

    name = f"{module.__name__.rpartition('.')[0]}._{module.__name__.rpartition('.')[2]}_pure"
    spec = importlib.util.spec_from_file_location(name, module.__file__)
    pure = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pure)
    assert pure.ENGINE == "pure Python"
    return pure


def compiled_module(name: str, package: str = "arena.games"):
    """The compiled build of engine ``name`` (``arena.games._NAME``; of another compiled
    module in ``package``), or skip the test: where ``ARENA_PURE`` is set, or where arena
    was installed without a C compiler."""
    import importlib

    if os.environ.get("ARENA_PURE", "") not in ("", "0"):
        pytest.skip("ARENA_PURE is set: this run tests the pure-Python module")
    try:
        return importlib.import_module(f"{package}._{name}")
    except ImportError:
        pytest.skip("arena was installed without the compiled module (no C compiler)")


def compiled_in_use(module, variant: str, players: int) -> None:
    """Engine ``module``'s compiled build (or skip the test, as ``compiled_module``) is the
    one in use: its game, its state class, and the game the hook registers."""
    fast = compiled_module(module.__name__.rpartition(".")[2])
    game, state = type(module.GAME).__name__, type(module.GAME.new_state(variant, players, 0))
    assert module.ENGINE == "compiled (Cython)"
    assert type(module.GAME) is getattr(fast, game)
    assert state is getattr(fast, state.__name__) is getattr(module, state.__name__)
    assert Registry().game(module.GAME.name) is module.GAME  # the hook registers it


_PURE: dict = {}  # pure_module of each engine module, once


def play_in_lockstep(module, variant: str, players: int, seed: int, at,
                     held=lambda state: [state.hand_list(p) for p in range(state.n)]) -> None:
    """A random game of engine ``module``'s compiled build and of its pure module, move by
    move (``compiled_in_use`` first): the same legal lists and observations of every seat,
    the same events and result, and what ``held`` reads of the state the same at the end;
    where ``at(state)`` holds, the same world of the mover's observation (``held`` again)
    and the same traced playout."""
    if module not in _PURE:
        _PURE[module] = pure_module(module)
    fast, pure = module.GAME, _PURE[module].GAME
    a = fast.new_state(variant, players, seed, record=True)
    b = pure.new_state(variant, players, seed, record=True)
    assert type(a) is not type(b)
    rng = random.Random(seed)
    while not a.is_over():
        legal = a.legal_actions()
        assert legal == b.legal_actions()
        for seat in range(players):
            assert a.observation(seat) == b.observation(seat)
        if at(a):
            o = a.observation(a.to_move)
            wa, wb = fast.world(o, random.Random(seed)), pure.world(o, random.Random(seed))
            assert held(wa) == held(wb)
            ta, tb = [], []
            assert (a.copy().playout(random.Random(seed), ta, greedy=0.5)
                    == b.copy().playout(random.Random(seed), tb, greedy=0.5))
            assert ta == tb
        action = legal[rng.randrange(len(legal))]
        a.apply(action)
        b.apply(action)
    assert a.result() == b.result() and a.events == b.events and held(a) == held(b)


def seat(hand=(), faceup=(), facedown=()):
    return {"hand": list(hand), "faceup": list(faceup), "facedown": list(facedown)}


def position(variant="cardems", seats=(), **extra):
    """A Vändtia state from an explicit deal (docs/game-api.md)."""
    return GAME.from_deal(variant, {"players": list(seats), "partial": True, **extra})


def play(state, *actions):
    for action in actions:
        state.apply(action)
    return state


def bot_file(name: str, games=("vandtia",), sleep: float = 0.0) -> str:
    """The text of a single-file bot that always plays the first legal action (after
    ``sleep`` seconds of thought, where given)."""
    thought = f"import time; time.sleep({sleep!r})\n        " if sleep else ""
    return f"""
import arena

class Bot:
    def act(self, observation, legal):
        {thought}return legal[0]

@arena.hookimpl
def register_bots(register):
    register({name!r}, Bot, games={list(games)!r})
"""


#: A single-file bot that prints a line, then raises, at every move.
CRASHER = """
import arena

class Bot:
    def act(self, observation, legal):
        print("about to fail")
        raise RuntimeError("always")

@arena.hookimpl
def register_bots(register):
    register("crasher", Bot, games=["vandtia"])
"""


def play_randomly(state, choice_seed: int, step=None):
    """Play ``state`` to its end with uniformly random legal actions, calling ``step`` on
    every position first; the final state."""
    rng = random.Random(choice_seed)
    while not state.is_over():
        if step:
            step(state)
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return state


def chromium(performance: bool = False):
    """Headless Chromium driven by Selenium through the system's ChromeDriver (Debian:
    chromium, chromium-driver; .ci/run installs them); skips the test where there is none.
    ``performance``: Chromium's network log is kept, so a test can read every response the
    page received (``Network.getResponseBody``) and every server-sent event."""
    import shutil

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not (binary and driver):
        pytest.skip("no Chromium and ChromeDriver on this machine (Debian: apt-get install "
                    "chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--window-size=1300,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", **(
        {"performance": "ALL"} if performance else {})})
    return webdriver.Chrome(service=Service(driver), options=options)


@pytest.fixture
def registry():
    return Registry()


#: A real PostgreSQL server for the tests that need one (``.ci/run`` installs and starts it).
PG_URL = os.environ.get("ARENA_TEST_PG",
                        "postgresql+psycopg://postgres:arena@localhost/arena_test")


@pytest.fixture
def pg():
    """The test server's URL, its arena tables dropped; the test is skipped, saying why,
    where no server answers."""
    from sqlmodel import SQLModel

    from arena import db

    try:
        engine = db.connect(PG_URL)
    except Exception as e:  # noqa: BLE001 - any reason the server is not there
        pytest.skip(f"no PostgreSQL server at {PG_URL} ({e}); set ARENA_TEST_PG")
    SQLModel.metadata.drop_all(engine)
    engine.dispose()
    yield PG_URL


# -- running in parallel (pytest-xdist, ``--dist loadgroup``: tox) --------------------------


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: two workers a core. Most system tests wait half their time on bot
    processes, browsers and databases; on two cores the suite took 480 s with four workers
    against 593 s with two."""
    return 2 * len(os.sched_getaffinity(0))


def pytest_itemcollected(item):
    """Tests run on every core, but for four kinds kept together on one worker, in order:
    ``serial`` tests (they kill processes, time something or load the machine), which go
    one at a time; the ``pagecache`` tests (some put files every jail sees out of memory,
    which would open the page-cache channels to colluders running beside them); the tests
    of the one PostgreSQL database (the ``pg`` fixture drops its
    tables); and the tests of a module with a module-scoped fixture (built once, not once
    per worker). Groups are xdist's ``xdist_group``, marked as each test is collected, so
    that they are there before xdist reads them (its ``pytest_collection_modifyitems``);
    without xdist they change nothing."""
    names = getattr(item, "fixturenames", ())
    if "pg" in names:  # a real PostgreSQL server's tests are soak tests (tox -e soak)
        item.add_marker(pytest.mark.soak)
    if item.get_closest_marker("serial"):
        group = "serial"
    elif item.get_closest_marker("pagecache"):
        group = "pagecache"
    elif "pg" in names:
        group = "postgres"
    elif any(d.scope == "module" for name in names
             for d in item._fixtureinfo.name2fixturedefs.get(name, ())):
        group = item.module.__name__
    else:
        return
    item.add_marker(pytest.mark.xdist_group(group))
