"""Context as a ceiling, not a target: a relevance score per candidate block and when to stop adding blocks.

The budget only caps the prompt; what decides is how strongly a block relates to the change. A block is sent
when its score is high enough and, unless it is a must-have, when it is small enough for that score: a strong
relation justifies a long excerpt, a moderate one only a short one. So a small change costs less than a big one.
"""

from __future__ import annotations

from reviewbot.review.context.index import is_test
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.selection import Pick

MUST_SCORE = 100.0  # callers of a changed signature, uses of a removed definition (when the name is unambiguous)
MIN_SCORE = 60.0  # below: weakly related (callers of a body change, config keys, names defined in several files)
MIN_DENSITY = 60.0  # score per 1,000 tokens a block under MUST_SCORE must reach: a 95 is worth up to 1.6k tokens
PROSE_FACTOR = 0.3  # prose or metadata (no language): a changed one's diff lines suffice, a name in it is a mention
TEST_FACTOR = 0.7  # the base version of a changed test: the diff shows the test; its old body matters less
BASE_REASON = "changed by this pull request"
CONFIG_REASON = "configuration key"
TESTS_REASON = "tests of "
TESTS_SCORE = 80.0


def score(pick: Pick, namesakes: int = 1) -> float:
    """The selection's strength (how the file relates to the change), lowered where the relation says little.

    `namesakes`: how many files were picked for the same reason; a test found by its name ranks high only when
    it is the one file so named (in a large tree, `test_log.py` may test anything called log)."""
    if language_for(pick.path) is None and not pick.reason.startswith(CONFIG_REASON):
        return pick.strength * PROSE_FACTOR
    if pick.reason.startswith(BASE_REASON) and is_test(pick.path):
        return pick.strength * TEST_FACTOR
    if pick.reason.startswith(TESTS_REASON):  # the tests of changed code rank with its callees
        tested = pick.reason.removeprefix(TESTS_REASON)
        strength = TESTS_SCORE if namesakes == 1 else pick.strength
        return max(pick.strength, strength) * (1.0 if language_for(tested) else PROSE_FACTOR)
    return pick.strength


def left_out_reason(relevance: float, tokens: int) -> str | None:
    """None when the block is worth its tokens; otherwise why it stays out."""
    if relevance >= MUST_SCORE:
        return None
    if relevance < MIN_SCORE:
        return f"weakly related (relevance {int(relevance)} < {MIN_SCORE:.0f})"
    if relevance * 1_000 / max(tokens, 1) < MIN_DENSITY:
        return f"too long for its relevance ({tokens:,} tokens at relevance {int(relevance)})"
    return None


Spans = dict[str, tuple[tuple[int, int], ...]]  # base path -> base line spans the diff shows


def shown_by_diff(pick: Pick, spans: Spans) -> bool:
    """A relation found in a file the diff shows, at places the diff shows: the block would repeat the diff."""
    shown = spans.get(pick.path)
    if not shown or not pick.ranges or pick.reason.startswith(BASE_REASON):
        return False
    return all(any(a <= end and start <= b for a, b in shown) for start, end in pick.ranges)
