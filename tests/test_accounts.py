"""League accounts (``arena user``, ``arena serve --league``): passwords kept as argon2id
hashes, tokens shown once and kept as hashes, revoked and disabled ones refused, invitations
used once - and in a real browser against a real server, signing in, an account's tokens,
signing out, and the limit on failed sign-ins."""

import json
import os
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

import pytest

from arena import db
from arena.errors import ArenaError
from arena.leagues import accounts

PASSWORD = "correct horse battery"


@pytest.fixture
def engine(tmp_path):
    return db.connect(f"sqlite:///{tmp_path / 'a.db'}")


def _everything_stored(path) -> str:
    """Every text and number of every table of the database, as one string."""
    with sqlite3.connect(path) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return "\n".join(str(row) for t in tables for row in conn.execute(f"SELECT * FROM {t}"))


def test_a_token_and_a_password_are_kept_only_as_hashes(engine, tmp_path):
    row, token = accounts.add(engine, "ada", password=PASSWORD)
    assert token.startswith("arena_t_") and len(token) > 40
    stored = _everything_stored(tmp_path / "a.db")
    assert token not in stored and PASSWORD not in stored
    assert accounts.get(engine, "ada").password_hash.startswith("$argon2id$")
    assert accounts.authenticate(engine, token).name == "ada"
    (first,) = accounts.tokens(engine, "ada")
    assert first.last_used_at is not None  # its use is noted
    _, session = accounts.sign_in(engine, "ada", PASSWORD)
    assert session not in _everything_stored(tmp_path / "a.db")
    assert accounts.authenticate(engine, session, "session").name == "ada"
    with pytest.raises(accounts.AuthError):  # a browser's sign-in is no API token
        accounts.authenticate(engine, session, "api")


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(engine):
    accounts.add(engine, "ada", password=PASSWORD)
    answers = set()
    for name, password in (("ada", "wrong password"), ("bob", PASSWORD), ("ada", "")):
        with pytest.raises(accounts.AuthError) as refused:
            accounts.sign_in(engine, name, password)
        answers.add((str(refused.value), refused.value.status))
    assert answers == {("wrong name or password", 401)}


def test_revoked_disabled_and_made_up_tokens_act_for_nobody(engine):
    _, token = accounts.add(engine, "ada")
    row, other = accounts.new_token(engine, "ada", "ci")
    accounts.revoke(engine, row.id)
    for refused in (other, token + "x", "arena_t_" + "A" * 43, "", None, "x" * 1000):
        with pytest.raises(accounts.AuthError):
            accounts.authenticate(engine, refused)
    assert accounts.authenticate(engine, token).name == "ada"
    accounts.set_disabled(engine, "ada", True)
    with pytest.raises(accounts.AuthError, match="disabled"):
        accounts.authenticate(engine, token)
    accounts.set_disabled(engine, "ada", False)
    assert accounts.authenticate(engine, token).name == "ada"
    accounts.add(engine, "bob")
    with pytest.raises(ArenaError, match="no token .* of yours"):  # an author revokes theirs
        accounts.revoke(engine, row.id, "bob")


def test_a_new_password_signs_every_browser_out(engine):
    accounts.add(engine, "ada", password=PASSWORD)
    _, session = accounts.sign_in(engine, "ada", PASSWORD)
    accounts.set_password(engine, "ada", "another good password")
    with pytest.raises(accounts.AuthError):
        accounts.authenticate(engine, session, "session")
    with pytest.raises(accounts.AuthError):
        accounts.sign_in(engine, "ada", PASSWORD)
    accounts.sign_in(engine, "ada", "another good password")


def test_an_invitation_makes_one_account_once(engine):
    code = accounts.invite(engine, "organizer", days=1, by="root")
    with pytest.raises(ArenaError, match="a password has"):
        accounts.redeem(engine, code, "eve", "short")
    account, session = accounts.redeem(engine, code, "eve", PASSWORD)
    assert account.role == "organizer" and accounts.authenticate(engine, session,
                                                                  "session").name == "eve"
    assert accounts.tokens(engine, "eve") == []  # no API token nobody saw
    with pytest.raises(accounts.AuthError, match="not valid"):
        accounts.redeem(engine, code, "mallory", PASSWORD)
    with pytest.raises(accounts.AuthError, match="not valid"):
        accounts.redeem(engine, "arena_i_made-up", "mallory", PASSWORD)
    second = accounts.invite(engine)
    with pytest.raises(ArenaError, match="exists"):  # a name taken: the invitation stays good
        accounts.redeem(engine, second, "eve", PASSWORD)
    assert accounts.redeem(engine, second, "frank", PASSWORD)[0].role == "author"


