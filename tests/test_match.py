"""arena match: a candidate against a baseline on duplicate deals, with an SPRT."""

import json
import os
import signal
import subprocess
import sys
import urllib.request

import pytest
from test_league import wait_for_matches

from arena import db
from arena.bench import SECOND_RANDOM
from arena.errors import ArenaError
from arena.leagues import stats
from arena.leagues.match import SprtSpec, Tally


def arena(*args, db_path, bots_dir=None, **kw):
    env = {**os.environ, "ARENA_DB": f"sqlite:///{db_path}"}
    extra = ("--bots-dir", str(bots_dir)) if bots_dir else ()
    return subprocess.Popen([sys.executable, "-m", "arena", *extra, "match", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def result(proc) -> dict:
    out, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err
    return json.loads(out)


def test_a_tally_counts_pairs_in_order_and_ends_where_the_sprt_decides():
    tally = Tally("a", "b", 2, SprtSpec(0, 200))
    games = [(("a", "b"), [1, 2]), (("b", "a"), [1, 2]),  # one each: a pair of 1/2
             (("a", "b"), [1, 1]), (("b", "a"), [2, 1])]  # a draw and a win: 3/4
    assert [tally.add(*g) for g in games] == [False] * 4
    assert tally.pairs == [0, 0, 1, 1, 0] and tally.games == [2, 1, 1]
    ends = [tally.add(("a", "b"), [1, 2]) for _ in range(40)]
    assert True in ends
    at = ends.index(True)
    assert at % 2 == 1 and tally.decision == "H1"  # decided when a pair is complete
    expected = stats.sprt(stats.pentanomial(tally.pairs), 0, 200)
    assert tally.sprt() == expected and expected.llr >= expected.upper


def test_greedy_against_random_accepts_h1_in_a_few_hundred_pairs(tmp_path):
    out = result(arena("greedy", "random", "--sprt", "elo0=0,elo1=50", "--seed", "1",
                       "--format", "json", db_path=tmp_path / "m.db"))
    assert out["sprt"]["decision"] == "H1" and out["pairs"] < 300
    assert out["pairs"] * 2 == out["games"] == out["wins"] + out["draws"] + out["losses"]
    assert sum(out["pentanomial"]) == out["pairs"]
    # the interval lies above 0 (regularised: finite when every pair was won both ways too)
    assert out["elo_low"] > 0 and out["elo_high"] < 1200
    assert out["los"] > 0.99


def test_random_against_random_does_not_accept_h1(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "random2.py").write_text(SECOND_RANDOM)
    out = result(arena("random", "random-2", "--sprt", "elo0=0,elo1=50", "--seed", "2",
                       "--format", "json", db_path=tmp_path / "m.db",
                       bots_dir=tmp_path / "bots"))
    assert out["sprt"]["decision"] != "H1"


def test_the_default_name_tells_games_and_variants_apart(tmp_path):
    """The same bots and seed in two variants are two matches, each resumed by its own."""
    names = []
    for variant in ("cardems", "german"):
        out = result(arena("greedy", "random", "--variant", variant, "--seed", "5",
                           "--games", "8", "--format", "json", db_path=tmp_path / "m.db"))
        names.append(out["match"])
    assert names == ["match-vandtia-cardems-greedy-random-5",
                     "match-vandtia-german-greedy-random-5"]


MATCH = ("greedy", "first", "--sprt", "elo0=0,elo1=10", "--seed", "3", "--public-seed",
         "--games", "2000", "--format", "json", "--name", "m")


@pytest.mark.slow
def test_one_worker_and_two_give_the_same_figures(tmp_path):
    one = result(arena(*MATCH, "--workers", "1", db_path=tmp_path / "one.db"))
    two = result(arena(*MATCH, "--workers", "2", db_path=tmp_path / "two.db"))
    assert one == two
    assert one["sprt"]["decision"] == "H1" and 20 < one["pairs"] < 1000  # stopped early


@pytest.mark.soak
@pytest.mark.serial
@pytest.mark.slow
def test_a_match_killed_with_sigkill_resumes_to_the_same_figures_at_the_same_pair(tmp_path):
    whole = result(arena(*MATCH, "--workers", "2", db_path=tmp_path / "whole.db"))
    killed = tmp_path / "killed.db"
    stored = 0
    for more in (1, 15):
        proc = arena(*MATCH, "--workers", "2", db_path=killed, start_new_session=True)
        stored = wait_for_matches(killed, stored + more, proc)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        assert stored < 2 * whole["pairs"], "killed before the SPRT decided"
    again = result(arena(*MATCH, db_path=killed))
    assert again == whole
    stored_games = subprocess.run(
        [sys.executable, "-m", "arena", "--db", f"sqlite:///{killed}", "season", "list"],
        capture_output=True, text=True, check=True).stdout
    assert f"{whole['games']}/{whole['games']}" in stored_games  # nothing kept past the stop


@pytest.mark.parametrize("args, message", [
    (("greedy", "nosuch"), "unknown bot 'nosuch'"),
    (("greedy", "greedy"), "two different bots"),
    (("greedy", "random", "--sprt", "elo0=5,elo1=5"), "elo1 must be greater than elo0"),
    (("greedy", "random", "--sprt", "elo0=0,elo1=5,alpha=1.5"), "strictly between 0 and 1"),
    (("greedy", "random", "--sprt", "elo1=5"), "needs elo0= and elo1="),
    (("greedy", "random", "--sprt", "elo0=0,elo1=x"), "must be a number"),
    (("greedy", "random", "--game", "cherki"), "a match needs --field"),
    (("greedy", "random", "--game", "cherki", "--field", "random"), "a field is 2 bots, not 1"),
    (("greedy", "random", "--game", "tractor", "--field", "random,random,random"), "teams"),
])
def test_bad_input_is_one_line_and_exit_status_2(tmp_path, args, message):
    proc = arena(*args, db_path=tmp_path / "m.db")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_a_tractor_match_pairs_each_deal_with_the_teams_cards_swapped(tmp_path):
    out = result(arena("greedy", "random", "--game", "tractor", "--variant", "deal",
                       "--games", "8", "--seed", "1", "--format", "json",
                       db_path=tmp_path / "m.db"))
    assert out["pairs"] == 4 and out["games"] == 8 and out["sprt"] is None


@pytest.mark.slow
def test_a_gauntlet_plays_one_match_against_each_opponent(tmp_path):
    env = {**os.environ, "ARENA_DB": f"sqlite:///{tmp_path}/g.db"}
    run = subprocess.run([sys.executable, "-m", "arena", "gauntlet", "greedy", "--against",
                          "random,first", "--games", "20", "--seed", "4", "--format", "json"],
                         env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert [(m["candidate"], m["baseline"], m["pairs"]) for m in out] == [
        ("greedy", "random", 10), ("greedy", "first", 10)]
    assert [m["match"] for m in out] == ["gauntlet-vandtia-cardems-greedy-4-random",
                                      "gauntlet-vandtia-cardems-greedy-4-first"]
    table = subprocess.run([sys.executable, "-m", "arena", "gauntlet", "greedy", "--against",
                            "random,first", "--games", "20", "--seed", "4"],
                           env={**env, "COLUMNS": "80"}, capture_output=True, text=True,
                           timeout=900)
    assert table.returncode == 0, table.stderr  # the same gauntlet again: read back
    assert "vs random: 10 pairs" in table.stdout and "first" in table.stdout.splitlines()[-1]


def test_a_field_match_plays_each_deal_in_every_seat_for_both_bots_beside_the_same_field(
        tmp_path):
    """Cherki: the candidate and the baseline take turns in one seat on the same cards, the
    field in the others; a pair scores ½ + (candidate's place score - baseline's) / 2."""
    out = result(arena("greedy", "random", "--game", "cherki", "--field", "random,first",
                       "--games", "12", "--seed", "5", "--format", "json",
                       db_path=tmp_path / "m.db"))
    assert out["pairs"] == 6 and out["pentanomial"] is None
    engine = db.connect(f"sqlite:///{tmp_path}/m.db")
    row = db.get_season(engine, out["match"])
    stored = list(db.season_results(engine, row.id))
    assert len(stored) == 12
    table: dict[float, int] = {}
    for (_, seed_a, a, ranks_a, _, _), (_, seed_b, b, ranks_b, _, _) in zip(
            stored[::2], stored[1::2], strict=True):
        assert seed_a == seed_b  # the same cards
        [seat] = [i for i in range(3) if a[i] != b[i]]
        assert (a[seat], b[seat]) == ("greedy", "random")
        assert [x for i, x in enumerate(a) if i != seat] == ["random", "first"]  # the field

        def place(ranks, seat=seat):
            return (sum(r > ranks[seat] for r in ranks)
                    + 0.5 * (ranks.count(ranks[seat]) - 1)) / 2

        pair = round(0.5 + (place(ranks_a) - place(ranks_b)) / 2, 9)
        table[pair] = table.get(pair, 0) + 1
    assert {float(k): v for k, v in out["pair_scores"].items()} == table
    assert out["score"] == pytest.approx(stats.estimate(table).score, abs=1e-6)
    assert {i for (_, _, a, _, _, _), (_, _, b, _, _, _) in zip(stored[::2], stored[1::2],
                                                               strict=True)
            for i in range(3) if a[i] != b[i]} == {0, 1, 2}  # every seat taken in turn


LUCK = ("greedy", "first", "--adjust", "luck", "--seed", "4", "--public-seed", "--games",
        "60", "--format", "json", "--name", "m", "--inflight", "4")


@pytest.mark.soak
@pytest.mark.serial
@pytest.mark.slow
def test_a_luck_adjusted_match_is_the_same_with_one_or_two_workers_and_after_sigkill(tmp_path):
    """Each match's luck is computed where it is played, from its deal, its actions and the
    secret: played on two workers, killed with -9 and resumed on one, the figures are those
    of a whole run on two; an export of the match verifies - its luck recomputed - until a
    luck is altered."""
    whole = result(arena(*LUCK, "--workers", "2", db_path=tmp_path / "whole.db"))
    assert whole["adjust"] == "luck" and whole["pairs"] == 30
    assert whole["raw"]["score"] != whole["score"]
    assert whole["raw"]["elo_low"] < whole["elo"] < whole["raw"]["elo_high"]
    killed = tmp_path / "killed.db"
    proc = arena(*LUCK, "--workers", "2", db_path=killed, start_new_session=True)
    stored = wait_for_matches(killed, 1, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert stored < 60
    # resumed on one worker: the rest played one at a time, the same figures to the bit
    assert result(arena(*LUCK, "--workers", "1", db_path=killed)) == whole

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{killed}",
                               *args], capture_output=True, text=True)

    export = tmp_path / "m.jsonl"
    export.write_text(cli("season", "export", "m").stdout)
    lines = [json.loads(line) for line in export.read_text().splitlines()]
    assert all(len(line["luck"]) == 2 for line in lines[1:])
    checked = cli("verify", str(export))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    lines[5]["luck"][0] += 1e-9
    export.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    checked = cli("verify", str(export))
    assert checked.returncode != 0
    assert "its luck does not follow from its deal and actions" in checked.stdout + checked.stderr


def test_the_json_figures_are_not_rounded_before_a_page_rounds_them():
    """One better deal and two worse of three: the regularised score is 33.34998 %, which
    shows as 33.3 % - not 33.4 %, as it would after rounding to six places first."""
    tally = Tally("human:Ada", "greedy", field=True)
    for mine, theirs in [([2, 1], [1, 2]), ([1, 2], [2, 1]), ([1, 2], [2, 1])]:
        tally.add(["random", "human:Ada"], mine)
        tally.add(["random", "greedy"], theirs)
    figures = tally.to_json()
    assert figures["score"] == stats.estimate({1.0: 1, 0.0: 2}).score
    assert f"{100 * figures['score']:.1f}" == "33.3"


def _cli(*args, db_path, bots_dir=None) -> subprocess.CompletedProcess:
    extra = ("--bots-dir", str(bots_dir)) if bots_dir else ()
    return subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{db_path}",
                           *extra, *args], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "COLUMNS": "200"})


