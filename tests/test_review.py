"""arena review: every decision of a stored match valued by a sandboxed reviewer from the
deciding seat's observation alone, classed, stored, resumable and reproducible."""

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest
from conftest import chromium, position, seat
from test_serve import Server

from arena import db
from arena.errors import ArenaError
from arena.games.cherki import FACE_NAMES
from arena.games.cherki import GAME as CHERKI
from arena.games.tractor import GAME as TRACTOR
from arena.games.vandtia import GAME as VANDTIA
from arena.leagues import review

FAST = "ismcts:iterations=60"

#: A bot that plays the reviewer's own choice: the action ``values`` ranks first.
CHOOSER = """
import arena
from arena_bots.ismcts import ISMCTS, OPTIONS

class Chooser(ISMCTS):
    def act(self, observation, legal):
        if len(legal) == 1:
            return legal[0]
        return max(self.values(observation, legal), key=lambda v: v["value"])["action"]

@arena.hookimpl
def register_bots(register):
    register("chooser", Chooser, games=["vandtia"], options={**OPTIONS, "iterations": 400})
"""

#: A reviewer whose values do not fit the legal list.
MUDDLED = """
import arena

class Muddled:
    def act(self, observation, legal):
        return legal[0]

    def values(self, observation, legal):
        return [{"action": "nonsense", "value": 1.0, "se": 0.0}]

@arena.hookimpl
def register_bots(register):
    register("muddled", Muddled, games=["vandtia"])
"""


def cli(*args, db_path, bots_dir=None, check=True, env=None):
    env = {**os.environ, "ARENA_DB": f"sqlite:///{db_path}", **(env or {})}
    extra = ("--bots-dir", str(bots_dir)) if bots_dir else ()
    done = subprocess.run([sys.executable, "-m", "arena", *extra, *args], env=env,
                          capture_output=True, text=True, timeout=900)
    if check:
        assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def season(tmp_path_factory):
    """A stored cardems season: greedy against random, four matches."""
    path = tmp_path_factory.mktemp("review") / "r.db"
    cli("season", "run", "vandtia", "--name", "s", "--bots", "greedy,random", "--rounds", "2",
        "--seed", "3", "--public-seed", db_path=path)
    return path


def test_a_play_that_hands_the_opponent_the_win_is_a_blunder(registry):
    # the other seat holds one card: a 4 lets almost any card go out on it, an ace only a
    # 2, a 10 or an ace
    s = position("cardems", [seat(["4C", "AS"]), seat(["9H"])], to_move=0)
    blunder = review.review_position(registry, VANDTIA, "cardems", s, "play 4C",
                                     "ismcts:iterations=400")
    assert blunder["class"] == "blunder" and blunder["best"] == "play AS"
    assert blunder["loss"] > 1.0 and blunder["phase"] == "hand"
    best = review.review_position(registry, VANDTIA, "cardems", s, "play AS",
                                  "ismcts:iterations=400")
    assert best["class"] == "best" and best["loss"] == 0


def _cherki_ready_after_the_draw():
    """Seat 1 draws 7S into 9 9 9 8 8 8 7 7 1: the 1 goes, and the hand is ready."""
    hands = [["1S", "2S", "3S", "4S", "5S", "6S", "WF", "RF"],
             ["9C", "9S", "9M", "8C", "8S", "8M", "7C", "1C"],
             ["1M", "2M", "3M", "4M", "5M", "6M", "OT", "RF"]]
    rest = [f for f in FACE_NAMES for _ in range(4)]
    for c in sum(hands, []) + ["7S"]:
        rest.remove(c)
    random.Random(3).shuffle(rest)
    s = CHERKI.from_deal("standard", {"hands": hands, "stock": ["7S", *rest], "dealer": 0})
    s.apply("draw")
    return s


