"""Deal books: named deals and positions in a plain text file, written and read by arena.

A book is for one game, variant and number of players, named by its first line that is
not a comment; then come its deals, each a block that starts with ``deal:`` and a name::

    # the hands that beat lowrider (lines starting with # are comments)
    game: vandtia cardems 2

    deal: all-tens
    dealer: 0
    players 0 hand: 10C 10D 10H
    players 0 faceup: 2C 3D KS
    players 0 facedown: 4C 5D 6H
    players 1 hand: ...
    stock: 9C 8S ...

Each line of a deal is ``key: value``, the keys those of the game's explicit deal
(``from_deal``, docs/game-api.md), a list's items and an object's keys written as further
words of the key (``players 0 hand``, ``hands 2``). A list is its items separated by spaces
- cards in the game's own notation (``10H``, ``SJ``, ``5M``), ``.`` for an empty place (a
face-down card already played), nothing for an empty list; other values are a number,
``true``, ``false``, ``none`` or a word. A key holds a list when it is a list of the deal
format (``LISTS``) or ends in a number. A book may hold positions as well as whole deals
(``partial: true``, ``pile``, ``to_move``... as ``from_deal`` takes them).

``read`` refuses a book with the number of the first line that is wrong - a line it cannot
read, or a deal ``from_deal`` refuses (its ``deal:`` line) - and ``write`` gives the text
that ``read`` reads back to the same deals.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from ..errors import ArenaError, GameError

#: The keys of the three games' deal formats whose values are lists.
LISTS = frozenset({"hand", "known", "faceup", "facedown", "stock", "pile", "burned", "kitty",
                   "buried", "levels", "out", "hands", "players"})
#: The order ``write`` gives a deal's keys (others follow, alphabetically).
ORDER = ("hands", "players", "hand", "known", "faceup", "facedown", "kitty", "buried",
         "stock", "pile", "burned", "trump", "dealer", "bidding_start", "leader", "levels",
         "points", "to_move", "out", "moves", "seed", "partial")
#: ``write`` wraps a longer line, its rest indented (``read`` joins indented lines to the
#: list before them).
WIDTH = 78
_LINE = re.compile(r"^([a-z_]+(?: [a-z_0-9]+)*):(?: (.*))?$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,79}$")
_NOT_IN_A_NAME = re.compile(r"[^A-Za-z0-9_.@+-]")


def as_name(text: str) -> str:
    """``text`` with every character a deal's name may not hold made ``-`` (a season's or
    a file's name, as the start of a name)."""
    return _NOT_IN_A_NAME.sub("-", text)


@dataclass(frozen=True)
class Entry:
    name: str
    deal: dict
    line: int = 0  # of its ``deal:`` line in the book read (0: not read from a book)


@dataclass(frozen=True)
class Book:
    game: str
    variant: str
    players: int
    entries: tuple[Entry, ...]


class BookError(ArenaError):
    """A book that cannot be read: the message names the line."""


def read(text: str, registry_or_game, where: str = "deal book") -> Book:
    """The book in ``text``; BookError naming ``where`` and the line of its first fault.
    ``registry_or_game``: a registry (the book names its game) or the game itself."""
    game = header = None
    entries: list[tuple[int, str, dict]] = []
    last: list | None = None  # the list the line before gave: an indented line goes on
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue

        def fault(message: str, number=number) -> BookError:
            return BookError(f"{where}:{number}: {message}")

        if raw[0] in " \t":
            if last is None:
                raise fault("an indented line goes on a list begun on the line before")
            last.extend(_list(line))
            continue
        last = None
        m = _LINE.match(line)
        if m is None:
            raise fault(f"not a 'key: value' line: {_short(line)}")
        key, value = m.group(1), (m.group(2) or "").strip()
        if header is None:
            if key != "game":
                raise fault("a deal book begins with 'game: NAME VARIANT PLAYERS'")
            header = _header(value, registry_or_game, fault)
            game = header[0]
            continue
        if key == "deal":
            if not _NAME.match(value):
                raise fault(f"a deal's name is a word of letters, digits and -_.@+ "
                            f"(at most 80), not {_short(value) or 'nothing'}")
            if any(value == name for _, name, _ in entries):
                raise fault(f"a second deal named {value}")
            entries.append((number, value, {}))
            continue
        if key == "game":
            raise fault("a book is for one game: 'game:' comes once, first")
        if not entries:
            raise fault("a key before the first 'deal: NAME' line")
        try:
            last = _put(entries[-1][2], key.split(), value)
        except ValueError as e:
            raise fault(str(e)) from None
    if header is None:
        raise BookError(f"{where}: an empty deal book (it begins with 'game: NAME VARIANT "
                        "PLAYERS', then its deals)")
    if not entries:
        raise BookError(f"{where}: a deal book without a deal")
    game, variant, players = header
    for number, name, deal in entries:
        try:
            game.start(variant, players, 0, deal)
        except GameError as e:
            raise BookError(f"{where}:{number}: deal {name}: {e}") from None
    return Book(game.name, variant, players,
                tuple(Entry(name, deal, number) for number, name, deal in entries))


