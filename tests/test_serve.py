"""``arena serve``: a real server (uvicorn, started as ``arena serve --port 0`` is) and a real
browser (headless Chromium through Selenium): pages, a season followed live, and people
playing bots at tables - clicked to the end, stored and verified, with every response the
browser received checked for cards its seat did not know, seeds and the secret."""

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from conftest import CRASHER, chromium
from test_human import arena, cards_shown, strings

from arena import db
from arena.cards import keyed_seed
from arena.plugins import Registry
from arena.referee import play_match, replay
from arena.sandbox import PythonBot
from arena.sandbox.bot import make_bot

pytestmark = pytest.mark.slow
WAIT = 120  # seconds at most for anything awaited: a loaded machine is slow, never this slow


class Server:
    """``arena serve`` in a process of its own, on a free port (or the one given)."""

    def __init__(self, db_path, port: int = 0, bots_dir=None, options=()):
        extra = ["--bots-dir", str(bots_dir)] if bots_dir else []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena", "--db", f"sqlite:///{db_path}", *extra, "serve",
             "--port", str(port), *options], stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        line = self.process.stderr.readline()  # the server says where it listens, or why not
        found = re.search(r"serving (http://\S+)", line)
        assert found, line + self.process.stderr.read()
        self.url = found.group(1)
        self.port = int(self.url.rsplit(":", 1)[1].strip("/"))

    def stop(self, sig=signal.SIGINT) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(WAIT)
        self.process.stderr.close()


@pytest.fixture
def served(tmp_path):
    servers = []

    def start(port: int = 0, bots_dir=None, db_path=None, options=()) -> Server:
        servers.append(Server(db_path or tmp_path / "a.db", port, bots_dir, options))
        return servers[-1]
    yield start
    for server in servers:
        server.stop(signal.SIGKILL)


@pytest.fixture
def browser():
    chrome = chromium(performance=True)
    yield chrome
    chrome.quit()


def wait(browser, condition, what: str):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, WAIT, poll_frequency=0.05).until(
        lambda b: condition(b), message=what)


def panel(browser) -> dict:
    return browser.execute_script(
        "const p = document.getElementById('panel'); return p ? {...p.dataset} : {};")


def fill(browser, url: str, page: str, table: str, fields: dict, before=None) -> None:
    """Open ``page`` (play.html, challenge.html), choose ``table``, type ``fields`` (their
    ids and values, in order), run ``before`` on the page, and send the form."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(url + page)
    # the bots' moves shown at once (a person's default paces them), unless a test chose
    browser.execute_script("if (localStorage.getItem('arena-speed') === null) "
                           "localStorage.setItem('arena-speed', '0')")
    Select(browser.find_element(By.ID, "table-kind")).select_by_value(table)
    for field, value in fields.items():
        box = browser.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    if before is not None:
        before(browser)
    browser.find_element(By.ID, "sit").click()


def sit(browser, url: str, table: str, opponents: str, seat: int = 0, name: str = "") -> int:
    """Fill the play form and sit down; the table's id."""
    fill(browser, url, "play.html", table, {"seat": str(seat), "opponents": opponents,
                                            "name": name})
    wait(browser, lambda b: panel(b).get("status"), "the table's first state")
    return int(re.search(r"table-(\d+)\.html", browser.current_url).group(1))


#: Waits in the page until the person is to move (at another move than ``arguments[0]``)
#: or the match is over; answers the panel's state, the action buttons and their actions.
READY = """
const done = arguments[arguments.length - 1], before = arguments[0];
(function look() {
  const p = document.getElementById('panel'), d = p ? {...p.dataset} : {};
  if (d.status && d.moves !== before && (d.status !== 'running' || d.turn === 'yours')) {
    const buttons = [...document.querySelectorAll('#actions button.action')];
    return done([d, buttons, buttons.map(b => b.dataset.action)]);
  }
  setTimeout(look, 20);
})();
"""
NATIVE = 3  # the first decisions of a match are clicked as a user clicks, the rest by click()


def quick(actions: list[str], i: int) -> int:
    """The action of the most words: the most cards put down, a call - a shorter match."""
    words = [len(a.split()) for a in actions]
    return words.index(max(words))


def varied(actions: list[str], i: int) -> int:
    """A varied choice, the same on every run."""
    return (i * 7) % len(actions)


def click_to_the_end(browser, choose=quick, stop_at=None, native: int = NATIVE) -> int:
    """Click an action at every decision until the match is over (or ``stop_at`` moves);
    the decisions clicked. The first ``NATIVE`` clicks go through WebDriver, as a user's
    pointer does; the others are the button's own ``click()`` in the page, the same event
    to the same handler, in a tenth of the time."""
    from selenium.common.exceptions import StaleElementReferenceException

    browser.set_script_timeout(WAIT)
    clicks, before = 0, None
    while True:
        state, buttons, actions = browser.execute_async_script(READY, before)
        if state["status"] != "running" or (stop_at is not None and
                                            int(state["moves"]) >= stop_at):
            return clicks
        button = buttons[choose(actions, clicks)]
        try:
            if clicks < native:
                button.click()
            else:
                browser.execute_script("arguments[0].click()", button)
        except StaleElementReferenceException:  # drawn again as it was clicked: look again
            continue
        clicks, before = clicks + 1, state["moves"]


class Received:
    """Every response body and server-sent event the browser received, from Chromium's
    network log."""

    def __init__(self, browser):
        self.browser = browser
        self.bodies: list[tuple[str, str]] = []

    def collect(self) -> None:
        for entry in self.browser.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            params = message.get("params", {})
            if message["method"] == "Network.eventSourceMessageReceived":
                self.bodies.append(("event", params["data"]))
            elif message["method"] == "Network.loadingFinished":
                try:
                    body = self.browser.execute_cdp_cmd(
                        "Network.getResponseBody", {"requestId": params["requestId"]})
                except Exception:  # noqa: BLE001 - a redirect or a stream has no body to read
                    continue
                self.bodies.append(("response", body["body"]))


def known_cards(game, variant, players, deal_seed, actions, seat) -> list[set[str]]:
    """The strings the seat's observations held after 0, 1, ... actions (cumulative)."""
    state = game.new_state(variant, players, deal_seed)
    known = strings(state.observation(seat))
    out = [set(known)]
    for action in actions:
        state.apply(action)
        known |= strings(state.observation(seat))
        out.append(set(known))
    return out


def stored(db_path, table_id: int):
    engine = db.connect(f"sqlite:///{db_path}", create=False)
    row = db.season_by_id(engine, table_id)
    matches = list(db.season_matches(engine, table_id))
    return row, matches


def check_nothing_leaked(received: Received, game, row, match, seat: int | None = None) -> int:
    """Each JSON response names only cards the seat it shows (``seat``, or the one it says)
    knew by then; no body holds the season's secret, the deal seed or a bot's seed. The
    responses checked."""
    actions = json.loads(match.replay)
    known = {s: known_cards(game, row.variant, row.players, match.seed, actions, s)
             for s in range(row.players)}
    secrets = [row.secret, str(match.seed)] + [
        str(keyed_seed(row.secret, "bot", match.seed, s)) for s in range(row.players)]
    checked = 0
    for kind, body in received.bodies:
        for secret in secrets:
            assert secret not in body, (kind, body[:300])
        if kind == "event":
            assert not cards_shown(game.name, body), body
            continue
        if body.lstrip().lower().startswith("<!doctype"):  # a page: it shows no card itself
            assert not cards_shown(game.name, body), body[:300]
            continue
        if not body.startswith("{"):
            continue
        data = json.loads(body)
        if "moves" not in data:
            continue
        shows = data["seat"] if seat is None else seat
        assert data["seat"] == shows
        shown = cards_shown(game.name, body)
        assert shown <= known[shows][data["moves"]] | set(data.get("legal") or ()), (
            shown - known[shows][data["moves"]], data["moves"])
        checked += 1
    return checked


