"""The HTML report (arena report): its frames, its pages and their content."""

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CRASHER, chromium

from arena import db
from arena.games.cherki import GAME as CHERKI
from arena.games.tractor import GAME as TRACTOR
from arena.games.vandtia import GAME as VANDTIA
from arena.referee import replay
from arena.views.frames import match_frames
from arena.views.report import choose, rating_history

CARD = re.compile(r"^(10|[2-9JQKA1-9])[CDHSM]$|^(SJ|BJ|WF|RF|OT)$")


def arena(*args, db_path, bots_dir=None):
    extra = ["--bots-dir", str(bots_dir)] if bots_dir else []
    return subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{db_path}",
                           *extra, *args], capture_output=True, text=True, timeout=600)


def expand(data: dict) -> list[list[list[dict]]]:
    """Every view of every frame in full, as static/replay.js expands them."""
    full = []
    for i, frame in enumerate(data["frames"]):
        views = []
        for v, zones in enumerate(frame["views"]):
            views.append([full[i - 1][v][k] if z == 0 else views[v - 1][k] if z == 1 else z
                          for k, z in enumerate(zones)])
        full.append(views)
    return full


def shown(zones: list[dict]) -> list[str]:
    return [c for zone in zones for _, cards, *_ in zone["rows"] for c in cards.split()]


