"""The sandbox: hostile bots forfeit with the right reason; the runner and the database
are untouched. Every bot here is a real file run by a real, confined worker process."""

import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from arena import db
from arena.cards import names
from arena.games.vandtia import GAME
from arena.plugins import Registry
from arena.referee import play_match, replay
from arena.sandbox import Limits, jail, layer_checks, probe
from arena.sandbox.bot import make_bot

TIGHT = Limits(move_s=0.3, bank_s=0.3, start_s=10, memory_mb=512)

BOT = '''
import os, signal, socket, subprocess, sys, time
import arena
{prelude}

class Bot:
    def act(self, observation, legal):
{body}
        return legal[0]

@arena.hookimpl
def register_bots(register):
    register("evil", Bot, games=["vandtia"])
'''


@pytest.fixture
def database(tmp_path):
    """A real arena database; its bytes must not change whatever the bots do."""
    path = tmp_path / "arena.db"
    db.connect(f"sqlite:///{path}").dispose()
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    yield path
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before, "the database changed"


def match_against(tmp_path, body="", prelude="", limits=TIGHT, files=None):
    folder = tmp_path / "bots"
    folder.mkdir(exist_ok=True)
    for name, text in (files if files is not None else {"evil.py": BOT.format(
            prelude=prelude, body=textwrap.indent(textwrap.dedent(body), " " * 8))}).items():
        (folder / name).write_text(text)
    registry = Registry(bots_dirs=[folder])
    assert not registry.broken, registry.broken
    bots = [make_bot(registry.bot("evil", "vandtia"), limits),
            make_bot(registry.bot("random", "vandtia"), limits)]
    pids = [b.worker.proc.pid for b in bots]
    try:
        match, _ = play_match(GAME, "cardems", bots, 1, ["evil", "random"])
    finally:
        for b in bots:
            b.close()
    for pid in pids:  # nothing the bot started outlives it
        assert not live_members(pid)
    return match


def live_members(pgid: int) -> list[int]:
    """Processes of a process group that are still running (zombies left for a non-reaping
    init do not count)."""
    live = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            live.append(int(entry))
    return live


def forfeited(match, reason):
    assert match.result.faults[0] == reason or re.fullmatch(reason, match.result.faults[0]), (
        match.result.faults)
    assert match.result.reason == "forfeit" and match.result.ranks == [2, 1]
    assert match.result.faults[1] is None
    return True


DENIED = r"crash: PermissionError: \[Errno 1\] Operation not permitted.*"
LANDLOCKED = r"crash: PermissionError: \[Errno 13\] Permission denied.*"
NOT_THERE = r"crash: FileNotFoundError: \[Errno 2\] No such file or directory.*"
#: a path outside the bot's own files: not in its root at all, where it has a root of its own
OUTSIDE = NOT_THERE if jail.available() else LANDLOCKED


def test_the_machine_has_every_isolation_layer():
    checks = layer_checks(probe())
    assert all(ok for ok, _ in checks.values()), checks


def test_an_infinite_loop_times_out(tmp_path, database):
    assert forfeited(match_against(tmp_path, "while True: pass"), "timeout")


def test_sleeping_times_out(tmp_path, database):
    assert forfeited(match_against(tmp_path, "time.sleep(60)"), "timeout")


def test_cpu_time_is_limited(tmp_path):
    limits = Limits(move_s=5, bank_s=5, cpu_s=1, memory_mb=512)
    assert forfeited(match_against(tmp_path, "while True: pass", limits=limits),
                     "cpu time exceeded")


def test_a_4gb_allocation_exceeds_memory(tmp_path, database):
    assert forfeited(match_against(tmp_path, "x = bytearray(4 * 2**30)"), "memory exceeded")


def test_a_fork_bomb_is_refused(tmp_path, database):
    assert forfeited(match_against(tmp_path, "while True: os.fork()"), DENIED)


def test_spawning_a_shell_is_refused(tmp_path, database):
    marker = tmp_path / "shell-ran"
    match = match_against(tmp_path, f"subprocess.run(['sh', '-c', 'touch {marker}'])")
    assert forfeited(match, DENIED) and not marker.exists()