def verified(db_path, season_name: str, tmp_path, matches: int = 1) -> None:
    exported = arena("season", "export", season_name, db_path=db_path)
    assert exported.returncode == 0, exported.stderr
    (tmp_path / "m.jsonl").write_text(exported.stdout)
    out = arena("verify", str(tmp_path / "m.jsonl"), db_path=db_path)
    assert out.returncode == 0 and f"{matches} match(es) verified" in out.stdout, out


#: Plays ``arguments[0]`` as a person does, by the cards: each card of the action chosen
#: from the seat's own cards (a face-down card for a flip), then - unless that choice was
#: played at once - the choice button that says it; an action without cards by the pile,
#: the stock or its button. Never the action strings' list. Answers how it was played.
BY_CARDS = """
const action = arguments[0], CARD = /^(10|[2-9JQKA])[CDHS]$|^(BJ|SJ)$|^[1-9][CSM]$|^(WF|RF|OT)$/;
const words = action.split(' ');
const tokens = words[0] === 'flip' ? ['down:' + words[1]] : words.filter(w => CARD.test(w));
const before = document.getElementById('panel').dataset.moves;
const used = new Set();
for (const t of tokens) {
  const card = [...document.querySelectorAll('#me .pick')].find(
    c => c.dataset.token === t && !used.has(c.dataset.key));
  if (!card) return 'no card ' + t;
  used.add(card.dataset.key);
  card.click();
  if (document.getElementById('panel').dataset.moves !== before ||
      document.querySelector('#choice').dataset.state === 'posting') return 'cards';
}
const button = [...document.querySelectorAll('#choice button.choose')].find(
  b => b.dataset.choice === action);
if (!tokens.length && (words[0] === 'pickup' || words[0] === 'take' || words[0] === 'draw')) {
  const zone = document.querySelector(words[0] === 'draw' ? '#middle [data-zone="stock"].target'
                                      : '#middle [data-zone="pile"].target');
  if (zone) { zone.click(); return 'zone'; }
}
if (!button) return tokens.length ? 'cards' : 'no button for ' + action;
button.click();
return 'button';
"""

#: Where the zones a decision needs lie, in the page's own coordinates, and whether the
#: page scrolls sideways.
PLACES = """
const steps = q => [...document.querySelectorAll(q)].map(li => Number(li.dataset.step));
const box = z => { const e = document.querySelector(z); if (!e) return null;
  const r = e.getBoundingClientRect();
  return [r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY]; };
return {hand: box('#me [data-zone="hand"]'),
        middle: box('#middle [data-zone="pile"]') || box('#middle [data-zone="trick"]'),
        log: box('#log'), width: innerWidth, height: innerHeight,
        scroll: document.documentElement.scrollWidth,
        fresh: steps('#log li.new'), forced: steps('#log li.forced')};
"""


def phone(browser, size: tuple[int, int]) -> None:
    """The page's viewport made ``size`` (a phone's is drawn as one: touch, no scrollbar)."""
    width, height = size
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500})


def instant(browser, url: str) -> None:
    """The bots' moves shown at once (the table's speed setting), so a test waits for none."""
    browser.get(url + "play.html")
    browser.execute_script("localStorage.setItem('arena-speed', '0')")


def play_by_cards(browser, choose=varied, places=None, decisions: int | None = None,
                  moves: list | None = None) -> int:
    """Play every decision to the end (or ``decisions`` of them, then wait for the next) by
    the cards (``BY_CARDS``); ``places(state, seen)`` is called at each decision with
    ``PLACES``, and the move each decision was at is added to ``moves``. The decisions
    played."""
    browser.set_script_timeout(WAIT)
    clicks, before = 0, None
    while True:
        state, _, actions = browser.execute_async_script(READY, before)
        if state["status"] != "running" or clicks == decisions:
            return clicks
        if moves is not None:
            moves.append(int(state["moves"]))
        if places is not None:
            places(state, browser.execute_script(PLACES))
        how = browser.execute_script(BY_CARDS, actions[choose(actions, clicks)])
        assert how in ("cards", "zone", "button"), how
        clicks, before = clicks + 1, state["moves"]


@pytest.mark.parametrize(("table", "opponents", "seat", "size"), [
    ("vandtia/cardems/2", "random", 1, (390, 844)),
    ("vandtia/swedish/3", "random", 2, (1280, 800)),
    ("tractor/deal/4", "random", 1, (390, 844)),
    ("cherki/standard/3", "random", 0, (1280, 800))])
def test_a_match_clicked_to_its_end_is_stored_verified_and_leaked_nothing(
        served, browser, tmp_path, table, opponents, seat, size):
    """Played by the cards alone at a laptop's and a phone's size: at every decision the
    hand, the pile or trick and the log lie on the first screen, nothing scrolls sideways,
    and the log marks exactly the moves made since the person's last one."""
    server = served()
    received = Received(browser)
    phone(browser, size)
    instant(browser, server.url)
    table_id = sit(browser, server.url, table, opponents, seat, "Ada")
    mine: list[int] = []  # the moves at which the person chose

    def places(state, seen):
        assert seen["scroll"] <= seen["width"], seen
        for zone in ("hand", "middle", "log"):
            left, top, right, bottom = seen[zone]
            assert left >= 0 and top >= 0 and right <= seen["width"] and \
                bottom <= seen["height"], (zone, seen)
        moves = int(state["moves"])
        since = mine[-1] + 2 if mine else 1  # the frame after the person's own move
        assert seen["fresh"] == list(range(since, moves + 1)), seen
        mine.append(moves)

    clicks = play_by_cards(browser, varied, places)
    received.collect()
    assert clicks > 3
    state = panel(browser)
    assert state["status"] == "done"
    from selenium.webdriver.common.by import By

    from arena.web.tables import ending

    row, matches = stored(tmp_path / "a.db", table_id)
    assert row.status == "done" and len(matches) == 1
    match, seats = matches[0]
    assert seats[seat].bot == "human:Ada"
    result = {"ranks": [s.rank for s in seats], "scores": [s.score for s in seats],
              "reason": match.reason, "faults": [s.fault for s in seats]}
    assert browser.find_element(By.ID, "status").text.startswith(
        ending(row.game, [s.bot for s in seats], seat, result, seat))
    game = Registry().game(row.game)
    # every forced move (the only legal one: played unasked) is announced in the log
    replayed = game.new_state(row.variant, row.players, match.seed)
    forced = []
    for i, action in enumerate(json.loads(match.replay)):
        if len(replayed.legal_actions()) == 1:
            forced.append(i + 1)
        replayed.apply(action)
    assert forced and browser.execute_script(PLACES)["forced"] == forced
    assert check_nothing_leaked(received, game, row, match, seat) >= clicks
    verified(tmp_path / "a.db", row.name, tmp_path)
    # its replay: every view, now that it has ended
    browser.find_element(By.ID, "replay").click()
    wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#view option"), "the replay")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#view option")) == row.players + 1


