"""The trust line: everything between the runner and a bot's code.

Bot code never runs in the runner's process. Each bot seat is a worker process started with
the interpreter itself; on one side of the line is the runner, on the other the bot.

Runner side:

* ``process``: worker processes, their limits (``Limits``) and faults, and the bot seat
  the referee talks to (``SandboxBot``).
* ``bot``: the ``Bot`` interface and its two adapters, ``make_bot`` (sandboxed) and
  ``PythonBot`` (trusted code in the runner's process: tests, benchmarks).
* ``inflight``: many matches in flight in one worker (``act_batch``).
* ``files``: copying submitted files without following links, within limits, and hashing them.

Bot side:

* ``worker``: ``python -I -m arena.sandbox.worker CONFIG``, the loop that speaks the
  protocol (docs/protocol.md).
* ``jail``: the namespaces, root, private /tmp and unprivileged user a worker moves into.
* ``confine``: rlimits, capabilities and the seccomp filter, set before the bot is imported.

Layers call downward only: this package uses ``arena.cards``, ``arena.errors``,
``arena.games``, ``arena.hookspecs`` and ``arena.referee``, and nothing above them (not
the registry, the database or the leagues). The names below are re-exported, lazily, so
that the worker (which imports ``jail`` and ``confine``) does not load the runner's side.
"""

#: the collector's first threshold (Python's default: 700) while a runner plays matches side
#: by side and while a worker serves its bot: a move's observations and answers are mostly
#: gone before the collector runs, so it walks few of them (measured: a few microseconds of
#: CPU a move less in Tractor, runner and bot together)
GC_THRESHOLD = 5000

_EXPORTS = {
    "Limits": "process", "Worker": "process", "SandboxBot": "process",
    "exec_spec": "process", "list_sources": "process", "probe": "process",
    "layer_checks": "process", "Bot": "bot", "PythonBot": "bot", "make_bot": "bot",
}


def __getattr__(name):
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(name)


__all__ = sorted(_EXPORTS)
