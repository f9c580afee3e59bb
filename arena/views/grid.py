"""Tables for a terminal of any width, piped or not: a name is never broken.

A :class:`Grid` is a rich table whose *name* columns (a bot, a season, a match: what a user
copies into the next command) are always printed whole, on one line, and so is every figure
and short word (``inaccuracy``, ``25.3 ± 1.2``). The other columns give way when the terminal
is narrow: free text and lists wrap between words, headers too; if that cannot fit, the
rightmost columns are left out, and a line under the table names them (``--format json``
has every column).
"""

from __future__ import annotations

from rich import box
from rich.cells import cell_len
from rich.table import Table


def _text(cell) -> str:
    return cell.plain if hasattr(cell, "plain") else str(cell)


def _lines(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` cells, broken between words."""
    lines: list[str] = []
    for word in text.split():
        if lines and cell_len(lines[-1]) + 1 + cell_len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


class Grid(Table):
    """``Grid("#", "bot", "games", names=("bot",), right=("#", "games"))``: ``names`` are
    printed whole and never left out, nor is ``keep``; ``wrap`` columns (free text, lists)
    may wrap between words - the last named first - the others are printed whole or left
    out; ``right`` are right-aligned.
    No outer edge, a rule under the header (``boxed``: lines around every cell)."""

    def __init__(self, *columns: str, title: str = "", names=(), keep=(), right=(),
                 wrap=(), caption: str = "", boxed: bool = False):
        super().__init__(title=title or None, title_justify="left",
                         box=box.HEAVY_HEAD if boxed else box.SIMPLE_HEAD, show_edge=boxed,
                         pad_edge=boxed, collapse_padding=not boxed,
                         caption=caption or None, caption_justify="left")
        self.names = set(names)
        self.wrap = set(wrap) - self.names
        self._order = {name: i for i, name in enumerate(wrap)}
        self.keep = set(keep) | self.names
        for col in columns:
            self.add_column(col, justify="right" if col in right else "left",
                            no_wrap=col not in self.wrap, overflow="fold")

    def _bounds(self, column) -> tuple[int, int]:
        """The narrowest a column may be and the widest it needs. A ``wrap`` column (free
        text, a list) may narrow to its longest word; any other (a name, a figure, a short
        word) to its widest cell - only its header may wrap, between words."""
        texts = [line for c in column._cells for line in _text(c).splitlines()] or [""]
        header = _text(column.header)
        widest = max(cell_len(t) for t in texts)
        header_word = max((cell_len(w) for w in header.split()), default=0)
        if column.header in self.wrap:
            narrowest = max([header_word, *(cell_len(w) for t in texts for w in t.split())])
        else:
            narrowest = max(widest, header_word)
        return narrowest, max(widest, cell_len(header))

    def __rich_console__(self, console, options):
        width = options.max_width
        left_out = []
        while True:
            bounds = [self._bounds(c) for c in self.columns]
            spare = width - self._extra_width - sum(self._get_padding_width(i)
                                                    for i in range(len(self.columns)))
            if sum(lo for lo, _ in bounds) <= spare:
                break
            droppable = [c for c in self.columns if c.header not in self.keep]
            if not droppable:
                break  # names alone wider than the terminal: printed whole all the same
            column = droppable[-1]
            left_out.insert(0, _text(column.header))
            self.columns.remove(column)
            for i, c in enumerate(self.columns):
                c._index = i
        sizes = [hi for _, hi in bounds]
        excess = sum(sizes) - max(spare, 0)
        # the columns that may wrap give way in the reverse of the order ``wrap`` named them
        # (the last named first: a list of bots before a league's name), each down to its
        # longest word; any other column is as wide as its widest cell
        order = sorted(range(len(self.columns)), key=lambda i: -self._order.get(
            _text(self.columns[i].header), -1))
        for i in order:
            if excess <= 0:
                break
            give = min(excess, sizes[i] - bounds[i][0])
            sizes[i] -= give
            excess -= give
        for column, size in zip(self.columns, sizes, strict=True):
            column.width = max(size, 1)
            header = _text(column.header)
            if cell_len(header) > column.width:  # a header wraps between its words
                column.header = _lines(header, column.width)
        if left_out:
            note = (f"(left out at {width} columns: {', '.join(left_out)}; a wider terminal "
                    "or --format json shows them)")
            self.caption = f"{self.caption}\n{note}" if self.caption else note
        yield from super().__rich_console__(console, options)
