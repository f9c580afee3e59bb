"""The game API shared by every engine (see docs/game-api.md).

A *game* is a factory with metadata; a *state* is one match in progress. Engines are pure:
no I/O, no clocks, all chance from the seed they are given. Every engine module is also a
plugin: it implements ``register_games`` and is loaded through the same hook as anyone's.

State protocol (what the referee and the views rely on)::

    state.to_move          -> seat to act, or None when the game is over
    state.legal_actions()  -> list of JSON-serialisable actions (short: sent to bots each move)
    state.apply(action)    -> None; raises IllegalAction for anything not in the legal list
    state.is_over()        -> bool
    state.observation(seat)-> dict: exactly what that seat knows (legal actions apart)
    state.result()         -> Result (only when over)
    state.forfeit(seat, reason) -> ends the game with that seat last
    state.events           -> list of event dicts when built with record=True (for transcripts)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import GameError


def sha256(data: bytes = b""):
    """A SHA-256 hash object - the interpreter's own where it has one: ``hashlib``'s loads
    OpenSSL, a few ms of CPU in every bot process's start, which needs a digest or two
    (this module's build check, ``arena.sandbox.worker``'s file bots)."""
    try:
        from _sha256 import sha256 as own  # Python 3.11
    except ImportError:
        try:
            from _sha2 import sha256 as own  # 3.12 on
        except ImportError:
            from hashlib import sha256 as own
    return own(data)


def compiled_build(name: str, path: str):
    """The compiled build of module ``name`` (a dotted name: ``arena.games.vandtia``) whose
    source is ``path`` - ``setup.py`` compiles it with Cython as ``_NAME`` beside it
    (``arena.games._vandtia``) when arena is installed; optional - or None: where it was not
    built, where it was built from another version of the source (so an edited file never
    runs behind a stale build) and where ``ARENA_PURE`` is set. The module then takes the
    build's names (``take_compiled``)."""
    import importlib
    import os

    if os.environ.get("ARENA_PURE", "") not in ("", "0"):
        return None
    package, _, base = name.rpartition(".")
    try:
        fast = importlib.import_module(f"{package}._{base}")
    except ImportError:
        return None
    with open(path, "rb") as f:
        digest = sha256(f.read()).hexdigest()
    return fast if getattr(fast, "SOURCE_SHA256", None) == digest else None


def take_compiled(namespace: dict) -> str:
    """Run module ``NAME`` (its ``globals()``: an engine, ``arena.games.NAME``, or
    ``arena.sandbox.deltas``) as its compiled build where ``compiled_build`` finds one:
    every name but an engine's hook, which stays a plain function (pluggy takes no other
    kind) and registers ``GAME`` - the compiled one from here on. Its ``ENGINE``:
    ``"compiled (Cython)"``, else ``"pure Python"`` (so too for the build itself,
    ``_NAME``, and for a copy loaded under another name)."""
    name = namespace["__name__"]
    fast = (compiled_build(name, namespace["__file__"])
            if name in COMPILED and not name.rpartition(".")[2].startswith("_") else None)
    if fast is None:
        return "pure Python"
    namespace.update({k: v for k, v in vars(fast).items()
                      if not k.startswith("__") and k != "register_games"})
    return "compiled (Cython)"


#: the modules ``setup.py`` compiles (each as ``_NAME`` beside it)
COMPILED = ("arena.games.vandtia", "arena.games.tractor", "arena.games.cherki",
            "arena.games.marks", "arena.sandbox.deltas")

# the states' own deltas (compiled too: it takes its build through take_compiled above)
from .marks import MarkedDeltas as MarkedDeltas  # noqa: E402


@dataclass(frozen=True)
class Result:
    """How a match ended. ``ranks`` are competition-style places per seat (ties allowed)."""

    ranks: list[int]
    scores: list[int | float]
    reason: str  # "out", "cap" or "forfeit"
    moves: int
    faults: list[str | None] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "ranks": list(self.ranks),
            "scores": list(self.scores),
            "reason": self.reason,
            "moves": self.moves,
            "faults": list(self.faults) or [None] * len(self.ranks),
        }


def competition_ranks(keys: list) -> list[int]:
    """Places for sort ``keys`` (lower is better), competition style: 1, 2, 2, 4."""
    return [1 + sum(1 for other in keys if other < key) for key in keys]


def zero_sum_scores(ranks: list[int]) -> list[int]:
    """Score of a seat: the number of seats it beat minus the number that beat it."""
    return [sum((r < o) - (r > o) for o in ranks) for r in ranks]


def check_keys(value: dict, allowed: tuple[str, ...], where: str) -> None:
    """GameError for a key of an explicit deal that the game does not know (a typo would
    otherwise be dropped silently)."""
    unknown = sorted(set(value) - set(allowed), key=str)
    if unknown:
        raise GameError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(allowed)})")