def named(value) -> set[str]:
    """Every card name anywhere in an observation."""
    if isinstance(value, str):
        return {w for w in value.split() if CARD.match(w)}
    if isinstance(value, dict):
        return set().union(*map(named, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(named, value)) if value else set()
    return set()


def random_match(game, variant, players, seed) -> list[str]:
    """The actions of a uniformly random game."""
    state, actions, rng = game.new_state(variant, players, seed), [], random.Random(seed)
    while not state.is_over():
        legal = state.legal_actions()
        actions.append(legal[rng.randrange(len(legal))])
        state.apply(actions[-1])
    return actions


@pytest.mark.parametrize("game, variant, players", [
    (VANDTIA, "cardems", 2), (VANDTIA, "german", 4), (TRACTOR, "deal", 4),
    (CHERKI, "standard", 3)])
def test_a_seat_view_shows_only_cards_its_observation_names(game, variant, players):
    """Every frame, every seat: each card drawn in that seat's view is named by the
    observation its bot was sent; the view of everyone shows every hand in full."""
    for seed in range(3):
        actions = random_match(game, variant, players, seed)
        names = [f"bot{p}" for p in range(players)]
        data = match_frames(game, variant, seed, actions, names)
        full = expand(data)
        assert len(full) == len(actions) + 1
        state = game.new_state(variant, players, seed)
        for i, views in enumerate(full):
            if i:
                state.apply(actions[i - 1])
            for p in range(players):
                assert set(shown(views[p])) <= named(state.observation(p)), (seed, i, p)
            everyone = shown(views[players])
            for hand in state.reveal()["hands"]:
                assert all(everyone.count(c) >= hand.count(c) for c in hand)


def test_a_cherki_call_shows_its_pair_only_to_the_caller_and_to_everyone():
    for seed in range(40):
        actions = random_match(CHERKI, "standard", 3, seed)
        calls = [i for i, a in enumerate(actions) if "call" in a]
        if calls:
            break
    call = actions[calls[0]]  # "call 7" or "discard 7C call 7"
    data = match_frames(CHERKI, "standard", seed, actions, ["a", "b", "c"])
    frame = data["frames"][calls[0] + 1]
    assert frame["log"].endswith(call.rsplit(" ", 1)[0]) and frame["full"].endswith(call)
    pair, caller = call.split()[-1], frame["actor"]
    for v, view in enumerate(expand(data)[calls[0] + 1]):
        tags = [t for t in view[caller]["tags"] if t.startswith("called")]
        sees = v in (caller, 3)  # the caller's own view and everyone's
        assert tags == [f"called: waiting for a {pair}" if sees else "called"], (v, tags)


def test_the_rating_history_ends_at_the_standings_and_is_thinned():
    from arena.leagues.ratings import rate

    results = [(["a", "b"], [1, 2] if i % 3 else [2, 1], [1, -1], [None, None])
               for i in range(1000)]
    history, standings = rating_history(results, ["a", "b"], 0.03, points=100)
    assert len(history["x"]) <= 102 and history["x"][-1] == 1000 and history["x"][0] == 0
    assert standings == rate(results, 0.03)
    final = {s.bot: s for s in rate(results, 0.03)}
    for bot in ("a", "b"):
        assert history["bots"][bot]["mu"][-1] == round(final[bot].mu, 3)
        assert len(history["bots"][bot]["mu"]) == len(history["x"])


def test_the_default_sample_is_the_faulty_matches_and_the_first_of_every_pair():
    matches = [(1, ["a", "b"], [None, None]), (2, ["b", "a"], [None, None]),
               (3, ["a", "c"], [None, "crash"]), (4, ["a", "c"], [None, None]),
               (5, ["b", "c"], [None, None]), (6, ["c", "b"], [None, None])]
    assert choose(matches, "sample") == {1, 3, 4, 5}  # 3 is faulty: a-c's first sample is 4
    assert choose(matches, "faults") == {3}
    assert choose(matches, "all") == {1, 2, 3, 4, 5, 6}
    assert choose(matches, 2) == {1, 2, 3, 4, 5, 6}
    assert choose(matches, 0) == {3}


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """Three small seasons, one of them with a bot that crashes."""
    tmp = tmp_path_factory.mktemp("report")
    bots = tmp / "bots"
    bots.mkdir()
    (bots / "crasher.py").write_text(CRASHER)
    path = tmp / "a.db"
    for args in (["vandtia", "--bots", "random,greedy,crasher", "--rounds", "2", "--seed",
                  "1", "--name", "spring"],
                 ["cherki", "--bots", "greedy,random,first", "--rounds", "1", "--seed", "4",
                  "--name", "cherki-one"],
                 ["tractor", "--variant", "deal", "--bots", "greedy,random", "--rounds", "1",
                  "--seed", "5", "--name", "tractor-one"]):
        run = arena("season", "run", *args, "--workers", "1", db_path=path, bots_dir=bots)
        assert run.returncode == 0, run.stderr
    out = tmp / "site"
    run = arena("report", "-o", str(out), db_path=path, bots_dir=bots)
    assert run.returncode == 0, run.stderr
    assert "wrote" in run.stdout and "index.html" in run.stdout
    return path, out, bots


@pytest.mark.slow
def test_the_index_lists_every_league_its_bots_and_its_seasons(league):
    _, out, _ = league
    index = (out / "index.html").read_text()
    for text in ("Vändtia · cardems · 2 players", "Cherki · standard · 3 players",
                 "Tractor · deal · 4 players", "spring", "cherki-one", "tractor-one",
                 "crasher", "greedy", "random", "first", "μ ± 1.96σ", "&gt; next"):
        assert text in index, text
    assert (out / "static" / "uPlot.iife.min.js").exists()
    assert "http://" not in index and "https://" not in index  # nothing from a network


def test_a_season_page_has_standings_chart_crosstable_and_faults_with_their_logs(league):
    path, out, _ = league
    engine = db.connect(f"sqlite:///{path}", create=False)
    row = db.get_season(engine, "spring")
    page = (out / f"season-{row.id}.html").read_text()
    chart = json.loads(re.search(r'id="chart-data">(.*?)</script>', page).group(1))
    assert set(chart["bots"]) == {"random", "greedy", "crasher"}
    stored = len(db.stored_fixtures(engine, row.id))
    assert chart["x"][-1] == stored
    assert "Crosstable" in page and "hsl(" in page
    assert "crash" in page and "about to fail" in page and "RuntimeError" in page  # the log
    faulty = [m.id for m, seats in db.season_matches(engine, row.id)
              if any(s.fault for s in seats)]
    assert faulty and all((out / f"match-{i}.html").exists() for i in faulty)
    assert f'href="match-{faulty[0]}.html"' in page


def test_a_match_page_embeds_frames_made_from_the_stored_actions(league):
    path, out, _ = league
    engine = db.connect(f"sqlite:///{path}", create=False)
    for name, game in (("cherki-one", CHERKI), ("tractor-one", TRACTOR)):
        row = db.get_season(engine, name)
        match, seats = next(db.season_matches(engine, row.id))
        page = (out / f"match-{match.id}.html").read_text()
        data = json.loads(re.search(r'id="frames">(.*?)</script>', page).group(1)
                          .replace("<\\/", "</"))
        actions = json.loads(match.replay)
        assert len(data["frames"]) == len(actions) + 1
        assert data["views"][-1] == "everyone" and len(data["views"]) == len(seats) + 1
        final = replay(game, row.variant, len(seats), match.seed, actions)
        assert final.result().ranks == [s.rank for s in seats]


def test_report_match_makes_any_stored_match_and_bad_input_is_one_line(league, tmp_path):
    path, _, bots = league
    run = arena("report", "--match", "2", "-o", str(tmp_path / "one"), db_path=path,
                bots_dir=bots)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "one" / "match-2.html").exists()
    assert not (tmp_path / "one" / "index.html").exists()
    for args, message in ((["--match", "99999"], "no match with id 99999"),
                          (["--matches", "some"], "--matches takes"),
                          (["--season", "nope"], "nope")):
        run = arena("report", *args, "-o", str(tmp_path / "x"), db_path=path, bots_dir=bots)
        assert run.returncode == 2 and message in run.stderr, run.stderr
        assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
    run = arena("report", db_path=tmp_path / "none.db")
    assert run.returncode == 2 and "no database" in run.stderr