def test_pages_of_the_leagues_seasons_and_matches_are_served(served, browser, tmp_path):
    from selenium.webdriver.common.by import By

    run = arena("season", "run", "vandtia", "--bots", "greedy,random", "--rounds", "2",
                "--public-seed", "--name", "spring", db_path=tmp_path / "a.db")
    assert run.returncode == 0, run.stderr
    server = served()
    browser.get(server.url)
    listed = {e.text.split()[0] for e in browser.find_elements(By.CSS_SELECTOR,
                                                                 "tr.bot-row td.name")}
    assert listed == {"greedy", "random"}
    browser.find_element(By.LINK_TEXT, "spring").click()
    assert "4/4 matches (done)" in browser.find_element(By.ID, "progress").text
    assert not browser.find_elements(By.ID, "live")  # a season that ended is not followed
    browser.find_element(By.CSS_SELECTOR, "td a[href^='match-']").click()
    wait(browser, lambda b: b.find_element(By.ID, "log").text.startswith("step"), "the replay")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    for path, status in (("season-99.html", 404), ("match-99.html", 404), ("nowhere", 404),
                         ("table-1.html", 404), ("api/table/x", 404)):
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(server.url + path)
        assert e.value.code == status
        assert "Traceback" not in e.value.read().decode()


def test_a_live_season_page_updates_as_batches_are_stored(served, browser, tmp_path):
    """A season runs beside the server; its page, opened once, shows new standings and
    progress as the runner stores batches - with no reload."""
    from selenium.webdriver.common.by import By

    db_path = tmp_path / "a.db"
    server = served()
    runner = subprocess.Popen(
        [sys.executable, "-m", "arena", "--db", f"sqlite:///{db_path}", "season", "run",
         "vandtia", "--bots", "ismcts:iterations=60,random", "--rounds", "40", "--batch", "4",
         "--workers", "1", "--name", "live", "--public-seed"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        engine = db.connect(f"sqlite:///{db_path}")
        deadline = time.monotonic() + WAIT
        while "live" not in db.season_names(engine):  # the season's row: an observable event
            assert runner.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        season_id = db.get_season(engine, "live").id
        browser.get(f"{server.url}season-{season_id}.html")
        assert browser.find_element(By.ID, "live")
        browser.execute_script("window.notReloaded = true")
        first = browser.find_element(By.ID, "progress").text
        wait(browser, lambda b: b.find_element(By.ID, "progress").text != first,
             "the progress to move")
        later = browser.find_element(By.ID, "progress").text
        stored, _ = db.progress(engine, season_id)
        assert int(later.split("/")[0]) > int(first.split("/")[0]) and stored >= int(
            later.split("/")[0])
        assert browser.execute_script("return window.notReloaded === true")
        names = {e.text.split()[0] for e in browser.find_elements(
            By.CSS_SELECTOR, "#standings tr.bot-row td.name")}
        assert names == {"ismcts:iterations=60", "random"}
        assert browser.execute_script(
            "return document.querySelectorAll('#rating-chart canvas').length") >= 1
    finally:
        runner.kill()
        runner.wait()


def test_a_running_match_is_watched_from_the_persons_seat_only(served, browser, tmp_path):
    from selenium.webdriver.common.by import By

    server = served()
    table_id = sit(browser, server.url, "vandtia/cardems/2", "random", 0)
    click_to_the_end(browser, stop_at=4)
    watcher = chromium()
    try:
        watcher.get(f"{server.url}table-{table_id}.html")
        wait(watcher, lambda b: panel(b).get("status") == "running", "the watched table")
        assert panel(watcher)["turn"] == "theirs"  # a watcher is offered no action
        assert not watcher.find_elements(By.CSS_SELECTOR, "#actions button")
        for view in ("everyone", "1"):
            watcher.get(f"{server.url}table-{table_id}.html?view={view}")
            assert "opens on its replay page when it ends" in watcher.find_element(
                By.ID, "error").text
        # the watcher follows the person's moves as they land
        watcher.get(f"{server.url}table-{table_id}.html")
        wait(watcher, lambda b: panel(b).get("status") == "running", "the watched table")
        moves = panel(watcher)["moves"]
        click_to_the_end(browser, stop_at=int(moves) + 2)
        wait(watcher, lambda b: panel(b).get("moves") != moves, "the watcher to follow")
        click_to_the_end(browser)
        watcher.get(f"{server.url}table-{table_id}.html?view=everyone")
        assert re.search(r"match-\d+\.html$", watcher.current_url)  # the replay, every view
    finally:
        watcher.quit()


_VISITORS: dict = {}


def visitor(base: str) -> tuple[str, str]:
    """A visitor of the server at ``base``: its cookie (``name=value``) and its token, as a
    page it loads gives them (``arena.web.guard``)."""
    if base not in _VISITORS:
        with urllib.request.urlopen(base + "play.html") as r:
            cookie = r.headers["Set-Cookie"].split(";")[0]
            page = r.read().decode()
        _VISITORS[base] = cookie, re.search(r'name="arena-token" content="(\w+)"', page)[1]
    return _VISITORS[base]


def _post(url: str, body, cookie: str | None = None, token: bool = True,
          origin: str | None = None):
    """POST ``body`` (JSON, or bytes as they are) as a page of the server would: from its
    origin, with a visitor's cookie and token, and ``cookie`` (a table's) besides."""
    parts = urllib.parse.urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}/"
    mine, secret = visitor(base)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "Origin": origin or base.rstrip("/"),
               "Cookie": "; ".join(c for c in (mine, cookie) if c)}
    if token:
        headers["X-Arena-Token"] = secret
    request = urllib.request.Request(url, data=data, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        text = e.read()
        try:
            return e.code, json.loads(text)
        except ValueError:
            return e.code, {"error": text.decode()}


def test_bad_posts_get_a_clear_answer_and_change_nothing(served, browser, tmp_path):
    server = served()
    first = sit(browser, server.url, "vandtia/cardems/2", "random", 0)
    cookie = {c["name"]: c["value"] for c in browser.get_cookies()}
    mine = f"arena_table_{first}_{server.port}={cookie[f'arena_table_{first}_{server.port}']}"
    browser.delete_all_cookies()
    other = sit(browser, server.url, "vandtia/cardems/2", "random", 1)
    state = json.loads(urllib.request.urlopen(
        f"{server.url}api/table/{first}?since=0").read())
    assert state["legal"] is None  # not sent to a browser without the seat's token
    at = state["moves"]
    move = f"{server.url}api/table/{first}/move"
    with_token = json.loads(urllib.request.urlopen(urllib.request.Request(
        f"{server.url}api/table/{first}?since=0", headers={"Cookie": mine})).read())
    legal = with_token["legal"]
    cases = [
        (move, {"action": "play nothing", "at": at}, mine, 400, "not a legal action"),
        (move, {"action": legal[0], "at": at - 1}, mine, 409, "stale move"),
        (move, {"action": legal[0], "at": at}, None, 403, "not yours"),
        (f"{server.url}api/table/{other}/move", {"action": legal[0], "at": at}, mine, 403,
         "not yours"),
        (f"{server.url}api/table/999/move", {"action": legal[0], "at": at}, mine, 404,
         "no match"),
        (move, b"{not json", mine, 400, "a move is JSON"),
        (move, b"x" * 100_000, mine, 413, None),
    ]
    for url, body, cookie_header, status, text in cases:
        code, answer = (_post(url, body, cookie_header) if status != 413 else
                        _post_raw(url, body, cookie_header))
        assert code == status, (url, body[:40] if isinstance(body, bytes) else body, answer)
        if text:
            assert text in answer["error"], answer
    after = json.loads(urllib.request.urlopen(urllib.request.Request(
        f"{server.url}api/table/{first}?since=0", headers={"Cookie": mine})).read())
    assert after["moves"] == at and after["legal"] == legal and len(after["frames"]) == len(
        with_token["frames"])
    code, answer = _post(move, {"action": legal[0], "at": at}, mine)
    assert code == 200 and answer["moves"] > at


def _form_post(base: str, page: str, form: bytes, origin: str | None = None) -> int:
    """Post a form as the server's page would (its visitor, origin and token): the table
    it opens."""
    cookie, token = visitor(base)
    request = urllib.request.Request(f"{base}{page}?csrf={token}", data=form, method="POST",
                                     headers={"Cookie": cookie,
                                              "Origin": origin or base.rstrip("/")})
    with urllib.request.urlopen(request) as r:
        return int(re.search(r"table-(\d+)", r.url).group(1))


def _post_raw(url: str, body: bytes, cookie):
    code, _ = _post(url, body, cookie)
    return code, None


def test_a_bot_that_crashes_forfeits_with_the_reason_shown(served, browser, tmp_path):
    from selenium.webdriver.common.by import By

    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "crasher.py").write_text(CRASHER)
    server = served(bots_dir=bots)
    table_id = sit(browser, server.url, "vandtia/cardems/2", "crasher", 0)
    click_to_the_end(browser)
    text = browser.find_element(By.ID, "status").text
    assert text.startswith("crasher forfeited (crash: RuntimeError: always). You went out "
                           "first — you win."), text
    row, matches = stored(tmp_path / "a.db", table_id)
    assert row.status == "done" and matches[0][1][1].fault.startswith("crash")
    assert matches[0][1][0].rank == 1