@pytest.mark.parametrize("name", ["", "a b", "-x", "x" * 33, "ada/..", "<b>"])
def test_a_bad_name_is_refused(engine, name):
    with pytest.raises(ArenaError, match="an account name is"):
        accounts.add(engine, name)


def _arena(*args, path, stdin=None):
    return subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{path}", *args],
                          capture_output=True, text=True, input=stdin, timeout=120,
                          env={**os.environ, "COLUMNS": "200"})


def test_the_user_commands_show_a_token_once_and_list_without_it(tmp_path):
    path = tmp_path / "a.db"
    added = _arena("user", "add", "ada", path=path)
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip()
    assert token.startswith("arena_t_") and "shown once" in added.stderr
    made = _arena("user", "token", "ada", "--label", "ci", path=path)
    second = made.stdout.strip()
    listed = _arena("user", "list", path=path)
    assert listed.returncode == 0 and "ci" in listed.stdout
    assert token not in listed.stdout + listed.stderr and second not in listed.stdout
    assert _arena("user", "revoke", "2", path=path).returncode == 0
    rows = json.loads(_arena("user", "list", "--format", "json", path=path).stdout)
    assert [t["revoked"] is not None for t in rows[0]["tokens"]] == [False, True]
    again = _arena("user", "add", "ada", path=path)
    assert again.returncode == 2 and again.stderr.strip() == \
        "arena: error: an account named 'ada' exists"
    invite = _arena("user", "invite", "--url", "http://league.example:8000", path=path)
    assert invite.stdout.startswith("http://league.example:8000/signup.html?invite=arena_i_")


def test_an_account_has_at_most_three_uploads_waiting_and_a_bad_one_keeps_nothing(engine,
                                                                                  tmp_path):
    from conftest import bot_file

    from arena.leagues import uploads

    store = tmp_path / "bots"
    with pytest.raises(ArenaError, match="a name outside the folder"):
        uploads.enqueue(engine, store, "ada", "x.tar.gz", _tar([("../x.py", b"")]))
    assert uploads.waiting(engine) == [] and not (store / uploads.UPLOADS).exists()
    for n in range(uploads.PENDING):
        uploads.enqueue(engine, store, "ada", f"b{n}.py", bot_file(f"b{n}").encode())
    with pytest.raises(ArenaError, match="3 of your uploads are waiting") as refused:
        uploads.enqueue(engine, store, "ada", "b9.py", bot_file("b9").encode())
    assert refused.value.status == 429
    uploads.enqueue(engine, store, "bob", "c.py", bot_file("c").encode())  # another's are not
    kept = sorted(p.name.split("-", 1)[1] for p in (store / uploads.UPLOADS).iterdir())
    assert kept == ["b0.py", "b1.py", "b2.py", "c.py"]
    assert [(u.account, u.status) for u in uploads.waiting(engine)] == [
        ("ada", "waiting")] * 3 + [("bob", "waiting")]
    with pytest.raises(uploads.NotYours):
        uploads.get(engine, 4, "ada")  # bob's: as if there were none


def test_a_deleted_account_acts_for_nobody_and_its_name_is_never_given_again(tmp_path):
    path = tmp_path / "a.db"
    token = _arena("user", "add", "ada", path=path).stdout.strip()
    engine = db.connect(f"sqlite:///{path}")
    assert accounts.authenticate(engine, token).name == "ada"
    asked = _arena("user", "delete", "ada", path=path, stdin="n\n")  # asks first
    assert asked.returncode == 130 and "aborted" in asked.stderr
    assert accounts.authenticate(engine, token).name == "ada"
    done = _arena("user", "delete", "ada", "--yes", path=path)
    assert done.returncode == 0 and done.stdout.strip() == "account ada deleted", done.stderr
    with pytest.raises(ArenaError):
        accounts.authenticate(engine, token)
    again = _arena("user", "add", "ada", path=path)
    assert again.returncode == 2 and "ada" in again.stderr and "Traceback" not in again.stderr
    listed = json.loads(_arena("user", "list", "--format", "json", path=path).stdout)
    assert [(a["name"], a["role"], a["disabled"]) for a in listed] == [("ada", "deleted", True)]
    missing = _arena("user", "delete", "nobody", "--yes", path=path)
    assert missing.returncode == 2 and "no account named 'nobody'" in missing.stderr


