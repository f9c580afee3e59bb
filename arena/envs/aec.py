"""A PettingZoo AEC environment of a game: every seat an agent (``seat_0`` ...), taking
turns as the game says, each observing ``{"observation": vector, "action_mask": mask}``
(``arena.envs.encoding``) and acting with an index of the game's action space.

    from arena.envs.aec import env
    e = env("vandtia", "cardems", 2)
    e.reset(seed=7)                      # the deal of 'arena play --seed 7 --public-seed'
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else \\
            e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Every move is a step, a forced one too (its mask has one action). At the end each agent's
reward is its score (``Result.scores``: in Vändtia the seats it beat less those that beat
it); the agent to move's ``infos[agent]`` holds ``legal`` (the legal actions as strings, a
tuple) and ``legal_indices`` (their indices, a list in the same order: the mask's ones,
for a policy that picks among them without ``mask.nonzero()``), and at the end every
agent's holds the ``result``. The observation of the agent to move is made once per move
(``observe`` gives it the same arrays until the move). ``reset(options={"secret": K})``
deals under secret K (default: the public secret, as ``--public-seed``). An index the mask
does not allow forfeits the game, as an illegal answer does in the referee: that seat takes
last place, and its ``info`` holds ``illegal``, the index.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..cards import PUBLIC_SECRET
from ..referee import play_deal_seed
from .encoding import encoding


class ArenaAEC(AECEnv):
    metadata = {"name": "arena", "render_modes": [], "is_parallelizable": False}

    def __init__(self, game: str, variant: str | None = None, players: int | None = None):
        from ..plugins import Registry

        super().__init__()
        self.game = Registry().game(game)
        variant = self.game.check(variant)
        players = players or self.game.variants[variant][0]
        self.variant = self.game.check(variant, players)
        self.encoding = encoding(self.game.name, self.variant, players)
        self._read = self.encoding.state_observation
        self.metadata = {**self.metadata, "name": f"arena_{game}_{self.variant}_{players}"}
        self.possible_agents = [f"seat_{p}" for p in range(players)]
        self._seats = {agent: p for p, agent in enumerate(self.possible_agents)}
        self._spaces = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoding.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.encoding.actions,), np.int8)})
        self._action = spaces.Discrete(self.encoding.actions)
        self.state_ = None
        self._known = None
        self.secret = PUBLIC_SECRET
        self.deal_seed = None

    def observation_space(self, agent):
        return self._spaces

    def action_space(self, agent):
        return self._action

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is None:
            seed = int(np.random.default_rng().integers(2**31))
        self.secret = (options or {}).get("secret", PUBLIC_SECRET)
        self.deal_seed = play_deal_seed(self.secret, seed)
        self._action.seed(seed)
        self.state_ = self.game.new_state(self.variant, len(self.possible_agents),
                                          self.deal_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.actions: list[str] = []  # as the referee records them
        self._known = None  # (the legal list, its actions' indices, the mover's observation)
        self._turn()

    def _turn(self) -> None:
        """Point ``agent_selection`` at the seat to move, or end the episode."""
        state = self.state_
        if state.is_over():
            result = state.result()
            for p, agent in enumerate(self.possible_agents):
                self.rewards[agent] = result.scores[p]
                self.terminations[agent] = True
                self.infos[agent] = {"result": result}
            self.agent_selection = self.agents[0]
            self._accumulate_rewards()
            return
        agent = self.agent_selection = self.possible_agents[state.to_move]
        legal = state.legal_actions()
        vector, mask, indices = self._read(state, state.to_move)
        # kept for the step that follows, and for observe, by the legal list itself (the
        # same object until the next move)
        self._known = (legal, indices, {"observation": vector, "action_mask": mask})
        self.infos[agent] = {"legal": legal, "legal_indices": indices}

    def observe(self, agent: str) -> dict:
        state = self.state_
        seat = self._seats[agent]
        known = self._known
        if (known is not None and seat == state.to_move and not state.is_over()
                and known[0] is state.legal_actions()):
            return known[2]
        vector, mask, indices = self._read(state, seat)
        if indices is not None:
            self._known = (state.legal_actions(), indices,
                           {"observation": vector, "action_mask": mask})
        return {"observation": vector, "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state_
        legal = state.legal_actions()
        if self._known is None or self._known[0] is not legal:
            self.observe(agent)
        index = int(action)
        try:
            move = legal[self._known[1].index(index)]
        except ValueError:  # as the referee does with an illegal answer
            move = None
            state.forfeit(state.to_move)
        else:
            self.actions.append(move)
            state.apply(move)
        # (an agent's cumulative reward, which PettingZoo clears as it steps, is 0 until the
        # end: the rewards come then only, in ``_turn``)
        self._turn()
        if move is None:
            self.infos[agent]["illegal"] = index

    def render(self):
        return None

    def close(self) -> None:
        pass


def env(game: str, variant: str | None = None, players: int | None = None) -> ArenaAEC:
    """An AEC environment of ``game`` (its default variant and smallest table unless
    named)."""
    return ArenaAEC(game, variant, players)