def test_a_form_with_a_mistake_says_what_and_sits_nobody(served, browser, tmp_path):
    from selenium.webdriver.common.by import By

    server = served()
    for table, opponents, seat, name, says in (
            ("vandtia/cardems/2", "nobody", 0, "", "unknown bot 'nobody'"),
            ("vandtia/swedish/3", "random, random, random", 0, "", "needs 2 opponents"),
            ("vandtia/cardems/2", "random", 5, "", "your seat is one of 0-1"),
            ("vandtia/cardems/2", "random", 0, "a b", "human seat is")):
        fill(browser, server.url, "play.html", table,
             {"seat": str(seat), "opponents": opponents, "name": name},
             before=lambda b: b.execute_script(  # what the server says, not the page
                 "document.getElementById('name').removeAttribute('pattern')"))
        wait(browser, lambda b: b.find_elements(By.ID, "error"), "the form's answer")
        assert says in browser.find_element(By.ID, "error").text
    engine = db.connect(f"sqlite:///{tmp_path / 'a.db'}")
    assert not [n for n in db.season_names(engine) if n.startswith("human/")]


def test_two_browsers_play_two_matches_at_once(served, browser, tmp_path):
    server = served()
    second = chromium()
    try:
        a = sit(browser, server.url, "vandtia/cardems/2", "random", 0, "Ada")
        b = sit(second, server.url, "cherki/standard/3", "random", 1, "Bo")
        done, rounds = {}, 0
        while len(done) < 2:  # a move in one, then a move in the other
            for who, table in ((browser, a), (second, b)):
                if table in done:
                    continue
                clicked = click_to_the_end(who, stop_at=int(panel(who)["moves"]) + 1,
                                           native=int(rounds < NATIVE))
                if not clicked and panel(who)["status"] != "running":
                    done[table] = panel(who)["status"]
            rounds += 1
        assert done == {a: "done", b: "done"}
        for table, person in ((a, "human:Ada"), (b, "human:Bo")):
            row, matches = stored(tmp_path / "a.db", table)
            assert person in [s.bot for s in matches[0][1]]
    finally:
        second.quit()


@pytest.mark.serial
def test_a_server_killed_mid_match_resumes_it_to_the_same_result(served, browser, tmp_path):
    """kill -9 the server in the middle of a person's match; started again on the same
    port, the page goes on where it was and the match ends as an uninterrupted match with
    the same moves does."""
    server = served()
    table_id = sit(browser, server.url, "vandtia/cardems/2", "random", 1, "Ada")
    click_to_the_end(browser, stop_at=12)
    server.stop(signal.SIGKILL)
    served(port=server.port)
    browser.refresh()
    wait(browser, lambda b: panel(b).get("status") == "running", "the match again")
    click_to_the_end(browser)
    row, matches = stored(tmp_path / "a.db", table_id)
    match, seats = matches[0]
    actions = json.loads(match.replay)
    game = Registry().game("vandtia")

    # the same deal and seeds, the person's choices replayed, the bot started afresh
    state = replay(game, "cardems", 2, match.seed, [])
    person = []
    for action in actions:
        if state.to_move == 1 and len(state.legal_actions()) > 1:
            person.append(action)
        state.apply(action)

    class Script:
        def act(self, observation, legal):
            return person.pop(0)
    bot = make_bot(Registry().bot("random", "vandtia"))
    try:
        again, _ = play_match(game, "cardems", [bot, PythonBot(Script())], match.seed,
                              ["random", "human:Ada"], secret=row.secret)
    finally:
        bot.close()
    assert again.actions == actions
    assert [s.rank for s in seats] == again.result.ranks
    assert [s.score for s in seats] == again.result.scores


PAIRS = "return [...document.querySelectorAll('#deals td.pair')].map(e => e.textContent)"


def test_a_challenge_of_three_deals_scores_as_a_hand_computation_does(served, browser,
                                                                       tmp_path):
    """The person plays three fresh deals; greedy plays each of them from the same seat
    against the same opponent only once the person's game of it is over; each deal's pair
    is ½ + (the person's place - greedy's) / 2, and the verdict is arena match's estimate
    of those pairs."""
    from selenium.webdriver.common.by import By

    from arena.leagues import stats

    server = served()
    engine = db.connect(f"sqlite:///{tmp_path / 'a.db'}")
    fill(browser, server.url, "challenge.html", "vandtia/cardems/2",
         {"seat": "1", "opponents": "random", "bot": "greedy", "deals": "3", "name": "Ada"})
    challenge = None
    for deal in range(3):
        wait(browser, lambda b: panel(b).get("status"), "the deal's table")
        link = browser.find_element(By.ID, "challenge")
        challenge = challenge or int(re.search(r"challenge-(\d+)", link.get_attribute(
            "href")).group(1))
        click_to_the_end(browser, stop_at=4)
        # while the person plays a deal, its bot game does not exist
        assert deal not in db.stored_fixtures(engine, challenge)
        click_to_the_end(browser)
        if deal == 0:  # the next deal from the table itself, once its game is over
            button = wait(browser, lambda b: [e for e in b.find_elements(By.ID, "next-deal")
                                              if e.is_displayed()], "the next deal's button")
            assert button[0].text == "next deal: 2 of 3"
            button[0].click()
            continue
        if deal == 2:
            assert not browser.find_elements(By.ID, "next-deal")  # no deal is left
        browser.find_element(By.ID, "challenge").click()
        wait(browser, lambda b, deal=deal: len(pairs := b.execute_script(PAIRS)) > deal and (
            pairs[deal]), "the bot's game of the deal")
        if deal < 2:
            browser.find_element(By.ID, "next").click()
    assert not browser.find_elements(By.ID, "next")
    shown = [float(p) for p in browser.execute_script(PAIRS)]
    verdict = browser.find_element(By.ID, "verdict").text

    # by hand, from the stored games
    row = db.season_by_id(engine, challenge)
    options = json.loads(row.options)["challenge"]
    bot_games = {m.fixture: (m, seats) for m, seats in db.season_matches(engine, row.id)}
    pairs = []
    seeds = set()
    for k, table_id in enumerate(options["tables"]):
        mine, my_seats = next(db.season_matches(engine, table_id))
        theirs, their_seats = bot_games[k]
        assert mine.seed == theirs.seed  # the same cards
        assert [s.bot for s in my_seats] == ["random", "human:Ada"]
        assert [s.bot for s in their_seats] == ["random", "greedy"]
        seeds.add(mine.seed)

        def place(seats):  # two seats: 1 for the better rank, ½ level, 0 worse
            return 1.0 if seats[1].rank < seats[0].rank else 0.5 if (
                seats[1].rank == seats[0].rank) else 0.0
        pairs.append(0.5 + (place(my_seats) - place(their_seats)) / 2)
    assert len(seeds) == 3 and shown == pairs
    table = {}
    for p in pairs:
        table[p] = table.get(p, 0) + 1
    e = stats.estimate(table)
    assert f"score {100 * e.score:.1f} %" in verdict, verdict
    assert f"over 3 deals: {sum(p > .5 for p in pairs)} better" in verdict, verdict
    assert row.status == "done"
    # fresh deals: the challenge's secret is its own, and every game verifies
    others = [db.season_by_id(engine, t).secret for t in options["tables"]]
    assert set(others) == {row.secret}
    assert all(r.secret != row.secret for r, _ in db.list_seasons(engine)
               if r.id not in options["tables"] + [row.id])
    verified(tmp_path / "a.db", row.name, tmp_path, matches=3)


