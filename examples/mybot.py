"""``mybot``: a single-file bot to start from (``arena --bots-dir examples ...``).

It plays every game: a random legal action from its own seed, except that in Vändtia it
burns the pile with a 10 once the pile holds five cards or more. docs/writing-a-bot.md says
what ``start``, ``act`` and ``end`` receive.
"""

import random

import arena


class MyBot:
    def start(self, info):
        self.rng = random.Random(info["seed"])  # the bot's own seed: reproducible play

    def act(self, observation, legal):
        if observation.get("game") == "vandtia" and len(observation["pile"]) >= 5:
            burns = [a for a in legal if a.startswith("play 10")]
            if burns:
                return burns[0]
        return legal[self.rng.randrange(len(legal))]

    def end(self, result):
        pass


@arena.hookimpl
def register_bots(register):
    register("mybot", MyBot, games=["vandtia", "tractor", "cherki"])
