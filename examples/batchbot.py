"""A Vändtia bot that decides many positions at once: ``act_batch`` (protocol 2).

When arena plays several matches side by side (``season run --inflight K``), a bot process
is asked for up to K moves in one message; a bot class with a static ``act_batch`` gets
them all in one call, as a list of ``(observation, legal)`` pairs, and returns the actions
in order - one forward pass of a network for a batch of positions instead of one per move.

This one is a linear scorer: each legal action becomes a row of features, every row of the
batch is scored by one matrix product, and each position plays its best action. With numpy
(``pip install numpy``) the product is numpy's; without it, plain Python does the same sums.
It keeps no state between moves, as ``act_batch`` must not (a bot that does, keeps it on
its per-match object and decides in ``act``).

    arena --bots-dir examples play vandtia batchbot greedy --seed 1
    arena --bots-dir examples season run vandtia --bots batchbot,greedy,random --rounds 10
    arena --bots-dir examples bench --batch-bot batchbot
"""

import arena

try:
    import numpy
except ImportError:  # the bot still plays, a little slower
    numpy = None

RANKS = {"2": 15, "10": 16, "J": 11, "Q": 12, "K": 13, "A": 14}
#: weights of the features: [low rank, cards played, a 2 or a 10, pick up, draw, flip, swap]
WEIGHTS = [-1.0, 2.5, -8.0, -40.0, -5.0, -3.0, 0.0]


def features(action: str) -> list[float]:
    """What an action is, as numbers: the rank it plays (low first), how many cards,
    whether it spends a 2 or a 10, and its kind."""
    words = action.split()
    kind, cards = words[0], words[1:]
    rank = 0.0
    special = 0.0
    if kind in ("play", "swap") and cards:
        name = cards[0][:-1]
        rank = float(RANKS.get(name, int(name) if name.isdigit() else 0))
        special = 1.0 if name in ("2", "10") and kind == "play" else 0.0
    return [rank, float(len(cards)) if kind == "play" else 0.0, special,
            float(kind == "pickup"), float(kind == "draw"), float(kind == "flip"),
            float(kind == "swap")]


class BatchBot:
    @staticmethod
    def act_batch(requests):
        rows, owners = [], []
        for i, (_, legal) in enumerate(requests):
            for action in legal:
                rows.append(features(action))
                owners.append(i)
        if numpy is not None:
            scores = (numpy.asarray(rows) @ numpy.asarray(WEIGHTS)).tolist()
        else:
            scores = [sum(w * x for w, x in zip(WEIGHTS, row, strict=True)) for row in rows]
        best = [None] * len(requests)
        at = 0
        for i, (_, legal) in enumerate(requests):
            n = len(legal)
            mine = scores[at:at + n]
            best[i] = legal[mine.index(max(mine))]
            at += n
        return best

    def act(self, observation, legal):  # one position: the same decision
        return self.act_batch([(observation, legal)])[0]


@arena.hookimpl
def register_bots(register):
    register("batchbot", BatchBot, games=["vandtia"], options={})