def test_report_open_hands_the_index_to_the_browser(league, tmp_path, monkeypatch):
    path, _, bots = league
    marker = tmp_path / "opened"
    env = {"BROWSER": f"{sys.executable} -c \"import sys; open({str(marker)!r}, 'w')"
                      f".write(sys.argv[1])\" %s"}
    import os

    run = subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{path}",
                          "--bots-dir", str(bots), "report", "--season", "spring", "-o",
                          str(tmp_path / "s"), "--open"], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=600)
    assert run.returncode == 0, run.stderr
    assert marker.read_text() == (tmp_path / "s" / "index.html").resolve().as_uri()


# -- in a real browser ------------------------------------------------------------------------

ARTIFACTS = Path(__file__).resolve().parents[1] / "results" / "test-artifacts"


@pytest.fixture(scope="module")
def browser():
    chrome = chromium()
    yield chrome
    chrome.quit()


def load(browser, page: Path) -> None:
    browser.get(page.resolve().as_uri())
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def test_in_a_browser_the_index_lists_every_bot_of_every_season(league, browser):
    from selenium.webdriver.common.by import By

    _, out, _ = league
    load(browser, out / "index.html")
    listed = {e.text.split()[0] for e in browser.find_elements(By.CSS_SELECTOR,
                                                                 "tr.bot-row td.name")}
    assert listed == {"random", "greedy", "crasher", "first"}


def test_in_a_browser_the_rating_chart_draws(league, browser):
    from selenium.webdriver.common.by import By

    path, out, _ = league
    engine = db.connect(f"sqlite:///{path}", create=False)
    load(browser, out / f"season-{db.get_season(engine, 'spring').id}.html")
    painted = browser.execute_script("""
        const c = document.querySelector('#rating-chart canvas');
        if (!c) return -1;
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
        return n;""")
    assert painted > 2000  # lines and bands, not an empty canvas
    legend = browser.execute_script(
        "return [...document.querySelectorAll('.u-legend .u-label')].map(e => e.textContent)")
    assert {"random", "greedy", "crasher"} <= set(legend)
    # the cursor off the chart, the legend shows where the season ended, never "--"
    values = browser.execute_script(
        "return [...document.querySelectorAll('.u-legend tr')].map(r => [r.querySelector("
        "'.u-label').textContent, r.querySelector('.u-value').textContent])")
    chart = json.loads(browser.find_element(By.ID, "chart-data").get_attribute("textContent"))
    shown = dict(values)
    assert "--" not in shown.values(), values
    assert shown["match"] == str(chart["x"][-1])
    for bot in ("random", "greedy", "crasher"):
        assert float(shown[bot]) == pytest.approx(chart["bots"][bot]["mu"][-1], abs=0.005)


def _viewer(browser, out: Path, match_id: int) -> None:
    load(browser, out / f"match-{match_id}.html")


STEP_ALL = """
    const view = document.getElementById('view');
    view.value = arguments[0];
    view.dispatchEvent(new Event('change'));
    document.getElementById('first').click();
    const steps = Number(document.getElementById('jump').max);
    const seen = [];
    for (let i = 0; i <= steps; i++) {
        seen.push([...document.querySelectorAll('#table .card[data-card]')]
                  .map(e => e.dataset.card));
        document.getElementById('forward').click();
    }
    return seen;"""