def test_leaving_a_match_stores_it_abandoned_and_nothing_moves_after(served, browser,
                                                                      tmp_path):
    server = served()
    table_id = sit(browser, server.url, "cherki/standard/3", "random", 2)
    cookie = {c["name"]: c["value"] for c in browser.get_cookies()}
    mine = f"arena_table_{table_id}_{server.port}=" \
        f"{cookie[f'arena_table_{table_id}_{server.port}']}"
    abandon = f"{server.url}api/table/{table_id}/abandon"
    assert _post(abandon, {}, None)[0] == 403
    code, state = _post(abandon, {}, mine)
    assert code == 200 and state["status"] == "abandoned" and state["legal"] is None
    code, answer = _post(f"{server.url}api/table/{table_id}/move",
                         {"action": "draw", "at": state["moves"]}, mine)
    assert code == 409 and "abandoned" in answer["error"]
    row, matches = stored(tmp_path / "a.db", table_id)
    assert row.status == "abandoned" and not matches
    assert json.loads(row.options)["abandoned_at_move"] == state["moves"]


def test_a_port_in_use_is_one_line_and_status_2(served, tmp_path):
    server = served()
    out = arena("serve", "--port", str(server.port), db_path=tmp_path / "a.db")
    assert out.returncode == 2
    assert out.stderr.strip() == (f"arena: error: cannot listen on 127.0.0.1:{server.port}: "
                                  "Address already in use")


def test_ctrl_c_stops_the_server_with_a_table_and_its_feed_open(served, tmp_path):
    """A live table (its bots' processes running) and a browser's open event stream do not
    keep the server from stopping; the match stays stored, to go on when it starts again."""
    server = served()
    form = urllib.parse.urlencode({"table": "vandtia/cardems/2", "seat": "0",
                                   "opponents": "random"}).encode()
    table_id = _form_post(server.url, "play.html", form)
    feed = urllib.request.urlopen(f"{server.url}events/table/{table_id}", timeout=WAIT)
    assert feed.readline().startswith(b"event: moved")  # the stream is open
    server.process.send_signal(signal.SIGINT)
    assert server.process.wait(WAIT) == 0
    feed.close()
    row, _ = stored(tmp_path / "a.db", table_id)
    assert row.status == "running"


def test_a_table_let_go_when_idle_is_taken_up_again_where_it_was(tmp_path):
    """A table nobody asks for has its bots stopped; asked for again, it is resumed from the
    database to the very same position."""
    from arena.web import tables
    from arena.web.app import Site

    engine = db.connect(f"sqlite:///{tmp_path / 'a.db'}")
    registry = Registry()
    site = Site(engine, registry, idle=3600)
    table, token = tables.create(engine, registry, "vandtia", "cardems", ["human", "random"])
    site.hold(table)
    for _ in range(3):
        view = table.view(mine=True)
        table.move(token, view["legal"][-1], view["moves"])
    before = table.view(0, True)
    site.idle = 0
    site.tidy()
    assert table.id not in site.tables and not table._bots
    again = site.table(table.id)
    try:
        assert again is not table and again.view(0, True) == before
        view = again.view(mine=True)
        again.move(token, view["legal"][0], view["moves"])  # and it goes on
    finally:
        again.close()


def test_a_match_of_bots_is_watched_live_from_any_seat_but_everyones_view_waits(
        served, browser, tmp_path):
    """Bots play a match at a pace; a watcher follows it from seat 0's view, then seat 1's,
    as the moves come, with no reload; everyone's view is refused until the end; every
    response held only the cards of the seat it showed."""
    from selenium.webdriver.common.by import By

    server = served()
    received = Received(browser)
    fill(browser, server.url, "play.html", "vandtia/cardems/2",
         {"opponents": "random, greedy", "pace": "0.02"},
         before=lambda b: b.find_element(By.ID, "watch").click())
    wait(browser, lambda b: panel(b).get("status"), "the watched table")
    table_id = int(re.search(r"table-(\d+)\.html", browser.current_url).group(1))
    browser.execute_script("window.notReloaded = true")
    first = int(panel(browser)["moves"])
    wait(browser, lambda b: int(panel(b)["moves"]) > first + 2, "the moves to come")
    assert browser.execute_script("return window.notReloaded === true")
    assert not browser.find_elements(By.CSS_SELECTOR, "#actions button")
    everyone = urllib.request.Request(f"{server.url}table-{table_id}.html?view=everyone")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(everyone)
    assert refused.value.code == 403
    received.collect()  # before the page is left: its bodies go with it
    browser.find_element(By.LINK_TEXT, "seat 1").click()
    wait(browser, lambda b: panel(b).get("seat") == "1" and panel(b).get("status") == "done",
         "the end, watched from seat 1")
    received.collect()
    row, matches = stored(tmp_path / "a.db", table_id)
    assert row.name.startswith("human/vandtia/cardems/2p/watch-") and row.status == "done"
    match, seats = matches[0]
    assert [s.bot for s in seats] == ["random", "greedy"]
    seen = {json.loads(b)["seat"] for k, b in received.bodies
            if k == "response" and b.startswith("{") and '"moves"' in b}
    assert seen == {0, 1}
    assert check_nothing_leaked(received, Registry().game("vandtia"), row, match) >= 2
    verified(tmp_path / "a.db", row.name, tmp_path)
    browser.get(f"{server.url}table-{table_id}.html?view=everyone")  # now: its replay
    assert re.search(r"match-\d+\.html$", browser.current_url)
    # rated in no league
    board = arena("leaderboard", "vandtia", "--variant", "cardems", "--humans",
                  db_path=tmp_path / "a.db")
    assert "greedy" not in board.stdout


def test_a_finished_table_opens_when_its_bot_is_gone(tmp_path):
    """A finished match is shown from what was stored: its bots need not be installed."""
    from conftest import bot_file

    from arena.web import tables

    engine = db.connect(f"sqlite:///{tmp_path / 'a.db'}")
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "leaving.py").write_text(bot_file("leaving"))
    table, token = tables.create(engine, Registry(bots_dirs=[str(bots)]), "vandtia",
                                 "cardems", ["human", "leaving"])
    try:
        while (view := table.view(mine=True))["legal"]:
            table.move(token, view["legal"][0], view["moves"])
        assert table.status == "done"
    finally:
        table.close()
    again = tables.open_table(engine, Registry(), table.id)  # the bot's file is not there
    try:
        assert again.status == "done" and again.view(0, True) == table.view(0, True)
    finally:
        again.close()