# -- in a real browser, against a real server --------------------------------------------


@pytest.fixture
def league(tmp_path):
    from test_serve import Server

    path = tmp_path / "a.db"
    engine = db.connect(f"sqlite:///{path}")
    _, token = accounts.add(engine, "ada", password=PASSWORD)
    server = Server(path, options=("--league",))
    yield server, path, token
    server.stop()


def _me(url: str, token: str | None) -> int:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url + "api/me",
                                                           headers=headers)) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


@pytest.mark.slow
def test_an_author_signs_in_makes_and_revokes_a_token_and_signs_out(league):
    from conftest import chromium
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    server, path, first = league
    browser = chromium()
    until = WebDriverWait(browser, 60).until
    try:
        browser.get(server.url + "index.html")
        assert browser.find_element(By.ID, "signin-link").text == "sign in"
        browser.find_element(By.ID, "signin-link").click()
        browser.find_element(By.ID, "name").send_keys("ada")
        browser.find_element(By.ID, "password").send_keys(PASSWORD)
        browser.find_element(By.ID, "go").click()
        until(lambda b: b.current_url.endswith("account.html"))
        assert browser.find_element(By.ID, "signed-in").text == "ada"
        session = browser.get_cookie(f"arena_session_{server.port}")
        assert session["httpOnly"] and session["sameSite"] == "Lax"
        rows = browser.find_elements(By.CSS_SELECTOR, "#tokens tbody tr")
        assert [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows] == ["first token"]
        browser.find_element(By.ID, "label").send_keys("laptop")
        browser.find_element(By.ID, "make").click()
        made = until(lambda b: b.find_elements(By.ID, "made"))[0].text
        assert made.startswith("arena_t_") and _me(server.url, made) == 200
        assert made not in _everything_stored(path)
        browser.get(server.url + "account.html")  # shown once
        assert not browser.find_elements(By.ID, "made") and made not in browser.page_source
        rows = browser.find_elements(By.CSS_SELECTOR, "#tokens tbody tr")
        laptop = next(r for r in rows if "laptop" in r.text)
        assert "never" not in laptop.text  # its use just now is listed
        laptop.find_element(By.CSS_SELECTOR, "button.revoke").click()
        until(lambda b: "revoked" in b.find_element(By.ID, "said").text)
        assert _me(server.url, made) == 401 and _me(server.url, first) == 200
        browser.find_element(By.ID, "signout").click()
        until(lambda b: b.find_elements(By.ID, "signin-link"))
        browser.get(server.url + "account.html")
        assert "signin.html" in browser.current_url  # signed out: asked to sign in
        assert _me(server.url, None) == 401
    finally:
        browser.quit()


@pytest.mark.slow
def test_failed_sign_ins_are_limited_and_an_invitation_signs_up_once(league, tmp_path):
    from conftest import chromium
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    server, path, _ = league
    browser = chromium()
    until = WebDriverWait(browser, 60).until
    try:
        said = []
        for _ in range(6):
            browser.get(server.url + "signin.html")
            browser.find_element(By.ID, "name").send_keys("ada")
            browser.find_element(By.ID, "password").send_keys("not the password")
            browser.find_element(By.ID, "go").click()
            said.append(until(lambda b: b.find_elements(By.ID, "error"))[0].text)
        assert said[:5] == ["wrong name or password"] * 5
        assert said[5].startswith("too many failed sign-ins")
        code = _arena("user", "invite", path=path).stdout.strip()
        for attempt in ("first", "again"):
            browser.delete_all_cookies()
            browser.get(server.url + code)
            browser.find_element(By.ID, "name").send_keys("eve" if attempt == "first"
                                                           else "mallory")
            browser.find_element(By.ID, "password").send_keys(PASSWORD)
            browser.find_element(By.ID, "again").send_keys(PASSWORD)
            browser.find_element(By.ID, "go").click()
            if attempt == "first":
                until(lambda b: b.current_url.endswith("account.html"))
                assert browser.find_element(By.ID, "signed-in").text == "eve"
            else:
                error = until(lambda b: b.find_elements(By.ID, "error"))[0].text
                assert "not valid" in error
        names = [a["name"] for a in json.loads(_arena("user", "list", "--format", "json",
                                                      path=path).stdout)]
        assert names == ["ada", "eve"]
        browser.get(server.url + "signup.html")  # no invitation, no --signup
        assert "by invitation" in browser.find_element(By.ID, "error").text
    finally:
        browser.quit()


