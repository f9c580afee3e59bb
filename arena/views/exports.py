"""Matches and seasons as JSON, read back and checked: ``play --json``, ``replay --json``,
``season export`` and ``arena verify``.

A record holds everything needed to play a match again and check it: game, variant, the deal
seed, the seats, the result and every action with the seat that made it. A season export is
JSON lines: one ``season`` line (the definition with its secret and the bots' versions),
then one ``match`` line per stored match in fixture order. No timestamps, durations or
database ids appear, so identical seasons export identical bytes. The secret is there so a
season can be re-run (``--secret-from EXPORT``) and verified: keep exports where bots cannot
read them.
"""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path

from ..cards import PUBLIC_SECRET, seeding
from ..errors import ArenaError
from ..games import Result
from ..luck import match_luck
from ..referee import play_deal_seed

MIN_SECRET = 16  # characters of a secret given in a file


def dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def seated_actions(game, variant: str, players: int, deal_seed: int, actions: list,
                   deal: dict | None = None) -> list:
    """``[{"step": n, "seat": s, "action": a}, ...]``: who made each action (the N-th is
    step N, as review and the viewer number it), found by replaying them."""
    return _replay_seated(game, variant, players, deal_seed, actions, deal)[0]


def _replay_seated(game, variant: str, players: int, deal_seed: int, actions: list,
                   deal: dict | None = None):
    """The seated actions and the state they reach (IllegalAction if one does not fit)."""
    state = game.start(variant, players, deal_seed, deal)
    out = []
    for step, action in enumerate(actions, 1):
        out.append({"step": step, "seat": state.to_move, "action": action})
        state.apply(action)
    return out, state


def match_record(game, variant: str, deal_seed: int, seats: list[str], result: dict,
                 actions: list, deal: dict | None = None, **extra) -> dict:
    """A match as JSON; ``deal``: the explicit deal it played (a deal book's), kept as
    ``"deal"`` - without it the deal seed deals the cards."""
    return {**extra, "game": game.name, "variant": variant, "deal_seed": deal_seed,
            **({"deal": deal} if deal is not None else {}),
            "seats": list(seats), "result": result,
            "actions": seated_actions(game, variant, len(seats), deal_seed, actions, deal)}


def stored_result(match, seats) -> dict:
    """A stored match's result (``db``'s match row and its seat rows) as ``Result.to_json``
    gives one."""
    return {"ranks": [s.rank for s in seats], "scores": [s.score for s in seats],
            "reason": match.reason, "moves": match.moves, "faults": [s.fault for s in seats]}


def stored_match_record(game, season, match, seats) -> dict:
    """A stored match (``db.get_match``'s rows) as ``arena replay --json`` gives it - here,
    or from a server's ``/api/match/ID`` - with the logs ``seats`` hold."""
    from ..leagues.league import match_deal

    record = match_record(game, season.variant, match.seed, [s.bot for s in seats],
                          stored_result(match, seats), json.loads(match.replay),
                          match_deal(season, match.fixture), type="match",
                          match=match.id, season=season.name, fixture=match.fixture)
    record["logs"] = {str(s.seat): s.log for s in seats if s.log}
    return record


def play_record(game, match, seed: int, secret: str) -> dict:
    """``arena play --json``: the match with the seed and secret its deal was keyed by."""
    return {"type": "play", "seed": seed, "seeding": seeding(secret), "secret": secret,
            **match_record(game, match.variant, match.seed, match.players,
                           match.result.to_json(), match.actions)}