# -- the web app acts only for the one it serves ------------------------------------------------


def _tables(db_path) -> int:
    engine = db.connect(f"sqlite:///{db_path}", create=False)
    return sum(1 for row, _ in db.list_seasons(engine) if row.name.startswith("human/"))


def test_a_change_from_another_origin_or_without_the_token_is_refused(served, tmp_path):
    """Browsers send this server's cookies with a request any page makes, from another port
    of the host too: a change must come from its origin, with the visitor's token, to a
    Host that is the server's own."""
    server = served()
    form = urllib.parse.urlencode({"table": "vandtia/cardems/2", "seat": "0",
                                   "opponents": "random"}).encode()
    table_id = _form_post(server.url, "play.html", form)  # control: its own page's post
    base = server.url.rstrip("/")
    cookie, token = visitor(server.url)
    attempts = {
        "another port": {"Origin": "http://127.0.0.1:9", "Cookie": cookie},
        "no origin": {"Cookie": cookie},
        "a foreign host": {"Origin": "http://evil.example", "Cookie": cookie,
                           "Host": "evil.example"},
        "no token": {"Origin": base, "Cookie": cookie},
    }
    for what, headers in attempts.items():
        url = f"{server.url}play.html" + ("" if what == "no token" else f"?csrf={token}")
        request = urllib.request.Request(url, data=form, method="POST", headers=headers)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request)
        assert refused.value.code in (400, 403), what
        text = refused.value.read().decode()
        assert text.count("\n") == 1 and "Traceback" not in text, (what, text)
    abandon = f"{server.url}api/table/{table_id}/abandon"
    assert _post(abandon, {}, None, origin="http://127.0.0.1:9")[0] == 403
    assert _post(abandon, {}, None, token=False)[0] == 403
    assert _tables(tmp_path / "a.db") == 1  # none made by the refused posts
    row, _ = stored(tmp_path / "a.db", table_id)
    assert row.status == "running"


#: A page of another origin (this host, another port) that a person at a table is lured to:
#: it reads the server's page for its token, abandons the table with the person's cookies,
#: and (sent by the test once the rest is done) the play form. What it found is its title.
ATTACK = """<!doctype html><title>attack</title>
<form id="f" method="post" action="{url}play.html">
<input name="table" value="vandtia/cardems/2"><input name="seat" value="1">
<input name="opponents" value="random"></form>
<script>
const found = [];
fetch("{url}play.html", {{credentials: "include"}}).then(
  r => r.text().then(t => found.push("read " + t.length)), e => found.push("unread"))
.then(() => fetch("{url}api/table/{table}/abandon", {{method: "POST", credentials: "include",
  mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body: "{{}}"}}))
.then(r => found.push("abandon sent"), e => found.push("abandon failed"))
.then(() => {{ document.title = found.join(","); }});
</script>"""


def test_a_page_of_another_port_cannot_act_for_the_person(served, browser, tmp_path):
    """In a real browser, with the person's cookies (a page on another port of the host is
    the same site, so they are sent): a page there cannot read the server's pages for the
    token, cannot leave the person's table, and its form opens no table."""
    import http.server
    import threading

    from selenium.webdriver.common.by import By

    server = served()
    table_id = sit(browser, server.url, "vandtia/cardems/2", "random", 0)
    page = ATTACK.format(url=server.url, table=table_id).encode()

    class Attacker(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{httpd.server_address[1]}/")
        wait(browser, lambda b: b.title != "attack", "the attack's requests")
        found = browser.title
        browser.execute_script("document.getElementById('f').submit()")
        wait(browser, lambda b: b.current_url.startswith(server.url) and b.find_elements(
            By.TAG_NAME, "body"), "the form's answer")
        body = browser.find_element(By.TAG_NAME, "body").text
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert found == "unread,abandon sent", found  # the token unread, the abandon sent
    assert "another origin" in body and "Traceback" not in body, body
    row, _ = stored(tmp_path / "a.db", table_id)
    assert row.status == "running"  # not abandoned
    assert _tables(tmp_path / "a.db") == 1  # and no table opened for the person
    # the control: the person's own page still acts (the cookies were the person's)
    browser.get(f"{server.url}table-{table_id}.html")
    wait(browser, lambda b: panel(b).get("status"), "the table")
    browser.execute_script("window.confirm = function () { return true; };")
    browser.find_element(By.ID, "abandon").click()
    wait(browser, lambda b: "abandoned" in b.find_element(By.ID, "status").text, "left")
    assert stored(tmp_path / "a.db", table_id)[0].status == "abandoned"


def test_tables_are_capped_per_visitor_and_in_all(served, tmp_path):
    server = served(options=("--max-tables", "3"))
    form = urllib.parse.urlencode({"table": "tractor/deal/4", "seat": "0",
                                   "opponents": "random"}).encode()
    for _ in range(2):
        _form_post(server.url, "play.html", form)
    with pytest.raises(urllib.error.HTTPError) as refused:
        _form_post(server.url, "play.html", form)
    assert refused.value.code == 429 and "you have 2 running tables" in \
        refused.value.read().decode()
    _VISITORS.pop(server.url)  # another visitor: one table more, then the server is full
    _form_post(server.url, "play.html", form)
    _VISITORS.pop(server.url)
    with pytest.raises(urllib.error.HTTPError) as refused:
        _form_post(server.url, "play.html", form)
    assert refused.value.code == 503 and "the server is full" in refused.value.read().decode()
    assert _tables(tmp_path / "a.db") == 3


def test_tables_asked_for_at_once_never_pass_the_cap(served, tmp_path):
    """Eight forms of one visitor sent at once (each table takes a while to make, its bots'
    processes to start): two open, the rest are refused - admitting a table and holding it
    are one step."""
    from concurrent.futures import ThreadPoolExecutor

    server = served()
    form = urllib.parse.urlencode({"table": "tractor/deal/4", "seat": "0",
                                   "opponents": "random"}).encode()

    def ask(_):
        try:
            return _form_post(server.url, "play.html", form)
        except urllib.error.HTTPError as e:
            return e.code

    visitor(server.url)
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(ask, range(8)))
    assert sorted(a for a in answers if a == 429) == [429] * 6, answers
    assert _tables(tmp_path / "a.db") == 2


def test_a_challenges_bot_games_count_against_the_caps(tmp_path):
    """A deal left starts the bot's game of it (every seat a bot process): while one is
    played its processes count, the visitor's and the server's, so leaving deal after deal
    cannot start processes without end. (The game is held as played, ``playing``, since a
    real one may end at any moment.)"""
    from arena.web import app, challenges, tables

    engine = db.connect(f"sqlite:///{tmp_path / 'a.db'}")
    registry = Registry()
    site = app.Site(engine, registry)
    found, _ = challenges.create(engine, registry, "tractor", "deal", 0, "human", "greedy",
                                 ["random"] * 3, 3)
    site.challenges[found.id], site.challengers[found.id] = found, "ada"
    with site.admitted("ada", 3):
        pass  # room: no table, no bot game
    found.playing.update({0, 1, 2})  # three deals' bot games of 4 processes: 12
    with pytest.raises(tables.TableError) as refused:
        with site.admitted("ada", 3):
            pass
    assert refused.value.status == 429 and "bot games counted" in str(refused.value)
    with site.admitted("bob", 3):  # another visitor: the server has room
        pass
    for k in range(3, 12):
        found.playing.add(k)  # 48 processes in all: full
    with pytest.raises(tables.TableError) as refused:
        with site.admitted("bob", 3):
            pass
    assert refused.value.status == 503 and "48 bot processes" in str(refused.value)
    assert site.pending == []


