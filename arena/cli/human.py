"""A person's seat at ``arena play``: ``human`` (or ``human:NAME``) in place of a bot.

At each of its decisions the seat shows what happened since its last one, as the per-seat
transcript shows it (``arena replay --seat``), then its observation and its legal actions,
numbered. On a terminal one key chooses (``1``-``9``, then letters); Enter, or any other
key, opens a line for an action typed whole - or its cards alone, ``7H`` for ``play 7H`` -
and ``?`` explains the action strings. Read from a pipe (a script, a test), each line is a
key, an action or ``?``. Ctrl-C - or the end of the input - abandons the match.

The seat is the person, not bot code: it runs in the runner's process, beside sandboxed
bots, and sees only what ``views.seat`` and ``views.transcript`` draw for its seat.
"""

from __future__ import annotations

import os
import sys
import termios
import tty

from ..views import seat as view
from ..views.transcript import print_renderable, render_events


class Abandoned(KeyboardInterrupt):
    """The person left the match (Ctrl-C, or the end of its input)."""


def _key(fd: int) -> str:
    """One key from a terminal in raw mode; Abandoned for Ctrl-C and Ctrl-D."""
    key = os.read(fd, 1)
    if not key or key in (b"\x03", b"\x04"):
        raise Abandoned
    if key[0] >= 0x80:  # the rest of a UTF-8 character
        more = 1 if key[0] < 0xE0 else 2 if key[0] < 0xF0 else 3
        key += os.read(fd, more)
    return key.decode(errors="replace")


class TerminalSeat:
    """The Bot interface, answered by a person at the terminal."""

    def __init__(self, name: str, events, names: list[str], stderr: bool = False):
        self.name = name
        self.events = events  # () -> the match's recorded events so far
        self.names = names
        self.stderr = stderr
        self.shown = 0
        self.seat = 0
        self.game = ""
        self.tty = sys.stdin.isatty()

    def say(self, renderable) -> None:
        print_renderable(renderable, stderr=self.stderr)

    def start(self, info: dict) -> None:
        self.seat, self.game = info["seat"], info["game"]
        self.say(f"[bold]you are seat {self.seat} ({self.name}) of {info['players']} in "
                 f"{info['game']} {info['variant']}[/]: ? explains the actions, Ctrl-C "
                 "abandons the match")

    def _news(self) -> None:
        events = self.events()
        if len(events) > self.shown:
            for part in render_events(self.game, events[self.shown:], self.names,
                                      viewer=self.seat):
                self.say(part)
            self.shown = len(events)

    def act(self, observation: dict, legal: list):
        self._news()
        self.say(view.render_seat(observation, self.names))
        self.say(view.render_actions(self.game, legal))
        while True:
            text = self._read(legal)
            if text == "?":
                self.say(view.render_help(self.game))
                continue
            action = view.choose(text, legal)
            if action is not None:
                return action
            self.say(f"not an action here: {text!r} (a key from the list, an action as "
                     "written, or ? for help)")

    def _read(self, legal: list) -> str:
        try:
            if self.tty:
                return self._keys(legal)
            line = sys.stdin.readline()
        except (KeyboardInterrupt, EOFError):
            raise Abandoned from None
        if not line:
            raise Abandoned
        return line.strip()

    def _keys(self, legal: list) -> str:
        """On a terminal: one key chooses; Enter (or another key) starts a line, typed key
        by key (Backspace deletes, Enter ends it). The terminal stays in its key-by-key
        mode for the whole answer, switched without dropping what was typed ahead."""
        out = sys.stderr if self.stderr else sys.stdout
        out.write("your move (key, or Enter to type): ")
        out.flush()
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
        try:
            tty.setraw(fd, termios.TCSANOW)
            key = _key(fd)
            if key == "?" or view.by_key(key, legal) is not None:
                out.write(key + "\r\n")
                return key
            text = key if key.isprintable() and key.strip() else ""
            out.write("\r\naction: " + text)
            out.flush()
            while (key := _key(fd)) not in ("\r", "\n"):
                if key in ("\x7f", "\b"):
                    if text:
                        text = text[:-1]
                        out.write("\b \b")
                elif key.isprintable():
                    text += key
                    out.write(key)
                out.flush()
            out.write("\r\n")
            return text
        finally:
            out.flush()
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)

    def end(self, result: dict) -> None:
        self._news()

    def close(self) -> None:
        pass
