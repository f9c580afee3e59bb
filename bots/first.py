"""``first``: always the first legal action - a deterministic baseline for every game.

The engines list actions in a fixed order (Vändtia: plays from the lowest rank up, so it
sheds low cards first), so it needs no seed and never surprises: useful as a third seat for
Cherki, as a punching bag, or to check that a new bot beats something that does not think.
"""

import arena


class First:
    def act(self, observation, legal):
        return legal[0]


@arena.hookimpl
def register_bots(register):
    register("first", First, games=["vandtia", "tractor", "cherki"], options={})