def test_every_route_answers_a_malformed_request_with_a_4xx_line(served, tmp_path):
    """Every route the app has (listed from the app), asked with malformed ids, numbers and
    bodies: a 4xx and one line, never a 500 or a traceback."""
    from arena.plugins import Registry as Bots
    from arena.web.app import make_app

    server = served()
    form = urllib.parse.urlencode({"table": "vandtia/cardems/2", "seat": "0",
                                   "opponents": "random"}).encode()
    _form_post(server.url, "play.html", form)
    app = make_app(db.connect(f"sqlite:///{tmp_path}/other.db"), Bots())
    paths = [(r.path, sorted(r.methods or ["GET"])) for r in app.routes if "{" in r.path
             or "POST" in (getattr(r, "methods", None) or ())]
    assert len(paths) >= 8
    ids = ["9" * 5000, str(2**63), str(2**64), "-1", "1e400", "x", "1"]
    nested = b"[" * 100_000 + b"]" * 100_000
    bodies = [nested, b'{"action": "x", "at": 1e400}', b'{"action": "x", "at": "9"}',
              b'{"action": [[[[]]]], "at": 0, "since": -5}', b"\xff\xfe", b"{}",
              ("table=vandtia/cardems/" + "9" * 5000 + "&seat=" + "9" * 5000).encode(),
              b"table=vandtia/cardems/2&opponents=random&seat=0&deals=" + b"9" * 5000,
              b"table=vandtia/cardems/2&opponents=random&watch=1&pace=nan"]
    queries = ["", "?since=" + "9" * 5000, "?view=" + "9" * 5000, "?seat=" + "9" * 5000,
               "?since=-1"]
    asked = 0
    for path, methods in paths:
        for value in ids:
            url = server.url + path.lstrip("/").replace("{id}", value)
            for method in methods:
                if method == "HEAD":
                    continue
                for extra in (queries if method == "GET" else [""]):
                    for body in (bodies if method == "POST" else [None]):
                        if method == "GET" and path.startswith("/events/") and value == "1":
                            continue  # a live stream of a real table: it stays open
                        code, answer = _ask(method, url + extra, body)
                        asked += 1
                        assert 400 <= code < 500 or code in (200, 303), (method, path, value,
                                                                         extra, body[:30] if
                                                                         body else None, code)
                        assert "Traceback" not in answer and code != 500, answer
    assert asked > 200


def _ask(method: str, url: str, body: bytes | None) -> tuple[int, str]:
    parts = urllib.parse.urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}/"
    cookie, token = visitor(base)
    sep = "&" if "?" in url else "?"
    request = urllib.request.Request(url + (f"{sep}csrf={token}" if method == "POST" else ""),
                                     data=body, method=method,
                                     headers={"Cookie": cookie, "Origin": base.rstrip("/")})
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as r:
            return r.status, r.read(4096).decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def test_a_challenge_deal_left_counts_as_the_persons_last_place(served, browser, tmp_path):
    """A person who leaves a deal (when behind, say) does not drop it from the score: it
    counts as last place against the bot's game of it, which is played as for any deal; the
    form says so before the challenge begins."""
    from selenium.webdriver.common.by import By

    server = served()
    browser.get(server.url + "challenge.html")
    assert "A deal you leave counts as your worst result on it" in browser.find_element(
        By.ID, "leaving").text
    fill(browser, server.url, "challenge.html", "vandtia/cardems/2",
         {"seat": "0", "opponents": "random", "bot": "greedy", "deals": "1", "name": "Ada"})
    wait(browser, lambda b: panel(b).get("status"), "the deal's table")
    browser.execute_script("window.confirm = function () { return true; };")
    browser.find_element(By.ID, "abandon").click()
    wait(browser, lambda b: "abandoned" in b.find_element(By.ID, "status").text, "left")
    browser.find_element(By.ID, "challenge").click()
    wait(browser, lambda b: (pairs := b.execute_script(PAIRS)) and pairs[0], "the bot's game")
    assert [float(p) for p in browser.execute_script(PAIRS)] == [
        0.5 + (0.0 - _bot_place(tmp_path / "a.db")) / 2]
    assert "left: counted last" in browser.find_element(By.ID, "deals").text
    verdict = browser.find_element(By.ID, "verdict").text
    assert "over 1 deal" in verdict
    assert re.search(r"Elo [+-]\d+ \[-1200, [+-]\d+\]", verdict), verdict  # one deal: wide


def _bot_place(db_path) -> float:
    from arena.leagues.match import seat_place

    engine = db.connect(f"sqlite:///{db_path}", create=False)
    row = next(r for r, _ in db.list_seasons(engine) if "challenge" in r.name)
    (m, seats), = db.season_matches(engine, row.id)
    return seat_place([s.rank for s in seats], 0)


def test_a_practice_table_takes_moves_back_hints_and_reviews_and_a_rated_one_refuses(
        served, browser, tmp_path):
    """Practice (unrated): undo takes the match back to the person's decision before, the
    bots answering again as they did; a hint is the reviewer's choice from the seat's
    observation, one of the legal actions; the finished game opens reviewed. A rated
    table refuses undo and hints, and its end offers a rematch instead. (The server's
    reviewer is a light ismcts: the default's 2,000 playouts a decision are for people.)"""
    from selenium.webdriver.common.by import By

    server = served(options=("--reviewer", "ismcts:iterations=200"))
    instant(browser, server.url)
    phone(browser, (1280, 800))
    fill(browser, server.url, "play.html", "vandtia/cardems/2",
         {"seat": "0", "opponents": "random", "name": "Ada"},
         before=lambda b: b.find_element(By.ID, "practice").click())
    wait(browser, lambda b: panel(b).get("turn") == "yours", "the first decision")
    table_id = int(re.search(r"table-(\d+)\.html", browser.current_url).group(1))
    db_path = tmp_path / "a.db"
    assert "/practice-" in stored(db_path, table_id)[0].name
    decided: list[int] = []
    assert play_by_cards(browser, lambda actions, i: len(actions) - 1, decisions=2,
                         moves=decided) == 2
    # two decisions made (the third awaited): undo goes back to the second
    second = decided[1]
    browser.find_element(By.ID, "undo").click()
    wait(browser, lambda b: panel(b).get("moves") == str(second) and
         panel(b).get("turn") == "yours", "the match taken back to the second decision")
    options = json.loads(stored(db_path, table_id)[0].options)
    assert len(options["table"]["actions"]) == second
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#log li[data-step]')].length")
    assert shown == second
    # the same choice again: the bots answer as they did the first time
    browser.find_element(By.ID, "hint").click()
    wait(browser, lambda b: b.find_element(By.ID, "hinted").get_attribute("data-action"),
         "a hint")
    hinted = browser.find_element(By.ID, "hinted")
    legal = [b.get_attribute("data-action")
             for b in browser.find_elements(By.CSS_SELECTOR, "#actions button.action")]
    assert hinted.get_attribute("data-action") in legal
    assert hinted.text.startswith("ismcts would play: "), hinted.text
    play_by_cards(browser, lambda actions, i: 0)
    wait(browser, lambda b: panel(b).get("status") == "done", "the end")
    row, matches = stored(db_path, table_id)
    assert json.loads(matches[0][0].replay)[:second] == options["table"]["actions"]
    browser.find_element(By.ID, "review").click()
    wait(browser, lambda b: "match-" in b.current_url, "the reviewed match")
    wait(browser, lambda b: b.find_elements(By.ID, "review-line"), "its review marks")
    assert browser.find_elements(By.CSS_SELECTOR, "#review-chart .rv-bar")
    # a rated table: no undo, no hint (the server refuses them too), a rematch at its end
    rated = sit(browser, server.url, "vandtia/cardems/2", "random", 0, "Ada")
    assert not browser.find_elements(By.ID, "undo")
    cookie = next(c for c in browser.get_cookies() if c["name"].startswith(
        f"arena_table_{rated}_"))
    for what in ("undo", "hint", "review"):
        code, body = _post(f"{server.url}api/table/{rated}/{what}", {},
                           f"{cookie['name']}={cookie['value']}")
        assert code == 403 and "practice table" in body["error"], (what, code, body)
    play_by_cards(browser)
    wait(browser, lambda b: b.find_elements(By.ID, "again") and
         b.find_element(By.ID, "again").is_displayed(), "the rematch button")
    # the people's league rates the rated match alone: a practice match is rated nowhere
    board = arena("leaderboard", "vandtia", "--variant", "cardems", "--humans", "--format",
                  "json", db_path=db_path)
    assert board.returncode == 0, board.stderr
    ada = [r for r in json.loads(board.stdout) if r["bot"] == "human:Ada"]
    assert [r["games"] for r in ada] == [1], board.stdout
    browser.find_element(By.ID, "again").click()
    wait(browser, lambda b: f"table-{rated}.html" not in b.current_url and
         panel(b).get("status") == "running", "a new deal at a new table")