def write(game, variant: str, players: int, entries, comment: str = "") -> str:
    """The text of a book of ``entries`` (``Entry``, or ``(name, deal)`` pairs)."""
    lines = [f"# {c}".rstrip() for c in comment.splitlines()]
    lines.append(f"game: {game.name} {variant} {players}")
    for entry in entries:
        name, deal = (entry.name, entry.deal) if isinstance(entry, Entry) else entry
        lines += ["", f"deal: {name}"]
        for path, text in _flat((), deal):
            lines += textwrap.wrap(f"{' '.join(path)}: {text}", WIDTH, subsequent_indent="    ",
                                   break_long_words=False, break_on_hyphens=False) or [
                f"{' '.join(path)}:"]
    return "\n".join(lines) + "\n"


def _header(value: str, registry_or_game, fault):
    words = value.split()
    if len(words) != 3 or not words[2].isdigit():
        raise fault(f"'game: NAME VARIANT PLAYERS' (e.g. 'game: vandtia cardems 2'), not "
                    f"{_short(value)!r}")
    try:
        game = (registry_or_game.game(words[0]) if hasattr(registry_or_game, "game")
                else registry_or_game)
        if game.name != words[0]:
            raise GameError(f"a book of {words[0]}, not of {game.name}")
        variant = game.check(words[1], int(words[2]))
    except (GameError, ArenaError) as e:
        raise fault(str(e)) from None
    return game, variant, int(words[2])


def _put(deal: dict, path: list[str], value: str) -> list | None:
    """Set ``path`` (words of a key) in ``deal`` to the parsed ``value``; the list set, if
    it is one (an indented line after it goes on)."""
    here: dict | list = deal
    for i, word in enumerate(path):
        last = i == len(path) - 1
        as_list = last and (word in LISTS or word.isdigit())
        new = _list(value) if as_list else _scalar(value) if last else None
        if isinstance(here, list):
            if not word.isdigit():
                raise ValueError(f"{' '.join(path[:i])} is a list: {word!r} is not its place "
                                 "number")
            index = int(word)
            if index > len(here):
                raise ValueError(f"{' '.join(path[:i + 1])}: place {index} before place "
                                 f"{len(here)}")
            if index == len(here):
                here.append(new if last else ({} if not path[i + 1].isdigit() else []))
            elif last:
                raise ValueError(f"{' '.join(path)} is given twice")
            here = here[index]
            if last:
                return new if as_list else None
            continue
        if last:
            if word in here:
                raise ValueError(f"{' '.join(path)} is given twice")
            here[word] = new
            return new if as_list else None
        child = here.setdefault(word, [] if word in LISTS or path[i + 1].isdigit() else {})
        if isinstance(child, (dict, list)) is False:
            raise ValueError(f"{' '.join(path[:i + 1])} is given twice")
        here = child


def _list(value: str) -> list:
    return [None if w == "." else int(w) if w.isdigit() else w for w in value.split()]


def _scalar(value: str):
    if value in ("true", "false"):
        return value == "true"
    if value == "none":
        return None
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    if not value or " " in value:
        raise ValueError(f"one word, number, true, false or none, not {_short(value) or 'nothing'}")
    return value


def _flat(path: tuple, value):
    """``(path, text)`` lines of a deal value, in ``read``'s syntax."""
    if isinstance(value, dict):
        for key in sorted(value, key=lambda k: (ORDER.index(k) if k in ORDER else len(ORDER),
                                                k)):
            yield from _flat((*path, key), value[key])
    elif isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        for i, v in enumerate(value):
            yield from _flat((*path, str(i)), v)
    elif isinstance(value, list):
        yield path, " ".join("." if v is None else str(v) for v in value)
    elif isinstance(value, bool):
        yield path, "true" if value else "false"
    else:
        yield path, "none" if value is None else str(value)


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."
