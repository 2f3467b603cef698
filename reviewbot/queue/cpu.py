"""How much CPU-bound work one worker process takes on at once: a Python process runs one core's worth."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from reviewbot.errors import CpuBusy

HANDOFF_S = 1.0  # how soon a handed-back job is offered again (to any worker, this one included)


class CpuSlots:
    """Slots for the CPU-heavy steps of jobs (planning an audit: parsing a tree, its call graph). A step that finds
    them taken raises CpuBusy and its job goes back to the queue, where a worker with an idle core takes it; waiting
    here instead, behind the GIL, leaves that core idle while this process runs everything (measured: one worker ran
    all 16 plans of a batch while the other waited). The event loop is single-threaded: no lock is needed."""

    # Two: one plan's download and GitHub calls overlap the other's parsing (measured: with one, a lone worker's
    # core idled during each plan's downloads, 46.7 s for 16 audits against 41.7 s; with no limit, one worker took
    # every plan of a batch).
    def __init__(self, slots: int = 2) -> None:
        self.slots = slots
        self.taken = 0

    @contextlib.contextmanager
    def slot(self, handoff_s: float = HANDOFF_S) -> Iterator[None]:
        if self.taken >= self.slots:
            raise CpuBusy("this worker's CPU-bound work is at its limit; another worker may take it",
                          retry_after=handoff_s)
        self.taken += 1
        try:
            yield
        finally:
            self.taken -= 1
