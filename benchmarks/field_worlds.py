"""What better worlds would buy ``ismcts`` at a Vändtia table of three or four: the same
search (sweeps at more than two seats, ``bots/ismcts.py``) fed three kinds of world, each
measured as ``arena match --field`` measures it (in-process, public seeds).

* ``sampled``: the game's own ``world()``, from the seat's observation - the bot as it is.
* ``hands``: the true deal, except the cards no seat has seen (the stock and every face-down
  card) reshuffled among their places in each world: every other seat's hand known exactly,
  as perfect inference from the others' play could at best tell.
* ``true``: the true state itself, the stock's order too: knowledge no player can have.

Each deal is played twice with ``greedy`` in every other seat: the candidate in seat
``deal % seats``, then ``greedy`` there; a pair scores ½ + (the candidate's place score -
greedy's) / 2, places scored as ``arena.leagues.match.seat_place`` does, and the Elo with
its 95 % interval comes from ``arena.leagues.stats``, as ``arena match`` gives it. Run:

    python benchmarks/field_worlds.py --variant swedish --seats 4 --deals 400 --worlds hands
"""

from __future__ import annotations

import argparse

from arena.games.vandtia import GAME
from arena.leagues import stats
from arena.leagues.match import seat_place
from arena.referee import play_match
from arena.sandbox.bot import PythonBot
from arena_bots.greedy import GreedyVandtia
from arena_bots.ismcts import ISMCTS


class Known:
    """Worlds from the true state of the match being played (``holder[0]``)."""

    name = "vandtia"

    def __init__(self, holder: list, hidden: bool):
        self.holder, self.hidden = holder, hidden

    def worlds(self, observation, rng):
        true = self.holder[0]
        places = [(None, i) for i in range(len(true.stock))] + [
            (p, i) for p, row in enumerate(true.facedown) for i in range(3)
            if row[i] is not None]  # where the cards nobody has seen lie
        cards = [true.stock[i] if p is None else true.facedown[p][i] for p, i in places]
        while True:
            world = true.copy()
            if self.hidden:  # those cards reshuffled among their places
                drawn = list(cards)
                rng.shuffle(drawn)
                for (p, i), card in zip(places, drawn, strict=True):
                    if p is None:
                        world.stock[i] = card
                    else:
                        world.facedown[p][i] = card
            yield world


def candidate(kind: str, options: dict, holder: list) -> PythonBot:
    bot = ISMCTS()
    start = bot.start

    def started(info):
        start({**info, "options": options})
        if kind != "sampled":
            bot.game = Known(holder, hidden=kind == "hands")

    bot.start = started
    return PythonBot(bot, "ismcts")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="swedish")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--worlds", choices=["sampled", "hands", "true"], default="sampled")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args()
    table: dict[float, int] = {}
    for deal in range(args.deals):
        seed, seat = args.seed + deal, deal % args.seats
        places = []
        for mine in (True, False):
            holder = [GAME.new_state(args.variant, args.seats, seed)]
            bots = [PythonBot(GreedyVandtia(), "greedy") for _ in range(args.seats)]
            if mine:
                bots[seat] = candidate(args.worlds, {"iterations": args.iterations}, holder)
            match, _ = play_match(GAME, args.variant, bots, seed, state=holder[0])
            places.append(seat_place(match.result.ranks, seat))
        pair = round(0.5 + (places[0] - places[1]) / 2, 9)
        table[pair] = table.get(pair, 0) + 1
    e = stats.estimate(table)
    better = sum(n for p, n in table.items() if p > 0.5)
    worse = sum(n for p, n in table.items() if p < 0.5)
    print(f"{args.variant}, {args.seats} seats, {args.deals} deals, worlds {args.worlds}, "
          f"{args.iterations} playouts: Elo {e.elo:+.1f} [{e.elo_low:+.1f}, {e.elo_high:+.1f}]"
          f" ({better} pairs better, {args.deals - better - worse} level, {worse} worse)")


if __name__ == "__main__":
    main()