def test_a_finished_match_is_never_reported_for_code_it_was_not_played_with(tmp_path):
    """The same command after an edit of a bot's file, after a change of --limits only, and
    after a change of a bot's option only: never the old verdict as if it were current."""
    bots = tmp_path / "bots"
    bots.mkdir()
    mine = bots / "random2.py"
    mine.write_text(SECOND_RANDOM)
    path = tmp_path / "m.db"
    command = ("match", "random-2", "random", "--games", "8", "--seed", "1")
    first = _cli(*command, db_path=path, bots_dir=bots)
    assert first.returncode == 0, first.stderr
    again = _cli(*command, db_path=path, bots_dir=bots)  # unchanged: its stored result
    assert again.returncode == 0 and again.stdout == first.stdout
    assert "finished: its stored result" in again.stderr

    mine.write_text(SECOND_RANDOM + "\n# an edit\n")
    edited = _cli(*command, db_path=path, bots_dir=bots)
    assert edited.returncode == 2 and edited.stdout == "", edited.stdout
    assert edited.stderr.splitlines() == [edited.stderr.strip()]  # one line
    assert f"bot 'random-2' has changed since match 'match-vandtia-cardems-random-2-random-" \
        f"1' started: {mine} is not the code it began with" in edited.stderr
    assert "its results are that code's, not this code's: a new name plays this code afresh" \
        in edited.stderr
    fresh = _cli(*command, "--name", "after-the-edit", db_path=path, bots_dir=bots)
    assert fresh.returncode == 0 and "at most 8 games" in fresh.stderr

    mine.write_text(SECOND_RANDOM)  # the code it was played with again
    limits = _cli(*command, "--limits", "move_s=0.5", "--name",
                  "match-vandtia-cardems-random-2-random-1", db_path=path, bots_dir=bots)
    assert limits.returncode == 2 and limits.stderr.strip() == (
        "arena: error: match 'match-vandtia-cardems-random-2-random-1' was played with other "
        "settings: limits the defaults (asked: move_s=0.5); its results are those settings': "
        "another --name plays these")
    option = _cli("match", "ismcts:iterations=2", "random", "--games", "4", "--seed", "1",
                  db_path=path)
    assert option.returncode == 0, option.stderr
    other = _cli("match", "ismcts:iterations=3", "random", "--games", "4", "--seed", "1",
                 db_path=path)  # another option is another bot: another match, played afresh
    assert other.returncode == 0 and "at most 4 games" in other.stderr, other.stderr
    assert "match-vandtia-cardems-ismcts:iterations=3-random-1" in other.stderr