def test_in_a_browser_a_seat_sees_only_what_it_knew_and_everyone_sees_all(league, browser):
    path, out, _ = league
    engine = db.connect(f"sqlite:///{path}", create=False)
    for name, game in (("cherki-one", CHERKI), ("spring", VANDTIA), ("tractor-one", TRACTOR)):
        row = db.get_season(engine, name)
        match, seats = next(db.season_matches(engine, row.id))
        actions = json.loads(match.replay)
        _viewer(browser, out, match.id)
        players = len(seats)
        for seat in range(players):
            seen = browser.execute_script(STEP_ALL, str(seat))
            assert len(seen) == len(actions) + 1
            state = game.new_state(row.variant, players, match.seed)
            for i, cards in enumerate(seen):
                if i:
                    state.apply(actions[i - 1])
                assert set(cards) <= named(state.observation(seat)), (name, seat, i)
                assert set(state.observation(seat)["hand"]) <= set(cards)
        everyone = browser.execute_script(STEP_ALL, str(players))
        state = game.new_state(row.variant, players, match.seed)
        for hand in state.reveal()["hands"]:  # the deal: every hand in full
            assert all(everyone[0].count(c) >= hand.count(c) for c in hand)
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors


def test_in_a_browser_the_replay_steps_with_the_keyboard(league, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    path, out, _ = league
    engine = db.connect(f"sqlite:///{path}", create=False)
    row = db.get_season(engine, "cherki-one")
    match, _ = next(db.season_matches(engine, row.id))
    _viewer(browser, out, match.id)
    body = browser.find_element(By.TAG_NAME, "body")
    step = lambda: int(browser.find_element(By.ID, "jump").get_attribute("value"))  # noqa: E731
    log = lambda: browser.find_element(By.ID, "log").text  # noqa: E731
    assert step() == 0 and "the deal" in log()
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    assert step() == 3 and "the deal" not in log()
    third = log()
    body.send_keys(Keys.ARROW_LEFT)
    assert step() == 2 and log() != third
    body.send_keys(Keys.END)
    assert step() == len(json.loads(match.replay))
    body.send_keys(Keys.HOME)
    assert step() == 0
    for _ in range(12):
        body.send_keys(Keys.ARROW_RIGHT)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "match-page.png"))
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


@pytest.mark.parametrize("game, variant, players", [
    (VANDTIA, "swedish", 3), (CHERKI, "standard", 3), (TRACTOR, "deal", 4)])
def test_reveal_shows_every_card_the_public_table_does_not(game, variant, players):
    """reveal() and one observation together hold every card of the deal, at every step."""
    for seed in range(3):
        state, rng = game.new_state(variant, players, seed), random.Random(seed)
        while not state.is_over():
            r, o = state.reveal(), state.observation(0)
            if game is CHERKI:
                total = sum(map(len, r["hands"])) + len(r["stock"]) + len(o["pile"])
                deck = 120
            elif game is VANDTIA:
                total = (sum(map(len, r["hands"])) + len(r["stock"]) + len(o["pile"])
                         + len(o["burned"]) + sum(len(s["faceup"]) for s in o["seats"])
                         + sum(c is not None for down in r["facedown"] for c in down))
                deck = 52
            else:
                played = sum(len(c) for t in o["tricks"] for _, c in t["plays"]) + sum(
                    len(c) for _, c in o["trick"]["plays"])
                total = sum(map(len, r["hands"])) + played + (
                    8 if o["phase"] == "bid" else len(r["buried"]))
                deck = 108
            assert total == deck, (seed, o["move"])
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])


TAGGER = """
import arena

class Bot:
    def act(self, observation, legal):
        raise RuntimeError("<!-- </script><script>document.title='owned'</script> & <b>")

@arena.hookimpl
def register_bots(register):
    register("tagger", Bot, games=["vandtia"])
"""


def test_in_a_browser_a_replay_shows_whatever_text_a_bot_wrote(tmp_path, browser):
    """A fault reason is the bot's own text: ``<!--`` or ``</script>`` in it leaves the
    page's embedded JSON whole, and the viewer draws the match."""
    (tmp_path / "tagger.py").write_text(TAGGER)
    path = tmp_path / "a.db"
    run = arena("season", "run", "vandtia", "--bots", "tagger,random", "--rounds", "1",
                "--name", "t", "--workers", "1", db_path=path, bots_dir=tmp_path)
    assert run.returncode == 0, run.stderr
    engine = db.connect(f"sqlite:///{path}", create=False)
    match, _ = next(db.season_matches(engine, db.get_season(engine, "t").id))
    out = tmp_path / "site"
    run = arena("report", "-o", str(out), "--match", str(match.id), db_path=path,
                bots_dir=tmp_path)
    assert run.returncode == 0, run.stderr
    load(browser, out / f"match-{match.id}.html")
    data = browser.execute_script(
        "return JSON.parse(document.getElementById('frames').textContent)")
    assert "<!-- </script>" in json.dumps(data["result"])
    assert browser.title != "owned"
    cards = browser.execute_script(
        "return document.querySelectorAll('#table .card[data-card]').length")
    assert cards > 0