def test_discarding_a_card_of_the_winning_pair_is_a_blunder(registry):
    s = _cherki_ready_after_the_draw()
    blunder = review.review_position(registry, CHERKI, "standard", s, "discard 7C",
                                     "ismcts:iterations=1000")
    assert blunder["class"] == "blunder" and blunder["best"].startswith("discard 1C")
    assert blunder["phase"] == "discard"
    called = review.review_position(registry, CHERKI, "standard", s, "discard 1C call 7",
                                    "ismcts:iterations=1000")
    assert called["class"] == "best" and called["phase"] == "call"


def test_a_follow_that_gives_away_a_counted_trick_is_a_blunder(registry):
    # the last to play to a king of hearts holds the ace and the 3: the 3 gives the
    # attackers 10 points and their 80, whatever the other seats hold
    deal = {"hands": [["4H", "9D"], ["6H", "8C"], ["AH", "3H"], ["KH", "9C"]], "trump": "S",
            "dealer": 2, "leader": 3, "buried": ["3C", "3D", "4C", "4D", "6C", "6D", "7C", "7D"],
            "points": 70, "partial": True}
    s = TRACTOR.from_deal("deal", deal)
    for action in ("play KH", "pick 4H", "pick 6H"):
        s.apply(action)
    blunder = review.review_position(registry, TRACTOR, "deal", s, "pick 3H",
                                     "ismcts:iterations=400")
    assert blunder["class"] == "blunder" and blunder["best"] == "pick AH"
    assert blunder["phase"] == "follow"
    best = review.review_position(registry, TRACTOR, "deal", s, "pick AH",
                                  "ismcts:iterations=400")
    assert best["class"] == "best"


def _midgame(game, variant, players, seed, moves):
    rng = random.Random(seed)
    s = game.new_state(variant, players, seed)
    for _ in range(moves):
        s.apply(rng.choice(s.legal_actions()))
    while len(s.legal_actions()) < 2:
        s.apply(s.legal_actions()[0])
    return s


@pytest.mark.parametrize("game, variant, players, moves", [
    (VANDTIA, "swedish", 3, 30), (TRACTOR, "deal", 4, 70), (CHERKI, "standard", 3, 20)])
def test_a_review_never_reads_the_hidden_cards(registry, game, variant, players, moves):
    """Re-deal every card the deciding seat has not seen: the same review."""
    s = _midgame(game, variant, players, 5, moves)
    taken = s.legal_actions()[-1]
    me = s.to_move
    first = review.review_position(registry, game, variant, s, taken, "ismcts:iterations=40")
    for k in range(2):
        other = game.world(s.observation(me), random.Random(k))
        assert other.observation(me) == s.observation(me)
        assert review.review_position(registry, game, variant, other, taken,
                                      "ismcts:iterations=40") == first


def test_a_review_is_stored_resumed_and_the_same_with_two_workers(season):
    first = cli("review", "1", "--reviewer", FAST, "--format", "json", db_path=season).stdout
    data = json.loads(first)
    assert data["match"] == 1 and data["reviewer"] == FAST
    steps = [d["step"] for d in data["decisions"]]
    assert steps == sorted(steps) and {d["seat"] for d in data["decisions"]} == {0, 1}
    for d in data["decisions"]:
        assert d["class"] in review.CLASSES and d["loss"] >= 0
        assert d["taken"] in [v["action"] for v in d["values"]]
    engine = db.connect(f"sqlite:///{season}")
    stored = db.stored_reviews(engine, 1, FAST)
    assert len(stored) == len(data["decisions"])
    with engine.begin() as conn:  # as if killed halfway: half the decisions stored
        conn.execute(db.ReviewRow.__table__.delete().where(db.ReviewRow.step % 2 == 0))
    again = cli("review", "1", "--reviewer", FAST, "--format", "json", "--workers", "2",
                db_path=season).stdout
    assert again == first
    assert db.stored_reviews(engine, 1, FAST) == stored