def test_without_league_there_is_no_sign_in(tmp_path):
    from test_serve import Server

    db.connect(f"sqlite:///{tmp_path / 'a.db'}")
    server = Server(tmp_path / "a.db")
    try:
        for page in ("signin.html", "signup.html", "account.html", "api/me"):
            with pytest.raises(urllib.error.HTTPError) as missing:
                urllib.request.urlopen(server.url + page)
            assert missing.value.code == 404, page
    finally:
        server.stop()


def _sign_in(browser, url: str, name: str = "ada", password: str = PASSWORD) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(url + "signin.html")
    browser.find_element(By.ID, "name").send_keys(name)
    browser.find_element(By.ID, "password").send_keys(password)
    browser.find_element(By.ID, "go").click()
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.ID, "signed-in"))


def _sit(browser, url: str) -> str:
    """Sit down at a Vändtia table from the play form; the page's answer (its address)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    browser.get(url + "play.html")
    Select(browser.find_element(By.ID, "table-kind")).select_by_value("vandtia/cardems/2")
    browser.find_element(By.ID, "sit").click()
    WebDriverWait(browser, 60).until(lambda b: "table-" in b.current_url or
                                     b.find_elements(By.ID, "error"))
    return browser.current_url


@pytest.mark.slow
def test_in_a_league_a_table_is_an_accounts_and_counts_against_its_caps(league):
    """``--league``: a visitor who has not signed in is sent to sign in; a signed-in
    person's seat is their account's name, and the caps count the account, whichever
    browser (and visitor cookie) it comes from."""
    from conftest import chromium
    from selenium.webdriver.common.by import By

    server, path, _ = league
    first, second = chromium(), chromium()
    try:
        first.get(server.url + "play.html")
        assert first.find_elements(By.ID, "signin-first")
        first.find_element(By.ID, "sit").click()  # not signed in: asked to sign in
        assert "signin.html" in first.current_url
        assert not [r for r, _ in db.list_seasons(db.connect(f"sqlite:///{path}"))]
        _sign_in(first, server.url)
        assert "table-" in _sit(first, server.url)
        engine = db.connect(f"sqlite:///{path}")
        (row, _), = db.list_seasons(engine)
        assert json.loads(row.bots)[0] == "human:ada"  # the account's name, not a typed one
        assert "table-" in _sit(first, server.url)
        _sign_in(second, server.url)  # another browser, another visitor cookie: the same ada
        _sit(second, server.url)
        assert "you have 2 running tables" in second.find_element(By.ID, "error").text
    finally:
        first.quit()
        second.quit()


# -- submitting from anywhere: arena submit --to URL --token T -----------------------------


def _upload(url: str, token: str | None, filename: str, data: bytes) -> tuple[int, dict]:
    headers = {"X-Arena-Filename": filename, "Content-Type": "application/octet-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url + "api/submit", data=data, method="POST",
                                     headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=300) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        text = e.read()
        try:
            return e.code, json.loads(text)
        except ValueError:
            return e.code, {"error": text.decode(errors="replace")}


def _tar(members) -> bytes:
    """A gzipped tar of ``(name, bytes or None for a symbolic link)``; a name ending in
    ``/`` is a folder."""
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, body in members:
            info = tarfile.TarInfo(name)
            if body is None:
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
                tar.addfile(info)
            elif name.endswith("/"):
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(body)
                tar.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


@pytest.mark.slow
def test_authors_submit_from_anywhere_as_their_accounts(league, tmp_path):
    """A file and a folder sent with ``arena submit --to``: checked in the sandbox and kept
    as versions of the token's account; another account cannot take the name; without a
    token, or with a revoked one, nothing is submitted."""
    from conftest import bot_file
    from test_store import FOLDER_BOT

    server, path, token = league
    engine = db.connect(f"sqlite:///{path}")
    mine = tmp_path / "src" / "filebot.py"
    mine.parent.mkdir()
    mine.write_text(bot_file("filebot"))
    sent = _arena("submit", str(mine), "--to", server.url, "--token", token, "--matches", "1",
                  path=path)
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout.strip() == "filebot@1: accepted, version 1 of filebot (vandtia), by ada"
    folder = tmp_path / "src" / "folderbot"
    (folder / "data").mkdir(parents=True)
    (folder / "folderbot.py").write_text(FOLDER_BOT)
    (folder / "helper.py").write_text("def pick(legal, weight):\n    return legal[0]\n")
    (folder / "data" / "weight.txt").write_text("1\n")
    sent = subprocess.run(  # the token from $ARENA_TOKEN
        [sys.executable, "-m", "arena", "--db", f"sqlite:///{path}", "submit", str(folder),
         "--to", server.url, "--matches", "1"], capture_output=True, text=True, timeout=300,
        env={**os.environ, "ARENA_TOKEN": token})
    assert sent.returncode == 0 and "folderbot@1: accepted" in sent.stdout, sent.stderr
    _, bob = accounts.add(engine, "bob")
    mine.write_text(bot_file("filebot") + "\n# bob's\n")
    taken = _arena("submit", str(mine), "--to", server.url, "--token", bob, path=path)
    assert taken.returncode == 2 and taken.stderr.strip().endswith(
        "refused: the name 'filebot' belongs to ada"), taken.stderr
    row, spare = accounts.new_token(engine, "ada", "spare")
    accounts.revoke(engine, row.id)
    for args, says in ((("--token", spare), "this token is not valid"),
                       ((), "--to needs --token")):
        refused = _arena("submit", str(mine), "--to", server.url, *args, path=path)
        assert refused.returncode == 2 and says in refused.stderr, refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
    again = _arena("submit", str(mine), "--to", server.url, "--token", token, "--matches", "1",
                   path=path)
    assert again.returncode == 0 and "filebot@2: accepted" in again.stdout, again.stderr
    from arena.leagues import store

    assert sorted((r.name, r.version, r.author) for r in store.versions(engine)) == [
        ("filebot", 1, "ada"), ("filebot", 2, "ada"), ("folderbot", 1, "ada")]


@pytest.mark.slow
def test_a_hostile_upload_is_refused_with_its_reason_and_nothing_is_kept(league, tmp_path):
    from conftest import bot_file

    server, path, token = league
    good = bot_file("evilbot").encode()
    bomb = _tar([("evilbot/evilbot.py", good), ("evilbot/zeros.bin", bytes(70 << 20))])
    cases = [
        ("evilbot.tar.gz", _tar([("evilbot/evilbot.py", good), ("../outside.py", good)]),
         "a name outside the folder"),
        ("evilbot.tar.gz", _tar([("/etc/evil.py", good)]), "a name outside the folder"),
        ("evilbot.tar.gz", _tar([("evilbot/evilbot.py", good), ("evilbot/link", None)]),
         "is a symbolic link"),
        ("evilbot.tar.gz", bomb, "larger than 64 MiB"),
        ("evilbot.tar.gz", _tar([(f"evilbot/d{i}/", b"") for i in range(2100)]),
         "more than 2000 files"),  # folders count: no archive of endless folders
        ("evilbot.tar.gz", b"not an archive", "not a gzipped tar archive"),
        ("../evilbot.py", good, "an upload is NAME.py"),
        ("evilbot.sh", good, "an upload is NAME.py"),
    ]
    for filename, data, says in cases:
        status, answer = _upload(server.url, token, filename, data)
        assert status == 400 and says in answer["error"], (filename, status, answer)
        assert "Traceback" not in answer["error"]
    assert _upload(server.url, None, "evilbot.py", good)[0] in (401, 403)  # the guard first
    try:  # too large: answered 413 as soon as the limit passes, the rest unread
        status, _ = _upload(server.url, token, "evilbot.py", bytes(65 << 20))
    except (urllib.error.URLError, ConnectionError):
        status = 413  # (the connection closed while the client was still sending)
    assert status == 413
    assert not (tmp_path / "outside.py").exists() and not (tmp_path.parent / "outside.py").exists()
    from arena.leagues import store

    assert store.versions(db.connect(f"sqlite:///{path}")) == []
    kept = store.store_folder(f"sqlite:///{path}")
    assert not kept.exists() or [p.name for p in kept.iterdir() if p.name != ".staging"] == []


# -- each author's own: uploads checked apart, placements, output seen by its author alone ---


def _chatty(name: str) -> str:
    """A single-file bot that plays the first legal action and says so, signed with its
    name, at every move."""
    return f"""
