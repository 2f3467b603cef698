"""What the audit's CPU savings must not change: a block renders to the same bytes from the text as from its lines,
and the garbage collector's thresholds are what they were once planning ends."""

from __future__ import annotations

import gc
import threading

import pytest

from reviewbot.audit.contextblock import Block, render_block, render_text
from reviewbot.audit.gcpause import fewer_collections

TEXT = "import os\n\n\ndef run(cmd):\n    '''Run it.'''\n    \t\n    return os.system(cmd)  # ```\n\nx = 1"
RANGES = [None, (), ((1, 1),), ((2, 4),), ((4, 7),), ((1, 100),), ((8, 9),), ((9, 9),), ((12, 14),),
          ((1, 2), (5, 9)), ((0, 3),)]


@pytest.mark.parametrize("ranges", RANGES)
@pytest.mark.parametrize("text", [TEXT, TEXT + "\n", "", "\n\n", "one line"])
def test_a_block_renders_the_same_from_the_text_as_from_its_lines(
        ranges: tuple[tuple[int, int], ...] | None, text: str) -> None:
    block = Block("app/run.py", ranges, "calls `run`")
    assert render_text(block, text) == render_block(block, text.split("\n"))


def test_the_thresholds_come_back_after_nested_concurrent_and_failed_plans() -> None:
    before = gc.get_threshold()
    inside, leave = threading.Event(), threading.Event()

    def other_plan() -> None:
        with fewer_collections():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=other_plan)
    thread.start()
    inside.wait(10)
    with pytest.raises(ValueError), fewer_collections():
        with fewer_collections():
            assert gc.get_threshold()[0] > before[0]
        raise ValueError("a plan that fails")
    assert gc.get_threshold()[0] > before[0]  # the other plan still runs
    leave.set()
    thread.join(10)
    assert gc.get_threshold() == before
