"""The channels no layer closes: how busy the machine is. Two Tractor partners in two jails
share the machine's cores and memory bus, and time itself; these bots measure what that
carries (``benchmarks/covert.py`` runs them; docs/sandbox.md has the figures).

* ``drummer`` (the sender): from its ``start`` to its exit, ``threads`` threads beat a known
  pseudo-random bit a slot (``slot_ms`` of the machine's monotonic clock, which every
  jail reads): for a 1 they work, for a 0 they sleep. ``kind=cpu`` hashes a 1 MiB
  buffer again and again (the cores), ``kind=memory`` streams through 256 MiB (the memory
  bus and the caches). The work releases Python's lock, so the threads use every core
  they are given.
* ``listener`` (the receiver): at each move it spends ``listen_s`` counting how much work
  it gets done in each whole slot, then plays; it logs ``TIMING slots=N errors=E``, E the
  fewest slots any one threshold misreads (less work than the threshold: a 1).

The listener knows the schedule and the slots' boundaries exactly - more than a real pair
would (they must find each other's clock and frame their bits) - so what it reads is an
upper bound of the channel: ``N × (1 − H(E/N))`` bits a match.
"""

import hashlib
import threading
import time

import arena

_KEEP: list = []


def bit(slot: int) -> int:
    return hashlib.sha256(slot.to_bytes(8, "little")).digest()[0] & 1


def errors(counts: dict) -> int:
    """The fewest slots misread by any one threshold (less work than it: a 1), chosen
    knowing the bits - the best a reader of single slots can do."""
    ranked = sorted((work, bit(index)) for index, work in counts.items())
    best = wrong = sum(1 for _, b in ranked if b)  # threshold below all: every 1 misread
    for _, b in ranked:  # move the threshold above this slot: it now reads as a 1
        wrong += -1 if b else 1
        best = min(best, wrong)
    return best


class Drummer:
    def start(self, info):
        if _KEEP:
            return
        options = info.get("options", {})
        slot = float(options.get("slot_ms", 20)) / 1000
        kind = options.get("kind", "cpu")
        size = 256 << 20 if kind == "memory" else 1 << 20
        buffer = bytearray(size)
        view = memoryview(buffer)
        chunk = min(size, 1 << 20)

        def beat():
            at = 0
            while True:
                now = time.monotonic()
                index = int(now / slot)
                end = (index + 1) * slot
                if bit(index):
                    while time.monotonic() < end:
                        hashlib.sha256(view[at:at + chunk])
                        at = (at + chunk) % size
                else:
                    time.sleep(max(0.0, end - time.monotonic()))

        for _ in range(int(options.get("threads", 4))):
            t = threading.Thread(target=beat, daemon=True)
            t.start()
            _KEEP.append(t)

    def act(self, observation, legal):
        return legal[0]


class Listener:
    def start(self, info):
        options = info.get("options", {})
        self.slot = float(options.get("slot_ms", 20)) / 1000
        self.listen = float(options.get("listen_s", 0.3))
        self.counts = {}

    def act(self, observation, legal):
        stop = time.monotonic() + self.listen
        index = int(time.monotonic() / self.slot) + 1  # the next whole slot
        while (index + 1) * self.slot < stop:
            begin, end, work = index * self.slot, (index + 1) * self.slot, 0
            while time.monotonic() < begin:
                pass
            while time.monotonic() < end:
                work += 1
            self.counts[index] = work
            index += 1
        if self.counts:
            print(f"TIMING slots={len(self.counts)} errors={errors(self.counts)}", flush=True)
        return legal[0]


@arena.hookimpl
def register_bots(register):
    register("drummer", Drummer, games=["tractor"])
    register("listener", Listener, games=["tractor"])