def test_the_table_names_each_lost_decision_and_sums_up_by_seat_and_phase(season):
    out = cli("review", "1", "--reviewer", FAST, "--seat", "1", "--all",
              db_path=season).stdout
    assert "reviewed by " + FAST in out and "1 random" in out and "0 greedy" not in out
    assert "hand" in out and "accuracy" in out and "swap" in out


def test_the_reviewers_own_choices_lose_next_to_nothing(tmp_path, registry):
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "chooser.py").write_text(CHOOSER)
    path = tmp_path / "c.db"
    cli("--bots-dir", str(bots), "season", "run", "vandtia", "--name", "c", "--bots",
        "chooser,greedy", "--rounds", "1", "--seed", "4", "--public-seed", db_path=path)
    out = {bot: json.loads(cli("--bots-dir", str(bots), "review", "--season", "c", "--bot",
                               bot, "--reviewer", "ismcts:iterations=400", "--format", "json",
                               db_path=path).stdout) for bot in ("chooser", "greedy")}
    chooser = out["chooser"]
    assert chooser["decisions"] > 20 and len(chooser["matches"]) == 2
    # what is left is the noise of the reviewer's playouts (the best of several noisy
    # means is the highest by chance too): below an inaccuracy, and below greedy's
    assert chooser["mean_loss"] < review.THRESHOLDS["vandtia"][0]
    assert chooser["accuracy"] > 0.9
    assert chooser["mean_loss"] < out["greedy"]["mean_loss"]


def test_a_season_sample_sums_up_a_bots_decisions_with_intervals(season):
    out = json.loads(cli("review", "--season", "s", "--bot", "random", "--sample", "3",
                         "--reviewer", FAST, "--format", "json", db_path=season).stdout)
    assert out["bot"] == "random" and len(out["matches"]) == 3
    assert out["decisions"] == sum(p["decisions"] for p in out["phases"].values())
    assert out["interval"] > 0 and all("interval" in p for p in out["phases"].values())
    assert set(out["phases"]) <= {"swap", "hand", "face-up", "face-down"}
    again = json.loads(cli("review", "--season", "s", "--bot", "random", "--sample", "3",
                           "--reviewer", FAST, "--format", "json", db_path=season).stdout)
    assert again == out
    # its worst decisions, each with its match and step: the same as the match's review
    worst = out["worst"]
    assert worst and [w["loss"] for w in worst] == sorted((w["loss"] for w in worst),
                                                           reverse=True)
    w = worst[0]
    one = json.loads(cli("review", str(w["match"]), "--seat", str(w["seat"]), "--reviewer",
                         FAST, "--format", "json", db_path=season).stdout)
    assert {k: v for k, v in next(d for d in one["decisions"] if d["step"] == w["step"]).items()
            if k in w} == {k: v for k, v in w.items() if k != "match"}
    text = cli("review", "--season", "s", "--bot", "random", "--sample", "3", "--reviewer",
               FAST, db_path=season, env={"COLUMNS": "200"}).stdout
    assert "the worst decisions (each opens at match-ID.html#step=N)" in text


@pytest.mark.parametrize("args, says", [
    (("review", "99"), "no match with id 99"),
    (("review",), "review a match"),
    (("review", "1", "--seat", "5"), "has seats 0-1"),
    (("review", "1", "--reviewer", "greedy"), "cannot review"),
    (("review", "1", "--reviewer", "nobody"), "unknown bot"),
    (("review", "--season", "s", "--bot", "nobody"), "played no match"),
    (("review", "--season", "nothing", "--bot", "greedy"), "nothing"),
])
def test_mistakes_get_one_line_and_status_2(season, args, says):
    done = cli(*args, db_path=season, check=False)
    assert done.returncode == 2 and says in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_reviewer_whose_values_do_not_fit_is_refused(season, tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "muddled.py").write_text(MUDDLED)
    done = cli("review", "1", "--reviewer", "muddled", db_path=season, bots_dir=bots,
               check=False)
    assert done.returncode == 2 and "do not fit" in done.stderr
    assert not db.stored_reviews(db.connect(f"sqlite:///{season}"), 1, "muddled")