def test_reading_the_database_is_refused(tmp_path, database):
    match = match_against(tmp_path, f"open({str(database)!r}, 'rb').read()")
    assert forfeited(match, OUTSIDE)


def test_writing_outside_its_folder_is_refused(tmp_path, database):
    """Refused - or, where its own files lie in folders of its /tmp, written there, in its
    own folder: never on the machine."""
    target = tmp_path / "escaped.txt"
    match = match_against(tmp_path, f"open({str(target)!r}, 'w').write('x')")
    assert not target.exists()
    if match.result.faults[0] is not None:
        assert forfeited(match, f"{OUTSIDE}|{LANDLOCKED}")


def test_writing_inside_its_own_folder_is_allowed(tmp_path):
    match = match_against(tmp_path, "open('notes.txt', 'a').write('ok')")
    assert match.result.faults == [None, None]


@pytest.mark.parametrize("kind", [socket.SOCK_STREAM, socket.SOCK_DGRAM])
def test_opening_a_socket_to_localhost_is_refused(tmp_path, database, kind):
    server = socket.socket(socket.AF_INET, kind)
    server.bind(("127.0.0.1", 0))
    if kind == socket.SOCK_STREAM:
        server.listen()
    server.settimeout(0.2)
    port = server.getsockname()[1]
    body = (f"s = socket.create_connection(('127.0.0.1', {port}))" if kind == socket.SOCK_STREAM
            else f"socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', "
                 f"('127.0.0.1', {port}))")
    assert forfeited(match_against(tmp_path, body), DENIED)
    with pytest.raises(TimeoutError):
        server.accept() if kind == socket.SOCK_STREAM else server.recv(10)


@pytest.mark.parametrize("what", ["mem", "environ", "cmdline"])
def test_reading_the_runners_proc_is_refused(tmp_path, database, what):
    match = match_against(tmp_path, f"open('/proc/{os.getpid()}/{what}', 'rb').read(64)")
    assert forfeited(match, OUTSIDE)
    if what != "cmdline":  # nor its jail's init, the one other process it sees
        body = f"open(f'/proc/{{os.getppid()}}/{what}', 'rb').read(64)"
        assert forfeited(match_against(tmp_path, body), LANDLOCKED)


def test_signalling_the_runner_is_refused(tmp_path, database):
    match = match_against(tmp_path, "os.kill(os.getppid(), signal.SIGKILL)")
    assert forfeited(match, DENIED)  # and this test is still running


