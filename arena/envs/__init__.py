"""Environments for training bots (docs/game-api.md, "Encodings"; optional extra ``rl``).

* :mod:`arena.envs.encoding`: a seat's observation as a fixed-size vector and its legal
  actions as indices of a fixed action space, with a mask - pure functions of what a bot is
  given, for the sandbox and the trainer alike (needs numpy);
* :mod:`arena.envs.aec`: a PettingZoo AEC environment of a game, every seat an agent;
* :mod:`arena.envs.single`: a Gymnasium environment of one seat, the others arena bots.

The environments play the engines in-process, as the referee does, and deal as ``arena
play`` deals: ``reset(seed=S)`` with secret K plays the deal of ``arena play --seed S``
under K. This layer stands beside the leagues: it calls the games, the referee and the
registry, and nothing above them.
"""