@pytest.mark.parametrize("where", ["value", "action"])
def test_values_nesting_a_thousand_levels_do_not_fit_either(where):
    """What a reviewer answered is checked and shown without going down it: JSON nested
    1,020 levels deep (as a worker's answer may be) is refused as values that do not fit,
    not a RecursionError."""
    deep = _deep(1020)
    item = {"action": "draw", "value": 0.5, where: deep}
    with pytest.raises(ArenaError, match="do not fit"):
        review.checked_values([item], ["draw"], "deep")


def _deep(levels: int) -> list:
    out: list = []
    for _ in range(levels - 1):
        out = [out]
    return out


@pytest.mark.parametrize("game, variant, players", [
    ("vandtia", "swedish", 3), ("vandtia", "german", 2), ("tractor", "deal", 4),
    ("cherki", "standard", 3)])
def test_every_game_and_variant_reviews(tmp_path, game, variant, players):
    """(``cardems`` is the module's season. Tractor's ``match`` is its deals one after
    another, every decision the same as in ``deal``; a match of them is some 500 decisions
    of a seat, each valued by playouts of a whole deal: left to the benchmark.)"""
    path = tmp_path / "g.db"
    bots = "greedy,random,first" if players == 3 else "greedy,random"
    cli("season", "run", game, "--variant", variant, "--players", str(players), "--name",
        "g", "--bots", bots, "--rounds", "1", "--seed", "2", "--public-seed", db_path=path)
    out = json.loads(cli("review", "1", "--seat", "0", "--reviewer", "ismcts:iterations=2",
                         "--format", "json", db_path=path).stdout)
    assert out["game"] == game and out["decisions"]
    assert all(d["seat"] == 0 for d in out["decisions"])
    phases = {d["phase"] for d in out["decisions"]}
    assert phases <= {"vandtia": {"swap", "hand", "face-up", "face-down"},
                      "tractor": {"bid", "bury", "lead", "follow"},
                      "cherki": {"draw", "take", "discard", "call"}}[game]


