"""A Gymnasium environment of one seat of a game, the other seats arena bots played
in-process (any installed Python bot, with options: ``"ismcts:iterations=50"``).

    from arena.envs.single import SeatEnv
    env = SeatEnv("vandtia", "cardems", opponents=["greedy"])
    obs, info = env.reset(seed=7)         # the deal of 'arena play --seed 7 --public-seed'
    while True:
        action = env.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break

Observations and actions are those of ``arena.envs.aec`` (``{"observation": vector,
"action_mask": mask}``, an index of the game's action space). The episode ends with the
game; the reward is then the seat's score (``Result.scores``), 0 before. The opponents are
started as the referee starts them, their seeds keyed by the secret and the deal (``reset
(options={"secret": K})``; default the public secret), so an episode whose seat plays the
moves a bot played in ``arena play --seed S`` under K is that very game. A move of this seat
with one legal action is a step too (its mask has one action). An index the mask does not
allow forfeits the game, as an illegal answer does in the referee: the seat takes last
place, the episode ends, and ``info["illegal"]`` holds the index. Until then ``info`` holds
``legal`` and ``legal_indices``, as ``arena.envs.aec`` gives them to the agent to move.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from ..cards import PUBLIC_SECRET, keyed_seed
from ..errors import ArenaError
from ..referee import play_deal_seed
from .encoding import encoding


class SeatEnv(gymnasium.Env):
    metadata = {"render_modes": []}

    def __init__(self, game: str, variant: str | None = None, players: int | None = None,
                 seat: int = 0, opponents=("random",)):
        from ..plugins import Registry

        registry = Registry()
        self.game = registry.game(game)
        variant = self.game.check(variant)
        players = players or self.game.variants[variant][0]
        self.variant = self.game.check(variant, players)
        self.players, self.seat = players, seat
        if seat not in range(players):
            raise ArenaError(f"seat {seat} is not a seat of a {players}-seat table")
        names = list(opponents)
        if len(names) == 1:
            names = names * (players - 1)
        if len(names) != players - 1:
            raise ArenaError(f"name one opponent, or one for each of the {players - 1} other "
                             "seats")
        from ..sandbox.bot import local_bot

        others = iter(names)
        self.names = [None if p == seat else next(others) for p in range(players)]
        self.bots = {p: local_bot(registry.bot(name, self.game.name))
                     for p, name in enumerate(self.names) if name is not None}
        self.encoding = encoding(self.game.name, self.variant, players)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoding.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.encoding.actions,), np.int8)})
        self.action_space = spaces.Discrete(self.encoding.actions)
        self.state = None
        self.actions: list[str] = []
        self._known = None  # (the legal list, its actions' indices), as the last mask had

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**31))
        secret = (options or {}).get("secret", PUBLIC_SECRET)
        deal_seed = play_deal_seed(secret, seed)
        self.action_space.seed(seed)
        self.state = self.game.new_state(self.variant, self.players, deal_seed)
        self.actions = []
        for p, bot in self.bots.items():  # as the referee starts them
            bot.start({"game": self.game.name, "variant": self.variant, "seat": p,
                       "players": self.players, "seed": keyed_seed(secret, "bot", deal_seed, p)})
        self._others()
        return self._observe(), self._info()

    def step(self, action):
        if self.state is None or self.state.is_over():
            raise ArenaError("the episode is over: reset() starts another")
        legal = self.state.legal_actions()
        if self._known is None or self._known[0] is not legal:
            self._observe()
        index = int(action)
        try:
            move = legal[self._known[1].index(index)]
        except ValueError:  # as the referee does with an illegal answer
            move = None
            self.state.forfeit(self.seat)
        else:
            self._apply(move)
            self._others()
        over = self.state.is_over()
        reward = float(self.state.result().scores[self.seat]) if over else 0.0
        if over:
            for bot in self.bots.values():
                bot.end(self.state.result().to_json())
        observation = self._observe()
        info = self._info()
        if move is None:
            info["illegal"] = index
        return observation, reward, over, False, info

    def _apply(self, move: str) -> None:
        self.actions.append(move)
        self.state.apply(move)

    def _others(self) -> None:
        """The bots move until it is this seat's turn, or the game is over (a seat with one
        legal action is not asked, as in the referee)."""
        state = self.state
        while not state.is_over() and state.to_move != self.seat:
            legal = state.legal_actions()
            if len(legal) == 1:
                self._apply(legal[0])
                continue
            seat = state.to_move
            action = self.bots[seat].act(state.observation(seat), list(legal))
            if action not in legal:
                raise ArenaError(f"opponent {self.names[seat]!r} answered {action!r}, not a "
                                 "legal action")
            self._apply(action)

    def _observe(self) -> dict:
        state = self.state
        vector, mask, indices = self.encoding.state_observation(state, self.seat)
        if indices is not None:  # kept for the step that follows
            self._known = (state.legal_actions(), indices)
        return {"observation": vector, "action_mask": mask}

    def _info(self) -> dict:
        if self.state.is_over():
            return {"result": self.state.result()}
        return {"legal": self.state.legal_actions(), "legal_indices": self._known[1]}
