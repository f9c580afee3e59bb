"""The reference bots, installed as the ``arena_bots`` package and loaded through the
``arena.bots`` entry points in arena's own pyproject.toml, exactly like a third-party plugin."""
