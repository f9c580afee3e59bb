"""What one seat knows now, drawn for the person playing it: its observation as text, and
its legal actions numbered, with what each kind of action string means.

Everything here reads the observation alone (what a bot in that seat receives), so a
person's view holds nothing its seat does not know; what happened between two of its
decisions comes from the per-seat transcript (``transcript.render_events`` with ``viewer``).
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from ..cards import SUIT_SYMBOLS
from .transcript import card_text, cards_text

#: The keys that choose an action at once, in order: the numbered actions' labels.
KEYS = "123456789abcdefghijklmnoprstuvwxyz"  # no q: it reads as "quit"

#: Per game, each kind of action string with what it does.
ACTIONS = {
    "vandtia": [
        ("swap 3H KD KS", "set-up: these three of your six lie face-up, the rest is your hand"),
        ("play 7C 7H", "put down cards of one rank from your hand (then your face-up cards)"),
        ("draw", "draw-and-try: turn the stock's top card and play it if it goes "
                 "(swedish, german)"),
        ("pickup", "take the whole pile into your hand"),
        ("flip 2", "turn face-down card 2 and play it if it goes (else the pile is yours)"),
    ],
    "tractor": [
        ("pass", "bidding: do not declare"),
        ("declare 5H", "bidding: show level-rank cards (a pair outbids one card; a pair of "
                       "jokers calls no trump)"),
        ("bury KH", "the dealer buries eight cards, one at a time"),
        ("play 9S 9S", "lead: a single, a pair, a tractor, or a throw of one suit"),
        ("pick KH", "follow one card at a time, until you have laid as many as were led "
                    "(every pick offered can still be completed legally)"),
    ],
    "cherki": [
        ("call 7", "call Cherki: your eight cards are ready, waiting for a 7"),
        ("draw", "draw the top card of the stock"),
        ("take", "take the top discard"),
        ("discard 7C", "holding nine, discard one"),
        ("discard 7C call 3", "discard, and call Cherki with the eight left waiting for a 3"),
    ],
}


def key_of(index: int) -> str | None:
    """The key that chooses the ``index``-th legal action (None past the last key)."""
    return KEYS[index] if index < len(KEYS) else None


def by_key(key: str, legal: list):
    """The legal action ``key`` chooses, or None."""
    index = KEYS.find(key) if len(key) == 1 else -1
    return legal[index] if 0 <= index < len(legal) else None


def render_help(game: str) -> Table:
    table = Table("action", "what it does", title=f"{game} actions", title_justify="left",
                  box=None)
    for action, what in ACTIONS.get(game, []):
        table.add_row(action, what)
    table.add_row("", "")
    table.add_row("KEY", "the action with that key (1-9, then letters)")
    table.add_row("TEXT", "an action typed whole, or its cards alone (7H for play 7H)")
    table.add_row("?", "this help")
    table.add_row("Ctrl-C", "abandon the match")
    return table


def render_actions(game: str, legal: list) -> Table:
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(justify="right", style="bold")
    table.add_column()
    table.add_column(style="dim")
    for i, action in enumerate(legal):
        shown = _action_text(str(action)) if game != "cherki" else str(action)
        table.add_row(key_of(i) or "", shown, str(action) if shown != str(action) else "")
    return table


def _action_text(action: str) -> str:
    """The action with its cards' suits drawn (Vändtia's and Tractor's cards)."""
    verb, _, rest = action.partition(" ")
    return " ".join([verb, *(card_text(w) if w[-1:] in SUIT_SYMBOLS and len(w) >= 2 else w
                             for w in rest.split())])


def choose(text: str, legal: list) -> str | None:
    """The legal action ``text`` names: its key, the action itself, or its cards alone
    (``7H`` for ``play 7H``, when only one action has them); None if none or several."""
    text = " ".join(text.split())
    if not text:
        return None
    if (keyed := by_key(text, legal)) is not None:
        return keyed
    for action in legal:
        if str(action).upper() == text.upper():
            return action
    tails = [a for a in legal if str(a).partition(" ")[2].upper() == text.upper()]
    return tails[0] if len(tails) == 1 else None