MYBOT = """
import arena

class Bot:
    def act(self, observation, legal):
        {body}

@arena.hookimpl
def register_bots(register):
    register("mybot", Bot, games=["vandtia"])
"""


@pytest.mark.slow
def test_a_bots_page_gathers_its_versions_seasons_matches_faults_and_reviews(tmp_path):
    """Two versions of a submitted bot, a season of both, an A/B match of the second
    against the first and a review: its page (in the report, and served) shows each, in a
    real browser, and the leaderboards link to it."""
    from selenium.webdriver.common.by import By

    path, src = tmp_path / "a.db", tmp_path / "src"
    src.mkdir()
    (src / "mybot.py").write_text(MYBOT.format(body="return legal[0]"))
    first = arena("submit", str(src / "mybot.py"), "--matches", "2", db_path=path)
    key = re.search(r"key for \S+: (\S+)", first.stdout)[1]
    (src / "mybot.py").write_text(MYBOT.format(  # version 2 is slow: a season's tight
        body="import time; time.sleep(0.05)\n        return legal[-1]"))  # limits time it out
    assert arena("submit", str(src / "mybot.py"), "--key", key, "--matches", "2",
                 db_path=path).returncode == 0
    assert arena("season", "run", "vandtia", "--name", "s1", "--bots",
                 "mybot@1,mybot@2,greedy", "--rounds", "1", "--workers", "1", "--limits",
                 "move_s=0.01,bank_s=0.05", db_path=path).returncode == 0
    assert arena("match", "mybot@2", "mybot@1", "--games", "4", "--name", "two-vs-one",
                 "--workers", "1", db_path=path).returncode == 0
    engine = db.connect(f"sqlite:///{path}")
    first = next(m for m, seats in db.season_matches(engine, db.get_season(engine, "s1").id)
                 if any(s.bot == "mybot@1" for s in seats))
    assert arena("review", str(first.id), "--reviewer", "ismcts:iterations=20",
                 db_path=path).returncode == 0
    out = tmp_path / "report"
    assert arena("report", "-o", str(out), db_path=path).returncode == 0
    assert (out / "bot-mybot.html").exists() and (out / "bot-greedy.html").exists()
    browser = chromium()
    server = None
    try:
        browser.get((out / "index.html").as_uri())
        browser.find_element(By.LINK_TEXT, "mybot@2").click()
        assert browser.current_url.endswith("bot-mybot.html")
        versions = [r.get_attribute("data-bot") for r in
                    browser.find_elements(By.CSS_SELECTOR, "#versions tbody tr")]
        assert versions == ["mybot@1", "mybot@2"]
        v2 = browser.find_element(By.CSS_SELECTOR, '#versions tr[data-bot="mybot@2"]').text
        assert "s1: " in v2 and "vs mybot@1: Elo" in v2, v2
        seasons = browser.find_element(By.ID, "seasons").text
        assert "mybot@1" in seasons and "mybot@2" in seasons and " of 3" in seasons
        assert "two-vs-one" in browser.find_element(By.ID, "matches").text
        faults = browser.find_element(By.ID, "faults").text
        assert "timeout" in faults, faults
        figures = browser.find_element(By.ID, "review-figures").text
        assert re.match(r"\d+ decisions reviewed in 1 match: mean loss [\d.]+, [\d.]+ % best "
                        r"or good", figures), figures
        # the match's page on a phone: its tables (the worst pairs among them) scroll
        # within themselves, the page never sideways
        browser.set_window_size(390, 844)
        match_page = db.get_season(engine, "two-vs-one").id
        browser.get((out / f"season-{match_page}.html").as_uri())
        browser.find_element(By.ID, "worst")
        assert browser.execute_script("return document.documentElement.scrollWidth <= "
                                      "document.documentElement.clientWidth")
        # served, the same page
        from test_serve import Server

        server = Server(path)
        browser.get(server.url + "bot-mybot.html")
        assert [r.get_attribute("data-bot") for r in browser.find_elements(
            By.CSS_SELECTOR, "#versions tbody tr")] == versions
        browser.get(server.url + "bot-nobody.html")
        assert "nothing is stored of a bot named 'nobody'" in browser.page_source
    finally:
        browser.quit()
        if server is not None:
            server.stop()
