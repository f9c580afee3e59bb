"""Reviews: every decision of a stored match valued by a stronger searcher (``arena review``).

A *decision* is a move where the seat to move had more than one legal action (the referee
plays forced moves itself). At each, the *reviewer* - a bot with a ``values(observation,
legal)`` method, run in the sandbox like any bot (docs/protocol.md, ``values``) - is given
the deciding seat's observation and legal list, and nothing else: a review judges a decision
by what the seat could know, never by the cards it could not see. It answers each action's
expected score in the game's own units (``Result.scores``) and the standard error of the
best action's value minus that action's. The decision's *loss* is the best value minus the
value of the action taken, and its class follows from the loss (:data:`THRESHOLDS`).

Reviews are reproducible: the reviewer is started afresh for every decision with a seed
keyed by the match's deal seed, the seat and the step (HMAC, so the seed tells the reviewer
nothing about the deal), so a decision's review depends on nothing else - the same review
twice, or with more workers, or resumed after a kill, gives the same values. Each reviewed
decision is stored as it is made (``db.ReviewRow``; together, every :data:`STORE_S`), keyed
by match, reviewer, seat and step;
a review asked for again reads what is stored and values only the rest.
"""

from __future__ import annotations

import json
import math
import queue
import random
import threading
import time
from dataclasses import dataclass, field

from .. import db
from ..cards import keyed_seed
from ..errors import ArenaError, BotFault, shown

#: The classes of a decision, from no loss to the worst.
CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")

#: Expected loss, in the game's score units, from which a decision is an inaccuracy, a
#: mistake and a blunder. A decision that loses less than the first is ``good`` (``best``:
#: the reviewer's own choice, or one of equal value). Vändtia scores a seat by the places it
#: beat minus the places that beat it (two seats: +1 or -1), so 0.5 is a quarter of a
#: two-seat game's swing; Tractor's deal ends in a level margin, most deals moving one
#: team a level or two, so half a level lost in one decision is a blunder (0.15, 0.3, 0.6);
#: Cherki's score is money, a deal's swing some tens (3, 8, 20).
THRESHOLDS = {"vandtia": (0.1, 0.25, 0.5), "tractor": (0.15, 0.3, 0.6),
              "cherki": (3.0, 8.0, 20.0)}

def thresholds(game: str) -> tuple[float, float, float]:
    """A game's :data:`THRESHOLDS`; a game arena does not know (a plugin's) gets Vändtia's."""
    return THRESHOLDS.get(game, THRESHOLDS["vandtia"])


#: A loss within this many of the reviewer's standard errors of zero is not told from the
#: noise of its playouts: the decision is ``good`` whatever the loss.
NOISE = 2.0

#: The reviewer when none is named: ``ismcts`` valuing every action on worlds drawn from the
#: observation, ``iterations`` playouts per decision in all (a Tractor playout, a whole
#: deal of tricks, costs some fifteen of Vändtia's).
REVIEWERS = {"vandtia": "ismcts:iterations=2000", "tractor": "ismcts:iterations=400",
             "cherki": "ismcts:iterations=1000"}

#: Wall seconds a reviewer may take over one decision (a move's time, for a bot).
REVIEW_S = 120.0

#: Reviewed decisions are stored together at most this many seconds apart (one transaction
#: each time), so a review killed at any moment loses at most that much of its work.
STORE_S = 0.5


def phase(game: str, observation: dict, action) -> str:
    """The phase a decision belongs to, for a review's breakdown. Vändtia: ``swap``, or the
    place the seat plays from - ``hand``, ``face-up`` or ``face-down`` (a pick-up counts
    where the seat stood). Tractor: ``bid``, ``bury``, ``lead`` or ``follow``. Cherki:
    ``call`` (any action that calls), ``draw``, ``take`` or ``discard``."""
    if game == "vandtia":
        if observation["phase"] == "swap":
            return "swap"
        me = observation["seats"][observation["seat"]]
        return "hand" if observation["hand"] else "face-up" if me["faceup"] else "face-down"
    if game == "tractor":
        if observation["phase"] != "play":
            return observation["phase"]
        return "follow" if observation["trick"]["plays"] else "lead"
    if game == "cherki":
        text = str(action)
        return "call" if "call" in text.split() else text.split()[0]
    return str(observation.get("phase", "play"))


