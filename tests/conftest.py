import pytest

from arena.games.vandtia import GAME
from arena.plugins import Registry


def seat(hand=(), faceup=(), facedown=()):
    return {"hand": list(hand), "faceup": list(faceup), "facedown": list(facedown)}


def position(variant="cardems", seats=(), **extra):
    """A Vändtia state from an explicit deal (docs/game-api.md)."""
    return GAME.from_deal(variant, {"players": list(seats), **extra})


def play(state, *actions):
    for action in actions:
        state.apply(action)
    return state


@pytest.fixture
def registry():
    return Registry()
