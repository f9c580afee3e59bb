"""Cards, decks, seeded shuffles and seed derivation (public and keyed).

A card is a small int ``rank * 4 + suit`` so that engines can compare ranks with a shift and
keep hands as plain lists; its public name is a short ASCII string such as ``"7H"`` or
``"10S"``. Ranks run 2..14 (11 J, 12 Q, 13 K, 14 A); suits are C D H S. Two decks shuffled
together simply hold every int twice.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets

RANK_NAMES = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
              11: "J", 12: "Q", 13: "K", 14: "A"}
SUITS = "CDHS"
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}

CARD_NAMES: dict[int, str] = {
    rank * 4 + s: RANK_NAMES[rank] + SUITS[s] for rank in RANK_NAMES for s in range(4)
}
CARDS_BY_NAME: dict[str, int] = {name: card for card, name in CARD_NAMES.items()}
FULL_DECK: tuple[int, ...] = tuple(sorted(CARD_NAMES))


def rank(card: int) -> int:
    return card >> 2


def suit(card: int) -> str:
    return SUITS[card & 3]


def name(card: int) -> str:
    return CARD_NAMES[card]


def names(cards) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def parse(card_name: str) -> int:
    """The card called ``card_name`` (``"10H"``, ``"qs"``); ValueError if there is none."""
    try:
        return CARDS_BY_NAME[str(card_name).upper()]
    except KeyError:
        raise ValueError(f"not a card: {card_name!r}") from None


def deck(copies: int = 1) -> list[int]:
    """``copies`` standard 52-card decks, in a fixed order (shuffle with a seeded rng)."""
    if copies == 1:
        return list(FULL_DECK)
    return [c for c in FULL_DECK for _ in range(copies)]


def derive_seed(seed: int, *role: object) -> int:
    """A 63-bit seed derived from ``seed`` and a role, e.g. ``derive_seed(7, "bot", 1)``.

    SHA-256 over a canonical text, never Python's salted ``hash()``: the same inputs give the
    same seed on every machine and in every process.
    """
    text = "/".join([str(int(seed)), *map(str, role)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


#: The secret of a season or match played with ``--public-seed``: anyone who knows its seed
#: can compute every deal and every bot's seed (research, tests). Shown wherever it is used.
PUBLIC_SECRET = "public"


def new_secret() -> str:
    """A fresh random secret for a season or match: 256 bits, as 64 hex digits."""
    return secrets.token_hex(32)


def keyed_seed(secret: str, *role: object) -> int:
    """A 63-bit seed for ``role`` keyed by ``secret``: HMAC-SHA-256 (RFC 2104) over the same
    canonical text as :func:`derive_seed`. Without the secret, one seed - a deal's, a bot's -
    tells nothing about another, however well the role (root seed, round, seat) is known."""
    text = "/".join(map(str, role)).encode()
    return int.from_bytes(hmac.digest(secret.encode(), text, "sha256")[:8], "big") >> 1


def seeding(secret: str | None) -> str:
    """How a season's chance was drawn: ``secret`` (keyed by its own random secret),
    ``public`` (``--public-seed``) or ``legacy`` (before secrets: from the root seed alone)."""
    return "legacy" if secret is None else "public" if secret == PUBLIC_SECRET else "secret"


def shuffled(cards: list[int], seed: int) -> list[int]:
    """A shuffled copy of ``cards`` using ``random.Random(seed)`` (stable across CPythons)."""
    out = list(cards)
    random.Random(seed).shuffle(out)
    return out