@dataclass
class Decision:
    #: the action's index in the match's replay (0-based: the key a review is stored by);
    #: shown everywhere as step ``step + 1`` - the N-th action is step N, the viewer's
    #: ``#step=N``, where its frame shows it (``judged`` dicts carry the shown number)
    step: int
    seat: int
    phase: str
    observation: dict
    legal: list
    taken: object


def decisions(game, variant: str, players: int, seed: int, actions: list,
              seats: set[int] | None = None, deal: dict | None = None):
    """The decisions of a replay, in order (of ``seats`` only, given)."""
    state = game.start(variant, players, seed, deal)
    for step, action in enumerate(actions):
        legal = state.legal_actions()
        seat = state.to_move
        if len(legal) > 1 and (seats is None or seat in seats):
            observation = state.observation(seat)
            yield Decision(step, seat, phase(game.name, observation, action), observation,
                           list(legal), action)
        state.apply(action)


def checked_values(answer, legal: list, reviewer: str) -> list[dict]:
    """A reviewer's answer, checked: one ``{"action", "value", "se"}`` per legal action, in
    the legal list's order, with finite numbers (``se`` at least 0); ArenaError if not."""
    def bad(why: str) -> ArenaError:
        return ArenaError(f"reviewer {reviewer} answered values that do not fit: {why}")

    if not isinstance(answer, list) or len(answer) != len(legal):
        raise bad(f"not one value per legal action ({len(legal)})")
    by_action = {}
    for item in answer:
        if not isinstance(item, dict) or "action" not in item:
            raise bad("an item without an action")
        value, se = item.get("value"), item.get("se", 0.0)
        halves = item.get("halves", [])
        if not isinstance(halves, list) or len(halves) not in (0, 2) or not all(
                _number(x) for x in (value, se, *halves)) or se < 0:
            raise bad(f"value {shown(value)}, se {shown(se)} and halves {shown(halves)} for "
                      f"{shown(item['action'])}")
        try:
            key = _key(item["action"])
        except (RecursionError, TypeError, ValueError):  # nested past what JSON writes
            raise bad(f"an action {shown(item['action'])}") from None
        by_action[key] = {"action": item["action"], "value": float(value),
                          "se": float(se)} | ({"halves": [float(x) for x in halves]}
                                              if halves else {})
    if len(by_action) != len(legal) or any(_key(a) not in by_action for a in legal):
        raise bad("its actions are not the legal ones")
    return [by_action[_key(a)] for a in legal]


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _key(action) -> str:
    return db.dumps(action)


def judged(game: str, data: dict) -> dict:
    """A stored decision (``taken``, ``phase``, ``values``) with what follows from it: the
    reviewer's ``best`` action, the ``estimate`` of the loss of the one taken, the ``loss``
    shown (the estimate, or 0 below 0) and its ``se``, and its ``class``.

    The best of several noisy means is the highest partly by chance, so best minus taken on
    the same worlds overstates every loss a little (over many decisions, a floor of noise
    under the mean loss). Where the reviewer gives each action's means over two halves of
    its worlds (``halves``), the estimate is cross-fitted: the best chosen on one half,
    the loss measured on the other, both ways, averaged - unbiased for a best chosen on half
    the worlds, below 0 now and then, and with no floor under a mean. Without halves it is
    best minus taken. The class follows the loss (:data:`THRESHOLDS`): ``best`` where the
    action taken has the highest value, ``good`` below the first threshold or within
    :data:`NOISE` standard errors of no loss."""
    values = data["values"]
    best = max(values, key=lambda v: v["value"])
    taken = next(v for v in values if _key(v["action"]) == _key(data["taken"]))
    if all("halves" in v for v in values):
        a = max(values, key=lambda v: v["halves"][0])
        b = max(values, key=lambda v: v["halves"][1])
        estimate = 0.5 * (a["halves"][1] - taken["halves"][1]
                          + b["halves"][0] - taken["halves"][0])
    else:
        estimate = best["value"] - taken["value"]
    loss = max(estimate, 0.0) if taken["value"] < best["value"] else 0.0
    inaccuracy, mistake, blunder = thresholds(game)
    kind = ("best" if taken["value"] >= best["value"] else "good"
            if loss < inaccuracy or loss <= NOISE * taken["se"] else "inaccuracy"
            if loss < mistake else "mistake" if loss < blunder else "blunder")
    return {**data, "best": best["action"], "estimate": estimate, "loss": loss,
            "se": taken["se"], "class": kind}