def test_an_sprt_match_stopped_at_its_cap_says_undecided_everywhere(tmp_path):
    """The verdict is stored with the match and read back by season show, the JSON export
    and the report's page - 'stopped at its game cap, undecided', never 'continues'."""
    path = tmp_path / "m.db"
    run = _cli("match", "greedy", "random", "--games", "20", "--seed", "13", "--sprt",
               "elo0=0,elo1=10", db_path=path)
    assert run.returncode == 0, run.stderr
    name = "match-vandtia-cardems-greedy-random-13"
    verdict = next(line for line in run.stdout.splitlines() if line.startswith("LLR"))
    assert verdict.endswith("— stopped at its game cap, undecided"), run.stdout
    assert "continues" not in run.stdout
    show = _cli("season", "show", name, db_path=path)
    assert show.returncode == 0 and verdict in show.stdout.splitlines(), show.stdout
    assert f"A/B match {name} (unrated): greedy vs random, vandtia cardems: 10 pairs" in \
        show.stdout
    export = _cli("season", "export", name, db_path=path)
    stored = json.loads(export.stdout.splitlines()[0])["options"]["verdict"]
    shown = json.loads(_cli("match", "greedy", "random", "--games", "20", "--seed", "13",
                            "--sprt", "elo0=0,elo1=10", "--format", "json",
                            db_path=path).stdout)
    assert stored["stopped"] == "cap" and stored["sprt"]["decision"] is None
    assert stored["pairs"] == 10 and stored == {k: v for k, v in shown.items()
                                                if k not in ("match", "game", "variant",
                                                             "seed", "status")}
    report = _cli("report", "-o", str(tmp_path / "out"), db_path=path)
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "out" / "season-1.html").read_text()
    assert "stopped at its game cap, undecided" in page and "at most 20 games" in page
    assert "rounds" not in page.split("<h2>")[0]  # a match is games, not rounds
    # both pages, the report's and arena serve's, in a real browser
    from conftest import chromium
    from selenium.webdriver.common.by import By
    from test_serve import Server

    server, browser = Server(path), chromium()
    try:
        for url in ((tmp_path / "out" / "season-1.html").as_uri(), server.url + "season-1.html"):
            browser.get(url)
            shown = browser.find_element(By.ID, "verdict").text
            assert verdict in shown.splitlines(), (url, shown)
            assert "unrated" in browser.find_element(By.CSS_SELECTOR, "p.meta").text
    finally:
        browser.quit()
        server.stop()