CHECKED = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def call(result):
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
"""


@pytest.mark.parametrize("body", [
    "call(libc.shmget(0x4152, 4096, 0o1600))",  # System V shared memory
    "call(libc.msgget(0x4152, 0o1600))",  # System V message queue
    "call(libc.semget(0x4152, 1, 0o1600))",  # System V semaphores
    "call(libc.mq_open(b'/arena-x', os.O_CREAT | os.O_RDWR, 0o600, None))",  # POSIX queue
    "import fcntl; fcntl.flock(open(__file__), fcntl.LOCK_EX)",  # a lock on a shared file
    "import fcntl; fcntl.lockf(open('own', 'w'), fcntl.LOCK_EX)",
    "os.setpriority(os.PRIO_USER, 0, 19)",  # every process of the user
    "os.getpriority(os.PRIO_PROCESS, os.getppid())",  # what another process set
    "os.sched_getaffinity(os.getppid())",
    "time.clock_gettime(((~os.getppid()) << 3) | 2)",  # another process's CPU clock
])
def test_every_channel_to_another_process_is_refused(tmp_path, database, body):
    assert forfeited(match_against(tmp_path, body, prelude=CHECKED), DENIED)


def test_posix_shared_memory_is_refused(tmp_path, database):
    from multiprocessing import shared_memory  # noqa: F401 - what a bot would use

    body = "from multiprocessing import shared_memory; shared_memory.SharedMemory('x', True, 64)"
    assert forfeited(match_against(tmp_path, body), OUTSIDE)


def test_exiting_mid_match_forfeits(tmp_path, database):
    assert forfeited(match_against(tmp_path, "os._exit(3)"), "crash: exited with status 3")


def test_being_killed_by_a_signal_is_named(tmp_path):
    match = match_against(tmp_path, "os.kill(os.getpid(), signal.SIGSEGV)")
    assert forfeited(match, "crash: killed by SIGSEGV")


def test_an_illegal_action_forfeits_with_the_log_tail(tmp_path, database):
    match = match_against(tmp_path, "print('choosing'); return 'play 3X'")
    assert forfeited(match, r'illegal action: "play 3X" \(not one of the \d+ legal actions\)')
    assert "choosing" in match.logs[0], "an illegal action keeps the bot's log too"


def test_a_number_for_a_string_action_is_named_as_such(tmp_path, database):
    match = match_against(tmp_path, "return 0")
    assert forfeited(match, "illegal action: 0 (a number; the legal actions are strings)")


def test_an_exception_forfeits_with_its_name_and_the_traceback_in_the_log(tmp_path):
    match = match_against(tmp_path, "print('thinking hard'); raise ValueError('no idea')")
    assert forfeited(match, "crash: ValueError: no idea")
    assert "thinking hard" in match.logs[0], "what a bot prints is its log, not the protocol"
    assert "Traceback (most recent call last)" in match.logs[0]
    assert 'evil.py", line' in match.logs[0] and "ValueError: no idea" in match.logs[0]


def _exec_bot(tmp_path, script):
    (tmp_path / "bots" / "evil").mkdir(parents=True, exist_ok=True)
    (tmp_path / "bots" / "evil" / "prog.py").write_text(textwrap.dedent(script))
    manifest = (f'name = "evil"\ngames = ["vandtia"]\n'
                f'command = [{sys.executable!r}, "evil/prog.py"]\n').replace("'", '"')
    (tmp_path / "bots" / "evil.toml").write_text(manifest)


def test_printing_garbage_is_a_protocol_error(tmp_path, database):
    _exec_bot(tmp_path, """
        import sys
        for line in sys.stdin:
            print("hello there", flush=True)
        """)
    assert forfeited(match_against(tmp_path, files={}), r"protocol error: not JSON: b'hello there'")


def test_a_100mb_line_is_a_protocol_error(tmp_path, database):
    _exec_bot(tmp_path, """
        import sys
        sys.stdin.readline()
        sys.stdout.write("x" * 100_000_000)
        sys.stdout.flush()
        """)
    assert forfeited(match_against(tmp_path, files={}),
                     "protocol error: a line longer than 1048576 bytes")


def test_an_unexpected_message_is_a_protocol_error(tmp_path, database):
    _exec_bot(tmp_path, """
        import sys
        for line in sys.stdin:
            print('{"type": "ready"}', flush=True)
        """)
    assert forfeited(match_against(tmp_path, files={}),
                     "protocol error: expected 'action', got .*")


HARM_AT_IMPORT = '''
import os, signal
import arena
for harm in (lambda: os.remove({db!r}), lambda: open({outside!r}, "w"),
             lambda: os.kill(os.getppid(), signal.SIGTERM), lambda: os.fork()):
    try:
        harm()
    except OSError:
        pass

class Bot:
    def act(self, observation, legal):
        return legal[0]

@arena.hookimpl
def register_bots(register):
    register("evil", Bot, games=["vandtia"])
'''


def test_harm_at_import_time_is_contained(tmp_path, database):
    outside = tmp_path / "written-at-import"
    text = HARM_AT_IMPORT.format(db=str(database), outside=str(outside))
    match = match_against(tmp_path, files={"evil.py": text})
    assert match.result.faults == [None, None] and not outside.exists()


@pytest.mark.slow
def test_a_bot_that_hangs_at_import_is_left_out_and_the_rest_still_load(tmp_path):
    (tmp_path / "hang.py").write_text("while True: pass\n")
    (tmp_path / "zfine.py").write_text(BOT.format(prelude="", body="        pass"))
    registry = Registry(bots_dirs=[tmp_path], entry_points=False)
    assert list(registry.bots()) == ["evil"]
    assert registry.broken == {str(tmp_path / "hang.py"):
                               f"cannot load bot source {tmp_path / 'hang.py'}: timeout"}


def test_the_awk_example_bot_plays_from_its_manifest():
    folder = os.path.join(os.path.dirname(__file__), "..", "plugins", "awk-bot")
    registry = Registry(bots_dirs=[folder])
    entry = registry.bot("lowawk", "vandtia")
    assert entry.spec["kind"] == "exec" and entry.spec["target"][1:3] == ["-W", "interactive"]
    bots = [make_bot(entry), make_bot(registry.bot("random", "vandtia"))]
    try:
        for seed in range(3):
            match, _ = play_match(GAME, "cardems", bots, seed)
            assert match.result.faults == [None, None] and match.result.reason != "forfeit"
    finally:
        for b in bots:
            b.close()


@pytest.mark.skipif(not shutil.which("node"), reason="Node.js is not installed")
def test_the_node_example_bot_plays_every_game_at_k_16(tmp_path):
    """An executable in JavaScript, under its deny-list, in every game; protocol 2 (many
    matches in one process) in a season."""
    folder = os.path.join(os.path.dirname(__file__), "..", "plugins", "node-bot")
    registry = Registry(bots_dirs=[folder])
    for game_name, variant, seats in (("vandtia", "cardems", ["lownode", "random"]),
                                      ("tractor", "deal", ["lownode", "random"] * 2),
                                      ("cherki", "standard", ["lownode", "random", "greedy"])):
        game = registry.game(game_name)
        bots = [make_bot(registry.bot(name, game_name)) for name in seats]
        try:
            match, _ = play_match(game, variant, bots, 3)
        finally:
            for b in bots:
                b.close()
        assert match.result.faults == [None] * len(seats), (game_name, match.result.faults)
    run = _arena("--bots-dir", folder, "--db", f"sqlite:///{tmp_path}/n.db", "season", "run",
                 "vandtia", "--bots", "lownode,random", "--rounds", "4", "--name", "n")
    assert run.returncode == 0 and "lownode" in run.stdout, run.stderr


#: A bot in C: a thread started and joined at every move (libc's join waits on a shared
#: futex, which its filter answers without making), the first legal action answered
C_BOT = r"""
#include <pthread.h>
#include <stdio.h>
#include <string.h>
static void *nothing(void *arg) { return arg; }
int main(void) {
    static char line[1 << 20];
    while (fgets(line, sizeof line, stdin)) {
        pthread_t t;
        pthread_create(&t, NULL, nothing, NULL);
        pthread_join(t, NULL);
        if (strstr(line, "\"type\": \"start\"") || strstr(line, "\"type\":\"start\"")) {
            puts("{\"type\":\"ready\"}");
        } else if (strstr(line, "\"act\"")) {
            char *p = strstr(line, "\"legal\":[") + 9, *e = p;
            while (*e != ',' && *e != ']') e++;
            *e = 0;
            printf("{\"type\":\"action\",\"action\":%s}\n", p);
        }
        fflush(stdout);
    }
    return 0;
}
"""
RUST_BOT = r"""
use std::io::{self, BufRead, Write};
fn main() {
    let mut out = io::stdout();
    for line in io::stdin().lock().lines() {
        let line = line.unwrap();
        std::thread::spawn(|| 0).join().unwrap();
        if line.contains("\"start\"") {
            writeln!(out, "{{\"type\":\"ready\"}}").unwrap();
        } else if let Some(i) = line.find("\"legal\":[") {
            let rest = &line[i + 9..];
            let end = rest.find(|c| c == ',' || c == ']').unwrap();
            writeln!(out, "{{\"type\":\"action\",\"action\":{}}}", &rest[..end]).unwrap();
        }
        out.flush().unwrap();
    }
}
"""


def _build(kind: str, folder: Path) -> list[str]:
    """Build the bot of ``kind`` in ``folder``: its command line (or skip the test)."""
    if kind == "static-c":
        if not shutil.which("gcc"):
            pytest.skip("no C compiler")
        (folder / "bot.c").write_text(C_BOT)
        run = subprocess.run(["gcc", "-static", "-O1", "-pthread", "-o", str(folder / "cbot"),
                              str(folder / "bot.c")], capture_output=True, text=True)
        if run.returncode:
            pytest.skip(f"no static C library: {run.stderr.strip()[-200:]}")
        return ["./cbot"]
    rustc = shutil.which("rustc") or next((p for p in (os.path.expanduser("~/.cargo/bin/rustc"),)
                                          if os.access(p, os.X_OK)), None)
    if not rustc:
        pytest.skip("no Rust compiler")
    (folder / "bot.rs").write_text(RUST_BOT)
    subprocess.run([rustc, "-O", "-o", str(folder / "rbot"), str(folder / "bot.rs")],
                   check=True, capture_output=True, env={**os.environ, "RUSTUP_AUTO_INSTALL": "0"})
    return ["./rbot"]


@pytest.mark.parametrize("kind", ["static-c", "rust"])
def test_a_compiled_bot_plays_under_the_allow_list(tmp_path, kind):
    """Executables of the common runtimes play under the same allow-list (awk and Node are
    the example plugins'): a static C binary and a Rust one, each starting and joining a
    thread at every message."""
    folder = tmp_path / "bots"
    folder.mkdir()
    command = _build(kind, folder)
    (folder / "native.toml").write_text(f'name = "native"\ngames = ["vandtia", "tractor"]\n'
                                        f"command = {json.dumps(command)}\n")
    registry = Registry(bots_dirs=[folder])
    for game_name, variant, seats in (("vandtia", "cardems", ["native", "random"]),
                                      ("tractor", "deal", ["native", "random"] * 2)):
        bots = [make_bot(registry.bot(name, game_name)) for name in seats]
        try:
            match, _ = play_match(registry.game(game_name), variant, bots, 3)
        finally:
            for b in bots:
                b.close()
        assert match.result.faults == [None] * len(seats), (game_name, match.result.faults)


SPY = '''
import json
import sys
import arena

class Bot:
    def act(self, observation, legal):
        print("SEEN", json.dumps(observation), file=sys.stderr, flush=True)
        return legal[0]

@arena.hookimpl
def register_bots(register):
    register("spy", Bot, games=["vandtia"])
'''
CARD = re.compile(r"\b(?:10|[2-9JQKA])[CDHS]\b")


def test_a_bot_learns_no_card_its_seat_may_not_see(tmp_path, monkeypatch):
    import arena.sandbox.process

    monkeypatch.setattr(arena.sandbox.process, "LOG_KEEP", 1 << 24)  # the whole match's log
    (tmp_path / "spy.py").write_text(SPY)
    registry = Registry(bots_dirs=[tmp_path])
    for variant, seed in (("cardems", 4), ("german", 5)):
        spy = make_bot(registry.bot("spy", "vandtia"))
        other = make_bot(registry.bot("random", "vandtia"))
        try:
            match, _ = play_match(GAME, variant, [spy, other], seed)
            seen = [json.loads(line[5:]) for line in spy.log_tail(1 << 24).splitlines()
                    if line.startswith("SEEN ")]
        finally:
            spy.close(), other.close()
        state = GAME.new_state(variant, 2, seed)
        messages = iter(seen)
        for action in match.actions:
            if state.to_move == 0 and len(state.legal_actions()) > 1:  # forced: not asked
                message = next(messages)
                assert message == json.loads(json.dumps(state.observation(0)))
                visible = set(names(state.hands[0] + state.pile + state.burned
                                    + [c for f in state.faceup for c in f]
                                    + [c for k in state.known for c in k]))
                assert set(CARD.findall(json.dumps(message))) <= visible
            state.apply(action)
        assert next(messages, None) is None
        assert replay(GAME, variant, 2, seed, match.actions).result() == state.result()


def test_limits_parse_from_one_line():
    assert Limits.parse("move_s=0.5, memory_mb=256") == Limits(move_s=0.5, memory_mb=256)
    for bad, message in (("speed=1", "unknown limit 'speed'"), ("move_s=x", "needs a number"),
                         ("cpu_s=0", "must be above 0")):
        with pytest.raises(Exception, match=message):
            Limits.parse(bad)



def _arena(*args):
    import subprocess

    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "COLUMNS": "120"})


def test_doctor_names_every_layer_and_says_the_channels_are_closed():
    out = _arena("doctor").stdout
    for layer in ("unprivileged user", "no capabilities", "pid namespace", "mount namespace",
                  "seccomp", "landlock", "private folder"):
        assert re.search(rf"{layer}\s+│ yes", out), (layer, out)
    assert "between bot processes: closed" in out


def test_the_probe_finds_futexes_locks_and_page_probes_refused_in_a_jail_and_real_outside():
    """What ``arena doctor`` tries of the kernel state keyed on files every jail sees: each
    works in a plain process (forked, so that its locks go with it) and is refused in a
    bot's jail (an executable's: ``tests/test_collusion.py``)."""
    import platform

    from arena.sandbox import confine

    numbers = confine._SYSCALL_NUMBERS.get(platform.machine(),
                                           confine._SYSCALL_NUMBERS["x86_64"])
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.write(write, json.dumps(confine._file_keyed(numbers)).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    assert json.loads(os.read(read, 4096)) == {"futex_shared": False, "file_locks": False,
                                               "page_cache_probe": False}
    os.close(read)
    refused = probe()["refused"]
    assert refused["futex_shared"] and refused["file_locks"] and refused["page_cache_probe"]


FORGETFUL = '''
import arena
moves = 0  # module state outlives a match: this bot does not reset

class Bot:
    def act(self, observation, legal):
        global moves
        moves += 1
        return legal[moves % len(legal)]

@arena.hookimpl
def register_bots(register):
    register("forgetful", Bot, games=["vandtia"])
'''


def test_check_bot_passes_a_good_bot_and_fails_one_that_does_not_reset(tmp_path):
    good = _arena("check-bot", "random", "--matches", "2")
    assert good.returncode == 0 and good.stdout.count("ok    vandtia") == 3
    (tmp_path / "forgetful.py").write_text(FORGETFUL)
    bad = _arena("--bots-dir", str(tmp_path), "check-bot", "forgetful", "--matches", "2")
    assert bad.returncode == 2 and "does NOT reset between matches" in bad.stdout


def test_every_bot_sees_only_its_jail():
    """Its init and itself, no other process; its own user; a crash and a timeout named."""
    assert jail.available(), "this machine gives bots a root of their own"
    body = ("pids = [p for p in os.listdir('/proc') if p.isdigit()]\n"
            "if sorted(pids) != ['1', '2'] or os.getpid() != 2 or os.getuid() == 0: "
            "raise RuntimeError(f'I see {pids} as {os.getuid()}')")
    assert match_against(Path(tempfile.mkdtemp()), body).result.faults == [None, None]


def test_strict_mode_plays_where_every_layer_holds(tmp_path, database):
    strict = Limits(move_s=0.3, bank_s=0.3, memory_mb=512, strict=True)
    assert match_against(tmp_path, "pass", limits=strict).result.faults == [None, None]
    assert forfeited(match_against(tmp_path, "os.kill(os.getpid(), signal.SIGSEGV)",
                                   limits=strict), "crash: killed by SIGSEGV")
    assert forfeited(match_against(tmp_path, "while True: pass", limits=strict), "timeout")


def test_a_bot_process_starts_without_loading_openssl_for_its_digests():
    """What a worker imports to serve a bot checks its compiled builds and names file bots
    by SHA-256 with the interpreter's own (``arena.games.sha256``): ``hashlib`` loads
    OpenSSL, a few ms of every bot process's start (a bot that needs it, one that imports
    an engine and so ``arena.cards``, loads it itself). The digests are hashlib's."""
    import subprocess

    from arena.games import sha256

    code = ("import sys, arena, arena.sandbox.worker; "  # a bot imports arena for hookimpl
            "print(sorted({'hashlib', '_hashlib'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
    assert sha256(b"arena").hexdigest() == hashlib.sha256(b"arena").hexdigest()