@dataclass
class Review:
    """A match's review: each decision judged (``judged``), in the order played."""

    match: int
    game: str
    variant: str
    reviewer: str
    players: list[str]
    decisions: list[dict] = field(default_factory=list)

    def summary(self, seat: int | None = None) -> dict:
        return summarise([d for d in self.decisions if seat is None or d["seat"] == seat])

    def to_json(self) -> dict:
        seats = sorted({d["seat"] for d in self.decisions})
        return {"match": self.match, "game": self.game, "variant": self.variant,
                "reviewer": self.reviewer, "players": self.players,
                "thresholds": dict(zip(CLASSES[2:], thresholds(self.game), strict=True)),
                "seats": {str(s): self.summary(s) for s in seats},
                "decisions": self.decisions}


def summarise(decided: list[dict]) -> dict:
    """Decisions, mean loss per decision (the mean of the decisions' ``estimate``: below-0
    estimates count, so that the noise cancels), accuracy (the share of decisions that lose
    less than an inaccuracy: ``best`` or ``good``), the count of each class, and the same
    by phase."""
    def figures(items: list[dict]) -> dict:
        n = len(items)
        counts = {c: sum(d["class"] == c for d in items) for c in CLASSES}
        return {"decisions": n,
                "mean_loss": sum(d["estimate"] for d in items) / n if n else 0.0,
                "accuracy": (counts["best"] + counts["good"]) / n if n else 1.0,
                "classes": counts}

    phases: dict[str, list[dict]] = {}
    for d in decided:
        phases.setdefault(d["phase"], []).append(d)
    return {**figures(decided), "phases": {p: figures(items) for p, items in phases.items()}}


def reviewer_name(registry, game: str, reviewer: str | None) -> str:
    """The reviewer as stored: the entrant with the options that differ from the bot's
    defaults, sorted (so ``ismcts:c=0.7`` and ``ismcts`` are one reviewer, 0.7 being the
    default); ArenaError if it is unknown or does not play the game."""
    entry = registry.bot(reviewer or REVIEWERS.get(game, "ismcts"), game)
    name = entry.name.partition(":")[0]
    defaults = registry.bot(name, game).options or {}
    options = {k: v for k, v in (entry.spec.get("options") or {}).items()
               if k not in defaults or defaults[k] != v}
    return name + (":" + ",".join(f"{k}={_text(v)}" for k, v in sorted(options.items()))
                   if options else "")


