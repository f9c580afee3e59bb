"""``random``: a uniformly random legal action, from the seed the referee gives the bot."""

import random

import arena


class RandomBot:
    def __init__(self):
        self.rng = random.Random(0)

    def start(self, info):
        self.rng = random.Random(info["seed"])

    def act(self, observation, legal):
        return legal[self.rng.randrange(len(legal))]


@arena.hookimpl
def register_bots(register):
    register("random", RandomBot, games=["vandtia", "tractor", "cherki"], options={})
