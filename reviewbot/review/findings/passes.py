"""Multi-pass review, pure: each extra pass appends its own instructions to the shared prefix; results merge by
fingerprint."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reviewbot.review.diff.parse import ParsedDiff
from reviewbot.review.findings.fingerprints import anchored_code, code_key, fingerprint
from reviewbot.review.findings.schema import SEVERITY_RANK, Finding

MAX_PASSES = 5
ROUND_HEADING = "## Review pass "
# Pass 1 is the plain review. The others look from different angles and read the diff in a different order,
# so their mistakes are less correlated; only the last message differs, so the prefix stays cached.
PASS_INSTRUCTIONS: tuple[str, ...] = (
    "",
    "Review this pull request again, independently of any earlier answer. Read the changed files from the last "
    "to the first, and concentrate on the changed logic itself: conditions, boundaries, off-by-one errors, "
    "null or empty values, error paths and return values.",
    "Review this pull request again, independently of any earlier answer. Concentrate on how the change "
    "interacts with code outside the diff: callers of changed functions, changed signatures and contracts, "
    "assumptions the new code makes about helpers it calls, and data flowing in from untrusted sources.",
    "Review this pull request again, independently of any earlier answer. Start with the smallest changed file "
    "and concentrate on state: concurrency, shared mutable data, resource lifetimes (files, connections, "
    "locks), caching and ordering of side effects.",
    "Review this pull request again, independently of any earlier answer. Concentrate on what a test would "
    "catch: walk through one realistic input per changed function, including an empty and a very large one, "
    "and report only behaviour that is wrong.",
)


def pass_messages(messages: list[dict[str, str]], index: int) -> list[dict[str, str]]:
    """The messages of pass `index` (0-based): the shared ones, plus that pass's instructions after pass 1."""
    if index == 0:
        return messages
    text = PASS_INSTRUCTIONS[index % MAX_PASSES] + " Answer with the same JSON object as before."
    return [*messages, {"role": "user", "content": f"{ROUND_HEADING}{index + 1}\n\n{text}"}]


def pass_number(messages: Sequence[dict[str, Any]]) -> int:
    """Which pass (1-based) a conversation belongs to: its first message after the shared two says so."""
    content = messages[2].get("content") if len(messages) > 2 else None
    if isinstance(content, str) and content.startswith(ROUND_HEADING):
        number = content[len(ROUND_HEADING):].split("\n", 1)[0]
        return int(number) if number.isdigit() else 1
    return 1


def _keys(finding: Finding, diff: ParsedDiff) -> tuple[str, ...]:
    """Its fingerprint and code key; a finding on lines the diff does not show is identified by its place."""
    code = anchored_code(diff.file(finding.path), finding.side, finding.start_line or finding.line, finding.line)
    fp = fingerprint(finding.path, finding.category, code, finding.title)
    if not any(line.strip() for line in code):
        return (fp, f"at:{finding.path}:{finding.side}:{finding.line}:{finding.category}")
    return (fp, code_key(finding.path, finding.category, code))


def merge_passes(passes: Sequence[Sequence[Finding]], diff: ParsedDiff) -> tuple[list[Finding], int]:
    """One finding per fingerprint (or code key) over all passes: the most severe, then the most confident
    copy wins. Returns the merged findings, in first-seen order, and how many duplicates were folded."""
    groups: list[list[Finding]] = []
    owner: dict[str, int] = {}
    total = 0
    for findings in passes:
        for finding in findings:
            total += 1
            keys = _keys(finding, diff)
            index = next((owner[k] for k in keys if k in owner), None)
            if index is None:
                index = len(groups)
                groups.append([])
            groups[index].append(finding)
            for key in keys:
                owner.setdefault(key, index)
    merged = [min(group, key=lambda f: (SEVERITY_RANK[f.severity], -f.confidence)) for group in groups]
    return merged, total - len(merged)