@pytest.mark.slow
def test_the_replay_page_marks_the_reviewed_steps_in_a_browser(season, tmp_path):
    """``arena serve``'s replay page of a reviewed match (the report's page, the same
    template and script): a line under the log says what the reviewer made of the step
    shown, a bar per decision charts the loss, a click on a bar goes to its step, and a
    seat's view shows that seat's decisions only."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    data = json.loads(cli("review", "2", "--reviewer", FAST, "--format", "json",
                          db_path=season).stdout)
    lost = [d for d in data["decisions"] if d["class"] not in ("best", "good")]
    assert lost
    out = tmp_path / "report"
    cli("report", "--match", "2", "-o", str(out), db_path=season)
    assert '"reviewer":"' + FAST + '"' in (out / "match-2.html").read_text()
    server = Server(season)
    browser = chromium()
    try:
        browser.get(server.url + "match-2.html")
        until = WebDriverWait(browser, 60).until
        until(lambda b: b.find_elements(By.CSS_SELECTOR, "#review-chart .rv-bar"))
        bars = browser.find_elements(By.CSS_SELECTOR, "#review-chart .rv-bar")
        assert len(bars) == len(data["decisions"])  # the everyone view: every seat's
        d = lost[0]
        browser.execute_script("arguments[0].dispatchEvent(new Event('click'))",
                               next(b for b in bars if b.get_attribute("data-step")
                                    == str(d["step"])))
        line = browser.find_element(By.ID, "review-line").text
        assert browser.find_element(By.ID, "jump").get_attribute("value") == str(d["step"])
        assert f"took {d['taken']}" in line and d["best"] in line and d["class"] in line
        Select(browser.find_element(By.ID, "view")).select_by_index(d["seat"])
        mine = browser.find_elements(By.CSS_SELECTOR, "#review-chart .rv-bar")
        assert len(mine) == sum(x["seat"] == d["seat"] for x in data["decisions"])
        Select(browser.find_element(By.ID, "view")).select_by_index(1 - d["seat"])
        assert "no decision of this view" in browser.find_element(By.ID, "review-line").text
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        browser.quit()
        server.stop()


def test_a_step_the_review_names_is_one_step_in_the_replay_and_opens_by_address(season,
                                                                                 tmp_path):
    """One number for one decision: the step ``arena review`` prints is the step of that
    action in ``replay --json`` and in the replay transcript, and the viewer opened at
    ``match-2.html#step=N`` (or ``?step=N``), in a real browser, shows that decision - and
    keeps the address on the step as it moves."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    data = json.loads(cli("review", "2", "--reviewer", FAST, "--format", "json",
                          db_path=season).stdout)
    d = next(x for x in data["decisions"] if x["class"] not in ("best", "good"))
    table = cli("review", "2", "--reviewer", FAST, db_path=season,
                env={"COLUMNS": "200"}).stdout
    cells = [[c.strip() for c in re.split(r"\s{2,}", line) if c.strip()]
             for line in table.splitlines()]
    assert [str(d["step"]), str(d["seat"])] in [row[:2] and [row[0], row[1].split()[0]]
                                               for row in cells if len(row) > 2], table
    assert "match-2.html#step=N" in table
    record = json.loads(cli("replay", "2", "--json", db_path=season).stdout)
    action = record["actions"][d["step"] - 1]
    assert action == {"step": d["step"], "seat": d["seat"], "action": d["taken"]}
    transcript = cli("replay", "2", db_path=season, env={"COLUMNS": "200"}).stdout
    assert "step" in transcript and any(
        line.split()[:2] == [str(d["step"]), str(d["seat"])]
        for line in transcript.splitlines() if line.strip()), transcript
    server = Server(season)
    browser = chromium()
    try:
        until = WebDriverWait(browser, 60).until
        for address in (f"match-2.html#step={d['step']}", f"match-2.html?step={d['step']}"):
            browser.get(server.url + address)
            until(lambda b: b.find_elements(By.CSS_SELECTOR, "#review-chart .rv-bar"))
            assert browser.find_element(By.ID, "jump").get_attribute("value") == str(d["step"])
            assert browser.find_element(By.ID, "log").text.startswith(f"step {d['step']} · ")
            line = browser.find_element(By.ID, "review-line").text
            assert f"seat {d['seat']} took {d['taken']}" in line and d["class"] in line
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        until(lambda b: b.current_url.endswith(f"#step={d['step'] + 1}"))
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME)
        until(lambda b: b.current_url.endswith("#step=0"))
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        browser.quit()
        server.stop()


def test_a_review_killed_midway_resumes_to_the_same_review(season, tmp_path):
    """Killed with SIGKILL once a few decisions are stored (its own process, waited for by
    rows in the database: it shares the machine with any test), then resumed."""
    path = tmp_path / "k.db"
    shutil.copy(season, path)
    reviewer = "ismcts:iterations=500"
    args = ("review", "3", "--seat", "0", "--reviewer", reviewer, "--format", "json")
    engine = db.connect(f"sqlite:///{path}")
    run = subprocess.Popen([sys.executable, "-m", "arena", *args],
                           env={**os.environ, "ARENA_DB": f"sqlite:///{path}"},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while len(db.stored_reviews(engine, 3, reviewer)) < 3:  # a few decisions stored
        assert run.poll() is None, "the review ended before it could be killed"
        time.sleep(0.02)
    run.send_signal(signal.SIGKILL)
    run.wait()
    cut = len(db.stored_reviews(engine, 3, reviewer))
    resumed = cli(*args, db_path=path).stdout
    decisions = json.loads(resumed)["decisions"]
    assert cut < len(decisions)
    with engine.begin() as conn:  # and from nothing, on two workers: the same bytes
        conn.execute(db.ReviewRow.__table__.delete())
    assert cli(*args, "--workers", "2", db_path=path).stdout == resumed