import arena

class Bot:
    def act(self, observation, legal):
        print("{name}-was-here <script>window.pwned = 1</script>", flush=True)
        return legal[0]

@arena.hookimpl
def register_bots(register):
    register({name!r}, Bot, games=["vandtia"])
"""


def _placed(path, count: int) -> list:
    """The ladder's placements, once ``count`` of them are done (the worker stores them as
    it goes: this waits for those rows)."""
    import time

    engine = db.connect(f"sqlite:///{path}")
    for _ in range(6000):
        done = [row for row, _ in db.list_seasons(engine)
                if row.name.startswith("ladder/") and row.status == "done"]
        if len(done) >= count:
            return done
        time.sleep(0.1)
    raise AssertionError(f"{count} placements were not done")


@pytest.mark.slow
def test_two_authors_each_see_their_own_bots_output_and_never_the_others(league, tmp_path):
    """ada uploads on her page, bob with ``arena submit --to``; a ladder worker of its own
    (``arena ladder --serve``) places both; each author's page and ``arena replay --logs
    --from`` show what their own bot wrote in a match they both played, and nothing of the
    other's."""
    from conftest import chromium
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    server, path, _ = league
    engine = db.connect(f"sqlite:///{path}")
    _, bob = accounts.add(engine, "bob")
    src = tmp_path / "src"
    src.mkdir()
    (src / "adabot.py").write_text(_chatty("adabot"))
    (src / "bobbot.py").write_text(_chatty("bobbot"))
    worker = subprocess.Popen(
        [sys.executable, "-m", "arena", "--db", f"sqlite:///{path}", "ladder", "vandtia",
         "--serve", "--bots", "random", "--deals", "2", "--poll", "0.2", "--workers", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    browser = chromium()
    until = WebDriverWait(browser, 300, poll_frequency=0.1,  # (the page reloads as it moves)
                          ignored_exceptions=(StaleElementReferenceException,)).until
    try:
        _sign_in(browser, server.url)
        browser.find_element(By.ID, "mine-link").click()
        browser.find_element(By.ID, "file").send_keys(str(src / "adabot.py"))
        browser.find_element(By.ID, "send").click()
        kept = until(lambda b: b.execute_script(  # read at once: the page reloads as it moves
            "return [...document.querySelectorAll('#uploads tr[data-status=\"kept\"]')]"
            ".map(r => r.textContent)"))
        assert "accepted, version 1 of adabot" in kept[0]
        sent = _arena("submit", str(src / "bobbot.py"), "--to", server.url, "--token", bob,
                      path=path)
        assert sent.returncode == 0 and sent.stdout.strip() == (
            "bobbot@1: accepted, version 1 of bobbot (vandtia), by bob"), sent.stderr
        _placed(path, 2)
        # ada's page follows the placements to their end, with her ratings
        until(lambda b: b.execute_script(
            "return document.querySelectorAll('#bots tr[data-status=\"done\"]').length"))
        browser.get(server.url + "mine.html")
        # (the logs are in closed <details>: in the page's source, not shown; the source is
        # read once the page holds them - it reloads itself while anything moves)
        page = until(lambda b: (lambda p: p if "adabot-was-here" in p else None)(
            b.page_source))
        assert "bobbot-was-here" not in page
        # what a bot wrote is text, never markup: its script is shown, not run
        assert "&lt;script&gt;window.pwned" in page
        assert browser.execute_script("return window.pwned") is None
        assert "ladder/vandtia/cardems/2p" in page
        assert until(lambda b: " of " in b.execute_script(  # a rating: "mu ± sigma (1 of 3)"
            "return (document.querySelector('#bots td.rating') || {}).textContent || ''"))
        # a match both played: each sees their own bot's output on its page, not the other's
        with sqlite3.connect(path) as conn:
            match_id = conn.execute(
                "SELECT a.match_id FROM seat_results a JOIN seat_results b ON a.match_id = "
                "b.match_id WHERE a.bot = 'adabot@1' AND b.bot = 'bobbot@1'").fetchone()[0]
        assert all("was-here" in s.log for s in db.get_match(engine, match_id)[2])  # kept
        browser.get("about:blank")  # the author's page polls: left before the next page
        browser.get(server.url + f"match-{match_id}.html")
        page = until(lambda b: (lambda p: p if "adabot-was-here" in p else None)(
            b.page_source))
        assert "bobbot-was-here" not in page
        mine = _arena("replay", str(match_id), "--logs", "--from", server.url, "--token", bob,
                      path=path)
        assert mine.returncode == 0 and "bobbot-was-here" in mine.stdout, mine.stderr
        assert "adabot-was-here" not in mine.stdout
        anyone = _arena("replay", str(match_id), "--logs", "--from", server.url, path=path)
        assert anyone.returncode == 0 and "was-here" not in anyone.stdout, anyone.stderr
        local = _arena("replay", str(match_id), "--logs", path=path)  # the organizer's own
        assert "adabot-was-here" in local.stdout and "bobbot-was-here" in local.stdout
        # on a phone nothing scrolls sideways (a wide table scrolls inside its own box)
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        browser.get(server.url + "mine.html")
        assert browser.execute_script(
            "return document.documentElement.scrollWidth <= innerWidth")
    finally:
        browser.quit()
        worker.terminate()
        worker.wait(60)


class _Visitor:
    """A browser as a script: its own cookies, the page token of the last page it read,
    and the server's own origin on every change (so only an account can tell it apart)."""

    def __init__(self, url: str, bearer: str | None = None):
        import http.cookiejar

        self.url, self.token, self.bearer = url, "", bearer
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def ask(self, method: str, path: str, data: bytes | None = None,
            headers: dict | None = None) -> tuple[int, str, str]:
        """The status, the final URL (after redirects) and the body."""
        import re

        headers = {"Origin": self.url.rstrip("/"), "X-Arena-Token": self.token,
                   **({"Authorization": f"Bearer {self.bearer}"} if self.bearer else {}),
                   **(headers or {})}
        request = urllib.request.Request(self.url + path.lstrip("/"), data=data,
                                         method=method, headers=headers)
        try:
            with self.opener.open(request, timeout=120) as r:
                status, url, body = r.status, r.url, r.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            status, url, body = e.code, e.url, e.read().decode(errors="replace")
        found = re.search(r'name="arena-token" content="([0-9a-f]+)"', body)
        if found:
            self.token = found.group(1)
        return status, url, body


#: What anyone may do in a league without an account: read results, replays and the
#: tables' public views (no seat's hidden cards), see the forms, and sign in, up or out.
PUBLIC = {("GET", p) for p in (
    "/", "/index.html", "/humans.html", "/season-{id}.html", "/match-{id}.html",
    "/api/season/{id}", "/api/match/{id}", "/events/season/{id}", "/events/table/{id}",
    "/table-{id}.html", "/api/table/{id}", "/challenge-{id}.html", "/play.html",
    "/challenge.html", "/signin.html", "/signup.html")} | {("POST", "/signout")}


@pytest.mark.slow
def test_a_stranger_is_refused_on_every_route_that_acts_for_an_account(league, tmp_path):
    """Every route of the app (listed from the app itself: a new one is checked too) that is
    not ``PUBLIC`` refuses a visitor without an account - with the page's token and the
    server's origin, as a browser would send them, and again with a made-up API token -
    on objects that exist: ada's table, ada's upload, a stored match."""
    from starlette.routing import Route

    from arena.leagues import uploads
    from arena.plugins import Registry
    from arena.web.app import make_app

    server, path, _ = league
    engine = db.connect(f"sqlite:///{path}")
    played = _arena("season", "run", "vandtia", "--bots", "random,first", "--rounds", "1",
                    "--name", "s", "--public-seed", path=path)
    assert played.returncode == 0, played.stderr
    from conftest import bot_file

    from arena.leagues import store

    upload = uploads.enqueue(engine, store.store_folder(f"sqlite:///{path}"), "ada",
                             "adabot.py", bot_file("adabot").encode())
    ada = _Visitor(server.url)
    ada.ask("GET", "signin.html")
    status, url, _ = ada.ask("POST", f"signin.html?csrf={ada.token}", urllib.parse.urlencode(
        {"name": "ada", "password": PASSWORD, "next": "play.html"}).encode())
    assert status == 200 and url.endswith("play.html")
    status, url, _ = ada.ask("POST", f"play.html?csrf={ada.token}", urllib.parse.urlencode(
        {"table": "vandtia/cardems/2", "seat": "0", "opponents": "random"}).encode())
    assert status == 200 and "table-" in url, url
    table = url.rsplit("table-", 1)[1].split(".")[0]

    ids = {"/api/uploads/{id}": str(upload.id), "/api/table/{id}/move": table,
           "/api/table/{id}/abandon": table, "/challenge-{id}-next": "1"}
    routes = [(method, r.path) for r in make_app(engine, Registry(), league=True).routes
              if isinstance(r, Route) for method in sorted(r.methods - {"HEAD"})]
    assert ("POST", "/api/submit") in routes and ("GET", "/mine.html") in routes
    bodies = {"/api/table/{id}/move": json.dumps({"action": "pickup", "at": 0}).encode()}
    for bearer in (None, "arena_t_" + "x" * 43):
        stranger = _Visitor(server.url, bearer)
        stranger.ask("GET", "index.html")  # a visitor's cookie and page token, no account
        for method, route in routes:
            if (method, route) in PUBLIC:
                continue
            target = route.replace("{id}", ids.get(route, "1"))
            status, url, body = stranger.ask(method, target, bodies.get(route, b"") if
                                             method == "POST" else None)
            refused = status in (401, 403, 404) or "/signin.html" in url
            assert refused, (method, route, bearer, status, url, body[:200])
            assert "adabot" not in body, (method, route)  # nothing of ada's shows
    # ... while ada herself is answered on the same routes
    assert ada.ask("GET", f"api/uploads/{upload.id}")[0] == 200
    assert ada.ask("GET", "mine.html")[1].endswith("mine.html")


@pytest.mark.serial
@pytest.mark.slow
def test_a_server_killed_while_it_checks_an_upload_checks_it_once_started_again(tmp_path):
    """kill -9 of the server while its checker is in the middle of a check: nothing sent is
    lost, and started again the server checks it and keeps it once."""
    import signal
    import time

    from conftest import bot_file
    from test_serve import Server

    from arena.leagues import store, uploads

    path = tmp_path / "a.db"
    engine = db.connect(f"sqlite:///{path}")
    _, token = accounts.add(engine, "ada")
    server = Server(path, options=("--league",))
    try:
        slow = bot_file("slowbot", sleep=0.01)  # its check takes a while: it thinks each move
        status, answer = _upload(server.url, token, "slowbot.py", slow.encode())
        assert status == 202 and answer["status"] == "waiting", answer
        for _ in range(6000):  # until its check has begun (its row says so)
            if uploads.get(engine, answer["id"]).status == "checking":
                break
            time.sleep(0.05)
        server.stop(signal.SIGKILL)
        assert uploads.get(engine, answer["id"]).status == "checking"  # cut short
        assert store.versions(engine) == []
        server = Server(path, options=("--league",))
        for _ in range(6000):
            row = uploads.get(engine, answer["id"])
            if row.status not in uploads.OPEN:
                break
            time.sleep(0.05)
        assert (row.status, row.bot) == ("kept", "slowbot@1"), row
        assert [(r.name, r.version) for r in store.versions(engine)] == [("slowbot", 1)]
        assert list((store.store_folder(f"sqlite:///{path}") / uploads.UPLOADS).iterdir()) == []
    finally:
        server.stop(signal.SIGKILL)