def test_ab_matches_rate_no_league_unless_asked(tmp_path):
    """A season and two matches of the same bots: the leaderboard and the report's league
    table count the season's games alone; a match run --rated counts too."""
    path = tmp_path / "m.db"
    season = _cli("season", "run", "vandtia", "--bots", "greedy,random", "--rounds", "3",
                  "--seed", "1", "--name", "spring", db_path=path)
    assert season.returncode == 0, season.stderr

    def games() -> dict:
        board = _cli("leaderboard", "vandtia", "--format", "json", db_path=path)
        return {r["bot"]: r["games"] for r in json.loads(board.stdout)}

    assert games() == {"greedy": 6, "random": 6}
    ab = _cli("match", "greedy", "random", "--games", "40", "--seed", "2", db_path=path)
    assert ab.returncode == 0, ab.stderr
    assert games() == {"greedy": 6, "random": 6}  # the A/B test moved nothing
    report = _cli("report", "-o", str(tmp_path / "out"), db_path=path)
    index = (tmp_path / "out" / "index.html").read_text()
    league, matches = index.split("<h3>A/B matches</h3>")
    assert "match-vandtia-cardems-greedy-random-2" not in league
    assert "match-vandtia-cardems-greedy-random-2" in matches and "greedy vs random: Elo" in \
        matches
    assert report.returncode == 0 and ">6</td>" in league.split("<h3>Seasons</h3>")[0]
    from test_serve import Server  # arena serve's index: the same
    server = Server(path)
    try:
        served = urllib.request.urlopen(server.url + "index.html").read().decode()
    finally:
        server.stop()
    league, matches = served.split("<h3>A/B matches</h3>")
    assert "match-vandtia-cardems-greedy-random-2" not in league
    assert "match-vandtia-cardems-greedy-random-2" in matches
    rated = _cli("match", "greedy", "random", "--games", "4", "--seed", "3", "--rated",
                 db_path=path)
    assert rated.returncode == 0, rated.stderr
    assert games() == {"greedy": 10, "random": 10}