def test_the_table_is_played_from_the_keyboard_and_names_every_card_and_zone(
        served, browser, tmp_path):
    """Tab reaches the seat's own cards and Enter chooses them (the set-up's three face-up
    cards: the third plays the move); every card drawn has its name and a text alternative,
    every part of the table its role, and the move list is a live region."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    server = served()
    instant(browser, server.url)
    sit(browser, server.url, "vandtia/cardems/2", "random", 0, "Ada")
    state = wait(browser, lambda b: panel(b).get("turn") == "yours" and panel(b), "a decision")
    named = browser.execute_script("""
      return [...document.querySelectorAll('#panel .card')].map(c => [
        c.dataset.card || null, c.getAttribute('aria-label')]);""")
    assert named and all(label for _, label in named), named
    assert all(card for card, label in named if label != "a card face down"), named
    zones = set(browser.execute_script(
        "return [...document.querySelectorAll('[data-zone]')].map(e => e.dataset.zone)"))
    assert {"hand", "faceup", "facedown", "pile", "stock", "log", "seat"} <= zones, zones
    assert browser.find_element(By.ID, "log").get_attribute("aria-live") == "polite"
    keys = ActionChains(browser)
    chosen = 0
    for _ in range(80):  # Tab to each card of the seat's own, Enter on the first three
        keys.send_keys(Keys.TAB).perform()
        active = browser.switch_to.active_element
        if "pick" in (active.get_attribute("class") or ""):
            keys.send_keys(Keys.ENTER).perform()
            chosen += 1
            if chosen == 3:
                break
    assert chosen == 3
    wait(browser, lambda b: panel(b).get("moves") != state["moves"] and
         panel(b).get("turn") == "yours" or panel(b).get("status") != "running",
         "the set-up played from the keyboard")
    # a key of the actions' list plays its action, as at the terminal
    before = panel(browser)["moves"]
    first = browser.find_element(By.CSS_SELECTOR, "#actions button.action").get_attribute(
        "data-action")
    browser.find_element(By.TAG_NAME, "body").send_keys("1")
    wait(browser, lambda b: panel(b).get("moves") != before, "the action of key 1")
    row, _ = stored(tmp_path / "a.db", int(panel(browser)["table"]))
    actions = json.loads(row.options)["table"]["actions"]
    assert first in actions and sum(a.startswith("swap") for a in actions) == 2, actions


def test_a_choice_no_move_fits_is_shown_as_such_and_nothing_is_posted(served, browser,
                                                                      tmp_path):
    """A card no legal move plays now is marked, with a line saying so, before anything is
    posted; "clear" lets it go."""
    from selenium.webdriver.common.by import By

    server = served()
    instant(browser, server.url)
    sit(browser, server.url, "vandtia/cardems/2", "random", 0, "Ada")
    found = None
    for i in range(60):
        state, _, legal = browser.execute_async_script(READY, None)
        assert state["status"] == "running"
        hand = browser.execute_script(
            "return [...document.querySelectorAll('#me [data-zone=\"hand\"] .pick')]"
            ".map(c => c.dataset.token)")
        used = {w for a in legal for w in a.split()[1:]}
        found = next((c for c in hand if c not in used), None)
        if found is not None:
            break
        browser.execute_script(BY_CARDS, legal[(i * 7) % len(legal)])
        browser.execute_async_script(READY, state["moves"])
    assert found is not None
    moves = panel(browser)["moves"]
    browser.execute_script(
        "[...document.querySelectorAll('#me [data-zone=\"hand\"] .pick')]"
        ".find(c => c.dataset.token === arguments[0]).click()", found)
    choice = browser.find_element(By.ID, "choice")
    assert choice.get_attribute("data-state") == "illegal"
    assert "no legal move uses this card now" in choice.text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#me .card.illegal")) == 1
    assert panel(browser)["moves"] == moves  # nothing was posted
    browser.find_element(By.ID, "clear").click()
    assert not browser.find_elements(By.CSS_SELECTOR, "#me .card.selected")
    assert browser.find_element(By.ID, "choice").get_attribute("data-state") == "idle"


def test_the_bots_moves_are_shown_one_at_a_time_at_the_speed_chosen(served, browser,
                                                                      tmp_path):
    """At a speed other than "at once", the moves made between two decisions are drawn one
    by one (the table stepping through them, each move's seat highlighted), and the person's
    turn comes once the last is shown."""
    server = served()
    browser.get(server.url + "play.html")
    browser.execute_script("localStorage.setItem('arena-speed', '250')")
    sit(browser, server.url, "vandtia/swedish/3", "random", 0, "Ada")
    browser.execute_script("""
      window.seen = [];
      new MutationObserver(() => {
        const d = document.getElementById('panel').dataset;
        seen.push([Number(d.shown), d.turn, document.querySelectorAll('.seat.acted').length]);
      }).observe(document.getElementById('panel'), {attributes: true,
                                                    attributeFilter: ['data-shown']});""")
    steps = []
    for _ in range(8):
        state, _, legal = browser.execute_async_script(READY, None)
        browser.execute_script("seen = []")
        browser.execute_script(BY_CARDS, legal[0])
        after, _, _ = browser.execute_async_script(READY, state["moves"])
        if after["status"] != "running":
            break
        seen = [s for s in browser.execute_script("return seen")  # (cards chosen: drawn
                if s[0] > int(state["moves"])]                     # again as they were)
        shown = [s for s, _, _ in seen]
        assert shown == sorted(shown) and shown[-1] == int(after["moves"]), seen
        assert all(turn == "theirs" for s, turn, _ in seen if s < shown[-1]), seen
        steps.append(len(set(shown)))
    # three seats: two bots' moves (at least) between two of the person's decisions, drawn
    # one at a time
    assert max(steps) >= 3, steps