def _text(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def review_match(engine, registry, match_id: int, seats: set[int] | None = None,
                 reviewer: str | None = None, workers: int = 1, limits=None,
                 progress=None) -> Review:
    """Review the decisions of stored match ``match_id`` (of ``seats``, default every seat)
    with ``reviewer`` (default :data:`REVIEWERS`), valuing what is not stored yet on
    ``workers`` sandboxed reviewer processes and storing each as it is valued.
    ``progress(done, total)`` is called as decisions are valued."""
    match_row, season_row, seat_rows = db.get_match(engine, match_id)
    game = registry.game(season_row.game)
    names = [s.bot for s in seat_rows]
    if seats is not None and not seats <= set(range(len(names))):
        raise ArenaError(f"match {match_id} has seats 0-{len(names) - 1}")
    if match_row.reason == "suspended":
        raise ArenaError(f"match {match_id} was not played (a bot was suspended): nothing "
                         "to review")
    name = reviewer_name(registry, game.name, reviewer)
    entry = registry.bot(name, game.name)
    actions = json.loads(match_row.replay)
    from .league import match_deal

    found = list(decisions(game, season_row.variant, len(names), match_row.seed, actions,
                           seats, match_deal(season_row, match_row.fixture)))
    stored = db.stored_reviews(engine, match_id, name)
    todo = [d for d in found if (d.seat, d.step) not in stored]
    count = [len(found) - len(todo)]
    pending: list = []
    flushed = [time.monotonic()]

    def flush() -> None:
        db.store_reviews(engine, match_id, name, pending)
        pending.clear()
        flushed[0] = time.monotonic()

    def valued(d: Decision, data: dict) -> None:
        pending.append((d.seat, d.step, data))
        stored[(d.seat, d.step)] = data
        count[0] += 1
        if time.monotonic() - flushed[0] >= STORE_S:
            flush()
        if progress is not None:
            progress(count[0], len(found))

    try:
        _value_all(entry, name, game.name, season_row.variant, len(names), match_row.seed,
                   todo, workers, limits, valued)
    finally:  # what was valued is kept, however the review ends
        flush()
    review = Review(match_id, game.name, season_row.variant, name, names)
    review.decisions = [judged(game.name, {"step": d.step + 1, "seat": d.seat, **stored[
        (d.seat, d.step)]}) for d in found]
    return review


def _value_all(entry, name: str, game: str, variant: str, players: int, seed: int,
               todo: list[Decision], workers: int, limits, valued) -> None:
    """Value ``todo`` on ``workers`` reviewer processes, each a thread's; this thread checks
    each answer and hands it to ``valued(decision, data)`` as it comes (one writer)."""
    from dataclasses import replace

    from ..sandbox import Limits, make_bot

    limits = replace(limits or Limits(), move_s=REVIEW_S, bank_s=REVIEW_S, cpu_s=10 ** 6)
    lanes = [todo[i::workers] for i in range(min(workers, len(todo)))]
    answers: queue.Queue = queue.Queue()
    stop = threading.Event()

    def lane(items: list[Decision]) -> None:
        bot = make_bot(entry, limits)
        d = items[0]
        try:
            for d in items:
                if stop.is_set():
                    return
                bot.start({"game": game, "variant": variant, "seat": d.seat,
                           "players": players,
                           "seed": keyed_seed(str(seed), "review", d.seat, d.step)})
                answers.put((d, bot.values(d.observation, d.legal)))
        except BotFault as fault:
            answers.put((d, ArenaError(f"reviewer {name} failed at step {d.step + 1}: "
                                       f"{fault.reason}")))
        except BaseException as e:  # noqa: BLE001 - told to the storing thread
            answers.put((d, e))
        finally:
            bot.close()

    threads = [threading.Thread(target=lane, args=(items,), daemon=True) for items in lanes]
    for t in threads:
        t.start()
    try:
        for _ in range(len(todo)):
            d, answer = answers.get()
            if isinstance(answer, BaseException):
                raise answer
            data = {"phase": d.phase, "taken": d.taken,
                    "values": checked_values(answer, d.legal, name)}
            valued(d, json.loads(db.dumps(data)))  # as it is stored, and read back
    finally:
        stop.set()
        for t in threads:
            t.join()


def review_position(registry, game, variant: str, state, taken, reviewer: str | None = None,
                    seed: int = 0) -> dict:
    """The judged decision (:func:`judged`) of the seat to move in ``state``, which took
    ``taken``: the reviewer sees that seat's observation and legal actions, nothing else
    (a position's review, for puzzles and tests; ``seed`` keys the reviewer's as a match's
    deal seed does)."""
    seat, legal = state.to_move, list(state.legal_actions())
    if taken not in legal:
        raise ArenaError(f"{taken!r} is not a legal action here")
    observation = state.observation(seat)
    name = reviewer_name(registry, game.name, reviewer)
    decision = Decision(0, seat, phase(game.name, observation, taken), observation, legal,
                        taken)
    out = {}
    _value_all(registry.bot(name, game.name), name, game.name, variant,
               observation["players"], seed, [decision], 1, None,
               lambda d, data: out.update(data))
    return judged(game.name, {"step": 0, "seat": seat, **out})


def stored_review(engine, game: str, match_id: int) -> dict | None:
    """What a replay page marks its steps with: the stored review of the match with the most
    decisions (of several reviewers, the first by name among those), each decision judged
    and without its values - ``{"reviewer", "thresholds", "decisions": [{"step", "seat",
    "phase", "taken", "best", "loss", "se", "class"}]}`` - or None if none is stored."""
    stored = db.match_reviews(engine, match_id)
    if not stored:
        return None
    reviewer = min(stored, key=lambda r: (-len(stored[r]), r))
    decided = [judged(game, {"step": step + 1, "seat": seat, **data})
               for seat, step, data in stored[reviewer]]
    return {"reviewer": reviewer,
            "thresholds": dict(zip(CLASSES[2:], thresholds(game), strict=True)),
            "decisions": [{k: v for k, v in d.items() if k != "values"} for d in decided]}


def sample(engine, season: str, bot: str, count: int, seed: int = 0) -> list[tuple[int, int]]:
    """``(match id, seat)`` of up to ``count`` played matches of ``bot`` in ``season``, drawn
    without replacement by ``seed`` (the same sample every time), in the season's order."""
    rows = db.bot_matches(engine, db.get_season(engine, season).id, bot)
    if not rows:
        raise ArenaError(f"bot {bot!r} played no match in season {season!r}")
    chosen = sorted(random.Random(seed).sample(range(len(rows)), min(count, len(rows))))
    return [rows[i] for i in chosen]


def interval(per_match: list[tuple[float, int]]) -> tuple[float, float]:
    """The mean loss per decision over matches ``(total loss, decisions)`` and its 95 %
    half-width: a ratio estimate with matches as the units (the decisions of one match
    share its cards, so they are not independent)."""
    n = len(per_match)
    losses = sum(loss for loss, _ in per_match)
    count = sum(k for _, k in per_match)
    if not count:
        return 0.0, 0.0
    mean = losses / count
    if n < 2:
        return mean, math.inf
    kbar = count / n
    var = sum((loss - mean * k) ** 2 for loss, k in per_match) / (n - 1) / (n * kbar ** 2)
    return mean, 1.96 * math.sqrt(var)


def season_figures(reviewed: list[Review]) -> dict:
    """A bot's reviews over a sample of matches: :func:`summarise` of every decision, with
    the 95 % ``interval`` (half-width) of each mean loss, matches as the units."""
    every = [d for r in reviewed for d in r.decisions]
    out = {"reviewer": reviewed[0].reviewer if reviewed else None,
           "matches": [r.match for r in reviewed], **summarise(every)}

    def spread(phase: str | None) -> float:
        per_match = [(sum(d["estimate"] for d in ds), len(ds)) for ds in (
            [d for d in r.decisions if phase is None or d["phase"] == phase]
            for r in reviewed)]
        return interval(per_match)[1]

    out["interval"] = spread(None)
    for phase, figures in out["phases"].items():
        figures["interval"] = spread(phase)
    # the worst decisions, each with its match and step (a link: match-ID.html#step=N)
    marked = [(r.match, d) for r in reviewed for d in r.decisions
              if d["class"] not in ("best", "good")]
    marked.sort(key=lambda md: (-md[1]["loss"], md[0], md[1]["step"]))
    out["worst"] = [{"match": m, "step": d["step"], "seat": d["seat"], "phase": d["phase"],
                     "taken": d["taken"], "best": d["best"], "loss": d["loss"], "se": d["se"],
                     "class": d["class"]} for m, d in marked[:WORST]]
    return out


#: the worst decisions ``review --season`` lists
WORST = 10