def test_one_two_three_and_tied_pairs_give_honest_intervals_in_the_cli_and_the_page(
        tmp_path):
    """A match of 1, 2 and 3 pairs says little, and says so; two bots that play alike (the
    random bot and a copy with the same stream: every pair exactly ½) are level, +0.0
    never -0.0, with an interval as wide as three pairs allow - in the JSON, the summary
    and the report's page."""
    path = tmp_path / "m.db"
    for games in (2, 4, 6):
        out = result(arena("greedy", "random", "--games", str(games), "--seed", str(games),
                           "--format", "json", db_path=path))
        assert out["pairs"] == games // 2
        assert out["elo_high"] - out["elo_low"] > 300, out
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "random2.py").write_text(SECOND_RANDOM)
    tied = _cli("match", "random", "random-2", "--games", "6", "--seed", "2", db_path=path,
                bots_dir=tmp_path / "bots")
    assert tied.returncode == 0, tied.stderr
    assert "Pairs [LL, LD, DD+WL, WD, WW]: [0, 0, 3, 0, 0]" in tied.stdout
    elo = next(line for line in tied.stdout.splitlines() if line.startswith("Elo"))
    assert elo.startswith("Elo +0.0") and "-0.0" not in tied.stdout, tied.stdout
    assert "[-1199.8, +1199.8]" in elo, elo
    report = _cli("report", "-o", str(tmp_path / "out"), db_path=path,
                  bots_dir=tmp_path / "bots")
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "out" / "season-4.html").read_text()
    assert elo in page and "-0" not in page.split('id="verdict"')[1].split("</div>")[0]


