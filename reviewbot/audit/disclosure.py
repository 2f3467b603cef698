"""Where security findings may be described, pure: on a public repository only where GitHub itself would show them."""

from __future__ import annotations

import urllib.parse
from collections import Counter
from collections.abc import Iterable, Mapping

from reviewbot.review.findings.alerts import TOOL_NAME
from reviewbot.review.findings.schema import SEVERITY_RANK
from reviewbot.review.publish.markdown import BADGE

# GitHub lists code-scanning alerts on the Security tab to people with write access only, while everyone who can
# read a public repository reads its issues, comments and check runs: there, findings are counted, never described.
PRIVATE_VISIBILITIES = ("private", "internal")


def is_public(visibility: str) -> bool:
    """Anything not known to be private or internal is public (an older record without a visibility included)."""
    return visibility not in PRIVATE_VISIBILITIES


def security_tab_url(repo_url: str, number: int | None = None) -> str:
    """The Security tab's code-scanning list filtered to reviewbot's open alerts (and a pull request's, with
    `number`): the SARIF's `tool.driver.name` is what GitHub calls the tool."""
    query = f"is:open tool:{TOOL_NAME}" + (f" pr:{int(number)}" if number else "")
    return f"{repo_url.rstrip('/')}/security/code-scanning?query={urllib.parse.quote_plus(query)}"


def severity_counts(severities: Iterable[str]) -> str:
    """`🔴 **Critical** 1 · 🟠 **Major** 2`: counts only, most severe first; empty without findings."""
    counts = Counter(severities)
    return " · ".join(f"{BADGE[s]} {n}" for s, n in sorted(counts.items(), key=lambda kv: SEVERITY_RANK[kv[0]]))


def finding_key(path: str, line: int) -> str:
    """A finding's place as the record keeps the ones a pull request's audit may describe (`AuditRecord.in_diff`)."""
    return f"{path}:{int(line)}"


def in_changed_lines(path: str, start: int, end: int, changed: Mapping[str, frozenset[int]]) -> bool:
    """Whether a finding touches a line the pull request adds or changes (its new side): readers see those lines
    in the pull request anyway, and GitHub annotates them there."""
    lines = changed.get(path, frozenset())
    return any(n in lines for n in range(start, end + 1))


# What the answer says to enable when a public repository's upload is refused (GitHub's refusal is in the log).
ENABLE_CODE_SCANNING = ("accept the App's `security_events: write` permission in the installation's settings (and "
                        "leave code scanning allowed in the repository's security settings), so that findings go to "
                        "code scanning, where only people with write access see them")
ENABLE_ADVISORY = ("meanwhile, with `repository_advisories: write` granted too, they are kept in one private draft "
                   "security advisory, which only the repository's admins see")