def render_seat(observation: dict, names: list[str]) -> Group:
    """The seat's observation as a person reads it."""
    game = observation.get("game")
    if game == "tractor":
        return _tractor(observation, names)
    if game == "cherki":
        return _cherki(observation, names)
    return _vandtia(observation, names)


def _vandtia(o: dict, names: list[str]) -> Group:
    me = o["seat"]
    table = Table("seat", "hand", "known in hand", "face-up", "face-down", box=None,
                  pad_edge=False)
    for p, s in enumerate(o["seats"]):
        who = f"{p} {names[p]}" + (" (you)" if p == me else "")
        if s.get("out"):
            table.add_row(who, f"out, place {s['out']}", "", "", "")
            continue
        table.add_row(who, f"{s['hand']} card(s)", cards_text(s["known"]),
                      cards_text(s["faceup"]), str(len(s["facedown"])))
    top = o.get("top")
    pile = o["pile"]
    shown = cards_text(pile[-8:]) + (f" (and {len(pile) - 8} beneath)" if len(pile) > 8 else "")
    return Group(
        table,
        Text(f"pile: {shown if pile else 'empty'}"
             + (f"; to beat: {top}" if top else "; anything goes")
             + f"; stock {o['stock']}; burned {len(o['burned'])}"),
        Text(f"your hand: {cards_text(o['hand'])}", style="bold"))


def _tractor(o: dict, names: list[str]) -> Group:
    me = o["seat"]
    trump = o.get("trump")
    trump_text = ("not yet chosen" if trump is None else "no trump" if trump == "none"
                  else SUIT_SYMBOLS.get(trump, trump))
    lines = [Text(f"deal {o['deal']}: level rank {o['level_rank']}, trump {trump_text}, "
                  f"dealer seat {o['dealer']}; levels {o['levels'][0]}/{o['levels'][1]}; "
                  f"attackers' points {o['points']}; you are seat {me} ({names[me]}), "
                  f"team {o['team']} with seat {(me + 2) % 4} ({names[(me + 2) % 4]})")]
    if o.get("phase") == "bid" or (trump is None and o.get("bids")):
        bids = ", ".join(f"{b['seat']}: {'pass' if b['bid'] == 'pass' else cards_text(b['bid'])}"
                         for b in o.get("bids", []))
        lines.append(Text(f"bids: {bids or 'none yet'}"))
    if o.get("kitty"):
        lines.append(Text(f"the kitty you took: {cards_text(o['kitty'])}"))
    if o.get("buried"):
        lines.append(Text(f"you buried: {cards_text(o['buried'])}"))
    trick = o.get("trick")
    if trick and trick.get("plays"):
        lines.append(Text("this trick: " + "; ".join(
            f"{p} {names[p]}: {cards_text(cards)}" for p, cards in trick["plays"])))
    elif o.get("tricks"):
        last = o["tricks"][-1]
        lines.append(Text(f"last trick won by seat {last['winner']} ({last['points']} points): "
                          + "; ".join(f"{p}: {cards_text(c)}" for p, c in last["plays"])))
    if o.get("picks"):
        lines.append(Text(f"your picks so far: {cards_text(o['picks'])}"))
    lines.append(Text(f"your hand: {cards_text(o['hand'])}", style="bold"))
    return Group(*lines)


def _cherki(o: dict, names: list[str]) -> Group:
    me = o["seat"]
    table = Table("seat", "called", "draws", "takes", "last discards", box=None, pad_edge=False)
    for p in range(o["players"]):
        who = f"{p} {names[p]}" + (" (you)" if p == me else "")
        takes = [t["card"] for t in o["takes"] if t["seat"] == p]
        discards = [d["card"] for d in o["discards"] if d["seat"] == p][-6:]
        call = o["calls"][p] if p == me and o["calls"][p] is not None else None
        called = (f"yes, waiting for a {call}" if call is not None
                  else "yes" if o["called"][p] else "")
        table.add_row(who, called, str(o["draws"][p]), " ".join(takes) or "-",
                      " ".join(discards) or "-")
    pile = o["pile"]
    lines = [table,
             Text(f"top discard: {pile[-1] if pile else 'none'}; stock {o['stock']}"),
             Text(f"your hand: {' '.join(o['hand'])}"
                  + (f"; you drew {o['drawn']}" if o.get("drawn") else ""), style="bold")]
    return Group(*lines)