def test_worst_lists_the_pairs_the_candidate_lost_most_with_both_games_side_by_side(
        tmp_path):
    """A candidate that forfeits every game loses every pair (score 0): its worst two are
    the first two deals, each the candidate's game beside the baseline's in the same seat
    on the same cards. Against random, greedy's worst pairs are the lowest pair scores the
    stored games give, counted here by hand; a candidate that lost none says so."""
    from conftest import CRASHER

    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "crasher.py").write_text(CRASHER)
    path = tmp_path / "m.db"
    # (after five faults in a row a bot is suspended: the first two deals are played)
    out = result(arena("crasher", "first", "--games", "12", "--seed", "5", "--name", "lost",
                       "--worst", "2", "--format", "json", db_path=path, bots_dir=bots))
    assert [(e["deal"], e["score"]) for e in out["worst"]] == [(1, 0.0), (2, 0.0)]
    engine = db.connect(f"sqlite:///{path}")
    for e in out["worst"]:
        mine, my_seats = db.get_match(engine, e["candidate"]["match"])[::2]
        theirs, their_seats = db.get_match(engine, e["baseline"]["match"])[::2]
        assert mine.seed == theirs.seed  # the same cards
        assert my_seats[e["seat"]].bot == "crasher" and their_seats[e["seat"]].bot == "first"
        assert my_seats[e["seat"]].fault.startswith("crash")
        a, b = json.loads(mine.replay), json.loads(theirs.replay)
        step = e["step"]
        if step is None:  # the two games never parted (both ended where they were equal)
            assert a == b
        else:
            assert a[:step - 1] == b[:step - 1] and (a[step - 1:step] != b[step - 1:step])
    # the table, with the links and the review commands
    shown = arena("--worst", "2", "lost", db_path=path, bots_dir=bots)
    text, err = shown.communicate(timeout=300)
    assert shown.returncode == 0, err
    first = out["worst"][0]
    step = "" if first["step"] is None else f"#step={first['step']}"
    assert (f"match-{first['candidate']['match']}.html{step} beside "
            f"match-{first['baseline']['match']}.html{step}") in text, text
    assert f"arena review {first['candidate']['match']} --seat {first['seat']}" in text
    # the match's page lists them too, each game linked at the step where they parted
    report = subprocess.run(
        [sys.executable, "-m", "arena", "--bots-dir", str(bots), "report", "--season", "lost",
         "-o", str(tmp_path / "report"), "--matches", "faults"],
        env={**os.environ, "ARENA_DB": f"sqlite:///{path}"}, capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "report" / f"season-{db.get_season(engine, 'lost').id}.html").read_text()
    assert "Where crasher did worst against first" in page
    for e in out["worst"]:
        at = "" if e["step"] is None else f"#step={e['step']}"
        for side in ("candidate", "baseline"):
            link = f"match-{e[side]['match']}.html"
            assert f'href="{link}{at}"' in page and (tmp_path / "report" / link).exists()
    # greedy against random: the lowest pair scores, by hand from the stored games
    out = result(arena("greedy", "random", "--games", "40", "--seed", "6", "--name", "g",
                       "--worst", "4", "--format", "json", db_path=path))
    pairs, by_seed = [], {}
    for m, seats in db.season_matches(engine, db.get_season(engine, "g").id):
        by_seed.setdefault(m.seed, []).append({s.bot: s.rank for s in seats})
    for deal, games in enumerate(by_seed.values(), 1):
        score = sum(1.0 if g["greedy"] < g["random"] else 0.5 if g["greedy"] == g["random"]
                    else 0.0 for g in games) / len(games)
        if score < 0.5:
            pairs.append((score, deal))
    assert [(e["score"], e["deal"]) for e in out["worst"]] == sorted(pairs)[:4]
    none = result(arena("first", "crasher", "--games", "4", "--seed", "5", "--name", "won",
                        "--worst", "3", "--format", "json", db_path=path, bots_dir=bots))
    assert none["worst"] == []