def read_secret(path: str) -> str:
    """The secret in file ``path``: a ``play --json`` record, a season export (its first
    line) or a file holding just the secret; ArenaError if there is none."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise ArenaError(f"cannot read a secret from {path}: "
                         f"{getattr(e, 'strerror', None) or e}") from None
    try:
        first = json.loads(text.lstrip().partition("\n")[0] or "null")
    except json.JSONDecodeError:
        try:
            first = json.loads(text)
        except json.JSONDecodeError:
            first = None
    if isinstance(first, dict):
        secret = first.get("secret")
        if not isinstance(secret, str):
            raise ArenaError(f"{path} holds no secret (a season made before secrets?)")
        return secret
    secret = text.strip()
    if secret != PUBLIC_SECRET and len(secret) < MIN_SECRET:
        raise ArenaError(f"the secret in {path} is shorter than {MIN_SECRET} characters "
                         "(make one: python -c 'import secrets; print(secrets.token_hex(32))')")
    return secret


def season_lines(engine, registry, row):
    """The lines of ``season export``: the season, then its matches in fixture order."""
    from .. import db
    from ..leagues.league import definition

    options = json.loads(row.options)
    versions = db.bot_versions(engine, row.game, options.get("code_hashes", {}))
    yield {"type": "season", "name": row.name, "game": row.game, "variant": row.variant,
           "players": row.players, "bots": json.loads(row.bots), "rounds": row.rounds,
           "seed": row.seed, "seeding": seeding(row.secret), "secret": row.secret,
           "fixtures": row.fixtures, "status": row.status, "options": options,
           "versions": versions}
    game = registry.game(row.game)
    fixtures = {fx.index: fx for fx in _fixtures(definition(row))}
    for match, seats in db.season_matches(engine, row.id):
        names = [s.bot for s in seats]
        fx = fixtures.get(match.fixture)
        line = match_record(game, row.variant, match.seed, names, stored_result(match, seats),
                            json.loads(match.replay), fx and fx.explicit, type="match",
                            fixture=match.fixture, round=fx and fx.round)
        line["versions"] = [versions.get(n, {}).get("version") for n in names]
        logs = {str(s.seat): s.log for s in seats if s.log}
        if logs:
            line["logs"] = logs
        if all(s.luck is not None for s in seats) and seats:
            line["luck"] = [s.luck for s in seats]
        yield line


def _fixtures(defn):
    from ..leagues.scheduler import fixtures

    return fixtures(defn)


def fixture_seed(defn, index: int) -> int | None:
    """The deal seed of fixture ``index`` of a season (None past its end)."""
    fx = next(islice(_fixtures(defn), index, None), None)
    return None if fx is None else fx.seed


def _result_of(state, faults: list) -> Result:
    for seat, fault in enumerate(faults):
        if fault:
            state.forfeit(seat)
            break
    return state.result()


def _actions(record: dict) -> list:
    """A record's actions, bare (a season export's carry their seats)."""
    return [a["action"] if isinstance(a, dict) else a for a in record["actions"]]


def verify_match(game, record: dict) -> str | None:
    """Why ``record`` does not reproduce (None when it does): its actions, replayed from its
    deal seed, must be legal, made by the seats it names, and end in its result."""
    if record["result"]["reason"] == "suspended":
        return None  # not played: a bot was suspended
    variant, seats = record["variant"], record["seats"]
    actions = _actions(record)
    try:
        seated, state = _replay_seated(game, variant, len(seats), record["deal_seed"], actions,
                                       record.get("deal"))
    except (ValueError, KeyError) as e:
        return f"an action does not replay ({e})"
    if any(isinstance(a, dict) and a["seat"] != b["seat"]
           for a, b in zip(record["actions"], seated, strict=True)):
        return "an action was made by another seat"
    stored = record["result"]
    again = _result_of(state, stored["faults"])
    if (again.ranks, again.scores, again.reason, again.moves) != (
            stored["ranks"], stored["scores"], stored["reason"], stored["moves"]):
        return "the replay ends in another result"
    return None


def verify(registry, lines) -> tuple[int, list[str]]:
    """Check a ``play --json`` record or a season export: every deal seed follows from the
    seed and secret given, every match replays to its stored result, and a match's luck
    (``--adjust luck``) is what ``arena.luck`` computes from its deal and actions again.
    Returns the number of matches checked and the problems found (one line each)."""
    from ..leagues.scheduler import SeasonDef

    problems, checked, season = [], 0, None
    expected: dict[int, int] = {}
    for number, line in enumerate(lines, 1):
        kind = line.get("type")
        if kind == "season":
            season = line
            if line.get("secret") is not None:
                defn = SeasonDef.stored(line["name"], line["game"], line["variant"],
                                        line["players"], line["bots"], line["rounds"],
                                        line["seed"], line["options"], line["secret"])
                expected = {fx.index: (fx.seed, fx.explicit) for fx in _fixtures(defn)}
            continue
        if kind not in ("match", "play"):
            raise ArenaError(f"line {number}: not a match record (type {kind!r})")
        game = registry.game(line["game"])
        where = f"fixture {line['fixture']}" if kind == "match" else "the match"
        if kind == "play" and line.get("secret") is not None and line["deal_seed"] != (
                play_deal_seed(line["secret"], line["seed"])):
            problems.append(f"{where}: its deal seed does not follow from its seed and secret")
        if kind == "match" and season is not None and season.get("secret") is not None and (
                expected.get(line["fixture"], (None,))[0] != line["deal_seed"]):
            problems.append(f"{where}: its deal seed does not follow from the season's seed "
                            "and secret")
        if kind == "match" and season is not None and season.get("secret") is not None and (
                expected.get(line["fixture"], (0, None))[1] != line.get("deal")):
            problems.append(f"{where}: its deal is not the one the season's deal book gives it")
        why = verify_match(game, line)
        if why:
            problems.append(f"{where}: {why}")
        elif "luck" in line and (season is None or season.get("secret") is None):
            problems.append(f"{where}: its luck cannot be checked without the season's secret")
        elif "luck" in line and line["result"]["reason"] != "suspended" and line["luck"] != (
                match_luck(game, line["variant"], len(line["seats"]), line["deal_seed"],
                           _actions(line), season["secret"], deal=line.get("deal"))):
            problems.append(f"{where}: its luck does not follow from its deal and actions")
        checked += 1
    return checked, problems


def read_lines(path: str):
    """The JSON records in ``path``: one object (``play --json``) or JSON lines."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise ArenaError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    try:
        whole = json.loads(text)
        return [whole] if isinstance(whole, dict) else _not_records(path)
    except json.JSONDecodeError:
        pass
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            raise ArenaError(f"{path}, line {number}: not JSON") from None
        if not isinstance(record, dict):
            _not_records(path)
        out.append(record)
    return out


def _not_records(path: str):
    raise ArenaError(f"{path} holds no match records (expected play --json or a season "
                     "export)")
