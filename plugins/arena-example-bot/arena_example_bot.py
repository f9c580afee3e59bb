"""``lowball``: an example third-party bot plugin for arena.

It plays the first legal action - Vändtia lists plays from the lowest rank up, so this sheds
low cards first - except that it burns a pile of five or more cards with a 10 when it can.
"""

import arena


class Lowball:
    def start(self, info):
        self.seat = info["seat"]

    def act(self, observation, legal):
        if len(observation["pile"]) >= 5:
            for action in legal:
                if action.startswith("play 10"):
                    return action
        return legal[0]

    def end(self, result):
        pass


@arena.hookimpl
def register_bots(register):
    register("lowball", Lowball, games=["vandtia"])
