"""Leagues: seasons, matches and ladders over the sandboxed bots, rated and stored.

* ``scheduler``: a season's fixtures (a pure function of its seed and secret) and the
  batches that play them, in this process, in a process pool or on a Dask cluster.
* ``league``: running, resuming and verifying a season; leaderboards from its results.
* ``ratings``: TrueSkill, game by game in the order of the schedule.
* ``match``: head-to-head and field matches on duplicate deals, their Elo and SPRT.
* ``stats``: the statistics under them (pentanomial tables, intervals, SPRT, LOS).
* ``ladder``: a rolling league of the latest versions of submitted bots.
* ``store``: the versioned bot store (submit, withdraw, keys).
* ``inbox``: the folder a ladder takes submissions from.
* ``conformance``: the checks a bot passes before it is stored (``arena check-bot``).
* ``review``: every decision of a stored match valued by a sandboxed reviewer (``arena
  review``), stored per decision.

Layers call downward only: this package uses the trust line (``arena.sandbox``), the
registry (``arena.plugins``), the database (``arena.db``) and what is beneath them; the
views and the command line use this package, never the other way round.
"""