class Finished:
    """``is_over`` and ``result`` for states that keep ``over``, ``reason``, ``moves`` and
    their final ``_ranks`` and ``_scores``."""

    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result:
        if not self.over:
            raise ValueError("the game is not over")
        return Result(ranks=list(self._ranks), scores=list(self._scores), reason=self.reason,
                      moves=self.moves)


class Game:
    """Base for game factories: metadata plus validation of variant and player count."""

    name: str = ""
    title: str = ""
    variants: dict[str, tuple[int, ...]] = {}
    default_variant: str = ""
    move_cap: int = 0
    #: What the move cap counts: moves of a ``"match"``, or of each ``"deal"`` of one.
    move_cap_per: str = "match"
    #: Number of teams (0: every seat for itself). Seat ``s`` plays for team ``s % teams``.
    teams: int = 0
    description: str = ""
    #: The version of what the engine offers and shows (legal actions, observations): bots
    #: see other positions under another, so a season records it and is only finished
    #: under the version it began with.
    rules_version: int = 1
    #: Whether a result's scores are money the seats paid each other (Cherki), which a
    #: match can be scored by (``arena match --score money``) beside places.
    money: bool = False
    #: TrueSkill's prior chance that two seats share a place (must be above 0).
    draw_probability: float = 0.05
    #: Fixtures per batch sent to a worker, for every variant or by variant. A worker keeps
    #: each bot's sandboxed processes (one per seat it plays of a deal) from batch to batch
    #: of a season (``scheduler.Kept``); a batch should last a second or two of play, and a
    #: killed season loses at most one batch per worker. Small seasons are cut finer
    #: (``scheduler.default_batch``).
    season_batch: int | dict[str, int] = 32
    #: Duplicate deals go through the cyclic ``"rotations"`` of a group's seats, or through
    #: ``"all"`` its seatings (every permutation).
    seatings: str = "rotations"

    def check(self, variant: str | None, players: int | None = None) -> str:
        """The variant to use; GameError for an unknown variant or player count."""
        variant = variant or self.default_variant
        if variant not in self.variants:
            known = ", ".join(self.variants)
            raise GameError(f"{self.name} has no variant {variant!r} (variants: {known})")
        if players is not None and players not in self.variants[variant]:
            counts = self.variants[variant]
            allowed = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
            raise GameError(
                f"{self.name} {variant} is played by {allowed} players, not {players}"
            )
        return variant

    def batch(self, variant: str) -> int:
        """Fixtures per batch for ``variant`` (see ``season_batch``)."""
        batch = self.season_batch
        return batch if isinstance(batch, int) else batch[variant]

    def new_state(self, variant: str, players: int, seed: int, record: bool = False):
        raise NotImplementedError

    # -- luck (``arena.luck``): what a chance event gave each seat ----------------------

    #: The fitted weights of ``luck_features``, for every variant or by variant (empty: no
    #: luck model, and ``arena match --adjust luck`` says so). ``benchmarks/fit_luck.py``
    #: fits them.
    luck_weights: tuple[float, ...] | dict[str, tuple[float, ...]] = ()

    def luck_features(self, state) -> list[list[float]]:
        """Per seat, numbers that tell how well that seat stands, read only from what the
        seats know between them (each its own hand, and everything public): never a card
        nobody has seen, or the luck's mean would not be zero."""
        raise NotImplementedError

    def unseen(self, state) -> list:
        """The cards nobody has seen yet (no seat, not even an owner), in a fixed order of
        their places. A chance event is a move that changes how many there are."""
        raise NotImplementedError

    def redealt(self, state, cards: list, rng):
        """A copy of ``state`` with ``cards`` (an order of ``unseen(state)``) in the unseen
        places, and whatever the engine draws later drawn afresh from ``rng``."""
        raise NotImplementedError

    def later_chance(self, state) -> bool:
        """Whether ``redealt`` draws more than the unseen cards' order (a later deal)."""
        return False

    def from_deal(self, variant: str, deal: dict, record: bool = False):
        raise NotImplementedError

    def to_deal(self, state) -> dict:
        """The explicit deal of a fresh ``state`` (before its first move), which
        ``from_deal`` turns back into the same state: ``start`` with it plays the same game
        as ``new_state`` with the seed (``arena.games.book`` writes it as a deal book)."""
        raise NotImplementedError

    def start(self, variant: str, players: int, seed: int, deal: dict | None = None,
              record: bool = False):
        """A match's first state: the seed's deal, or ``deal`` (an explicit deal, from a
        deal book) - whatever chance comes later (a Tractor match's later deals) still
        drawn from ``seed``. GameError if the deal seats another number of players."""
        if deal is None:
            return self.new_state(variant, players, seed, record)
        state = self.from_deal(variant, self.seeded(deal, seed), record)
        if len(state.hands) != players:
            raise GameError(f"the deal seats {len(state.hands)} players, not {players}")
        return state

    def seeded(self, deal: dict, seed: int) -> dict:
        """``deal`` with the match's seed for the engine's later chance, where it has any."""
        return deal
