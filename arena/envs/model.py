"""Model bots: a bot that is a trained network, its weights in a ``.npz`` file, played with
numpy alone (no training library) over the encoding it was trained on
(``arena.envs.encoding``).

The file holds ``meta`` (JSON text: ``game``, ``variant``, ``players``) and the layers of a
multilayer perceptron, ``w0``, ``b0``, ``w1``, ``b1``, ...: ``w_i`` of shape ``(inputs,
outputs)``, ReLU between layers, the last layer's outputs one score per action of the
encoding. A position's move is its legal action of highest score (the mask keeps the
others out); positions asked together (``act_batch``, protocol 2) go through the network
in one matrix product per layer.

A bot file beside its weights (both submitted together, as a folder)::

    import arena
    from arena.envs.model import model_bot

    Bot = model_bot(__file__.replace(".py", ".npz"))

    @arena.hookimpl
    def register_bots(register):
        register("mymodel", Bot, games=[Bot.model.game])
"""

from __future__ import annotations

import json

import numpy as np

from ..errors import ArenaError
from .encoding import encoding


class Model:
    """The network of a ``.npz`` file, and the encoding it reads."""

    def __init__(self, path: str):
        try:
            with np.load(path) as data:
                meta = json.loads(str(data["meta"]))
                layers = []
                while f"w{len(layers)}" in data:
                    k = len(layers)
                    layers.append((np.asarray(data[f"w{k}"], dtype=np.float32),
                                   np.asarray(data[f"b{k}"], dtype=np.float32)))
        except (OSError, KeyError, ValueError) as e:
            raise ArenaError(f"not a model file: {path}: {e}") from None
        self.game, self.variant, self.players = meta["game"], meta["variant"], meta["players"]
        self.encoding = encoding(self.game, self.variant, self.players)
        self._encodings = {(self.variant, self.players): self.encoding}
        self.layers = layers
        if not layers or layers[0][0].shape[0] != self.encoding.size or \
                layers[-1][0].shape[1] != self.encoding.actions:
            raise ArenaError(f"model {path}: its layers do not take {self.encoding.size} inputs "
                             f"to {self.encoding.actions} action scores")

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """One row of action scores per row of encoded observations."""
        x = vectors
        for k, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if k < len(self.layers) - 1:
                x = np.maximum(x, 0.0)
        return x

    def _encoding(self, o: dict):
        """The encoding of an observation's own variant and table: any whose vector and
        action space are the model's (a model of a two-seat table plays every variant at
        two seats)."""
        key = (o.get("variant", self.variant), o.get("players", self.players))
        enc = self._encodings.get(key)
        if enc is None:
            enc = encoding(self.game, *key)
            if (enc.size, enc.actions) != (self.encoding.size, self.encoding.actions):
                raise ArenaError(f"this model plays {self.game} tables of "
                                 f"{self.players} seats, not {key[1]}")
            self._encodings[key] = enc
        return enc

    def choose(self, requests: list) -> list:
        """The move of each ``(observation, legal)``: its legal action of highest score."""
        encs = [self._encoding(o) for o, _ in requests]
        indices = [enc.indices(o, legal) for enc, (o, legal) in zip(encs, requests,
                                                                     strict=True)]
        scores = self.scores(np.stack([enc.observe(o) for enc, (o, _) in zip(
            encs, requests, strict=True)]))
        return [legal[int(np.argmax(row[ix]))]
                for (_, legal), ix, row in zip(requests, indices, scores, strict=True)]


def save(path: str, game: str, variant: str, players: int, layers: list) -> None:
    """Write a model file: ``layers`` a list of ``(w, b)``."""
    arrays = {"meta": np.array(json.dumps({"game": game, "variant": variant,
                                           "players": players}))}
    for k, (w, b) in enumerate(layers):
        arrays[f"w{k}"], arrays[f"b{k}"] = np.asarray(w, np.float32), np.asarray(b, np.float32)
    np.savez(path, **arrays)


def model_bot(path: str) -> type:
    """A bot class that plays the model in ``path`` (``Bot.model``): ``act`` for one
    position, ``act_batch`` for many at once."""
    model = Model(path)

    class ModelBot:
        def act(self, observation, legal):
            return model.choose([(observation, legal)])[0]

        @staticmethod
        def act_batch(requests):
            return model.choose(requests)

    ModelBot.model = model
    return ModelBot