def test_a_tally_by_money_is_the_mean_money_gap_on_the_same_cards_and_never_too_sure():
    """--score money: a field pair's money is the candidate's result less the baseline's in
    the same seat on the same cards; the interval is Student's on those, and pairs all
    alike keep a width from the spread of the games themselves."""
    tally = Tally("a", "b", field=True, money=True)
    games = [(("a", "x", "y"), [1, 2, 2], [60, -30, -30]),
             (("b", "x", "y"), [2, 1, 2], [-40, 80, -40]),  # pair: 60 - -40 = 100
             (("x", "a", "y"), [1, 2, 2], [30, -15, -15]),
             (("x", "b", "y"), [1, 2, 2], [30, -15, -15])]  # pair: 0
    for seats, ranks, scores in games:
        tally.add(seats, ranks, scores=scores)
    m = tally.money_estimate()
    assert m["pairs"] == 2 and m["mean"] == 50.0
    assert m["error"] == pytest.approx(stats.t_quantile(0.975, 1) * (5000 / 2) ** 0.5)
    assert tally.to_json()["money"] == m
    level = Tally("a", "b", field=True, money=True)
    for k in range(40):  # every pair level, the games' results far apart
        won = 100 if k % 2 else -50
        level.add(("a", "x", "y"), [1, 2, 2], scores=[won, 0, -won])
        level.add(("b", "x", "y"), [1, 2, 2], scores=[won, 0, -won])
    m = level.money_estimate()
    assert m["mean"] == 0 and m["los"] == 0.5  # and not ± 0: two pseudo pairs of a game's
    assert m["error"] == pytest.approx(  # variance (75 ** 2) among 40 + 2
        stats.t_quantile(0.975, 39) * (2 * 75 ** 2 / 42 / 40) ** 0.5)
    for pairs in (1, 2, 3):  # few pairs: a finite width, never 0, from the games' spread
        few = Tally("a", "b", field=True, money=True)
        for k in range(pairs):
            few.add(("a", "x", "y"), [1, 2, 2], scores=[60, -30, -30])
            few.add(("b", "x", "y"), [2, 1, 2], scores=[-40 + k, 80, -40 - k])
        m = few.money_estimate()
        assert m["pairs"] == pairs and m["mean"] == pytest.approx(100 - (pairs - 1) / 2)
        assert 0 < m["error"] < float("inf") and m["low"] < m["mean"] < m["high"]
    with pytest.raises(ArenaError, match="needs each fixture's scores"):
        Tally("a", "b", field=True, money=True).add(("a", "x", "y"), [1, 2, 2])


def test_a_cherki_match_scored_by_money_prints_and_stores_the_money_verdict(tmp_path):
    from arena.plugins import Registry

    proc = arena("greedy", "random", "--game", "cherki", "--field", "random,random",
                 "--score", "money", "--games", "24", "--public-seed", "--seed", "2",
                 "--name", "money", "--format", "json", db_path=tmp_path / "a.db")
    v = result(proc)
    engine = db.connect(f"sqlite:///{tmp_path / 'a.db'}")
    row = db.get_season(engine, "money")
    gains = []
    matches = list(db.season_matches(engine, row.id))
    for (m1, s1), (m2, s2) in zip(matches[::2], matches[1::2], strict=True):
        seat = next(i for i, (a, b) in enumerate(zip(s1, s2, strict=True)) if a.bot != b.bot)
        assert (s1[seat].bot, s2[seat].bot) == ("greedy", "random") and m1.seed == m2.seed
        gains.append(s1[seat].score - s2[seat].score)
    assert v["money"]["pairs"] == len(gains) == 12
    assert v["money"]["mean"] == pytest.approx(sum(gains) / len(gains))
    shown = subprocess.run([sys.executable, "-m", "arena", "season", "show", "money"],
                           env={**os.environ, "ARENA_DB": f"sqlite:///{tmp_path / 'a.db'}"},
                           capture_output=True, text=True, check=True).stdout
    assert f"Money {v['money']['mean']:+.1f} ± {v['money']['error']:.1f} a deal (95 %)" in shown
    assert Registry().game("cherki").money and not Registry().game("vandtia").money
    refused = arena("greedy", "random", "--score", "money", db_path=tmp_path / "a.db")
    _, err = refused.communicate(timeout=300)
    assert refused.returncode == 2 and err.strip() == (
        "arena: error: Vändtia's results are not money: --score money is for a game played "
        "for money (Cherki)")
