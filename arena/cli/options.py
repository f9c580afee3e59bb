"""Options shared by several ``arena`` commands."""

from __future__ import annotations

import click

from ..errors import ArenaError


def secret_of(secret_from: str | None, public_seed: bool) -> str:
    """The secret of a new match or season: from a file, public, or fresh and random."""
    from ..cards import PUBLIC_SECRET, new_secret

    if secret_from and public_seed:
        raise ArenaError("--secret-from and --public-seed exclude each other")
    if secret_from:
        from ..views.exports import read_secret

        return read_secret(secret_from)
    return PUBLIC_SECRET if public_seed else new_secret()


def secret_options(f):
    """``--secret-from FILE`` and ``--public-seed``, for the commands that make matches."""
    f = click.option("--public-seed", is_flag=True,
                     help="No secret: anyone who knows the seed can compute every deal "
                     "(research, tests); marked wherever the result is shown.")(f)
    return click.option("--secret-from", metavar="FILE",
                        help="Key the deals by the secret in FILE (a play --json record, a "
                        "season export, or the secret alone) instead of a fresh random one."
                        )(f)
