"""The summary's lines about reviewbot's code-scanning alerts: findings already open as alerts (not posted again)
and alerts the pull request may fix. On a public repository an alert is named by its number only: the Security
tab that describes it is for writers, the pull request's thread for everyone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reviewbot.review.findings.alerts import Alert, Fixed
from reviewbot.review.findings.schema import Finding
from reviewbot.review.publish.markdown import BADGE, Links, code_span, neutralize_inline

MAX_LISTED = 30


@dataclass(frozen=True)
class Known:
    """A finding of this review that is already the open alert `alert`."""

    finding: Finding
    alert: Alert


def _name(alert: Alert, public: bool, repo_url: str = "") -> str:
    # The address came from GitHub's answer but is still data: linked only when it is this repository's alert page.
    page = f"{repo_url}/security/code-scanning/{alert.number}"
    # "alert 12", never "#12": GitHub would link issue 12 and mention this review in its timeline.
    if public or not repo_url or alert.html_url != page:
        return f"code-scanning alert {alert.number}"
    return f"[code-scanning alert {alert.number}]({page})"


def alert_section(known: Sequence[Known], fixed: Sequence[Fixed], *, links: Links, public: bool) -> list[str]:
    """Markdown lines for the review body; empty when no alert is concerned."""
    if not known and not fixed:
        return []
    lines = ["", "#### Code scanning", ""]
    policy, repo_url = links.policy, links.repo.rstrip("/")
    for k in known[:MAX_LISTED]:
        if public:
            lines.append(f"- A finding of this review is already open as {_name(k.alert, True)}; not posted again.")
        else:
            f = k.finding
            name = _name(k.alert, False, repo_url)
            lines.append(f"- {BADGE[f.severity]} {code_span(f.path)} line {f.line}: "
                         f"**{neutralize_inline(f.title, policy)}**: already open as {name}; not posted again.")
    for x in fixed[:MAX_LISTED]:
        name = _name(x.alert, public, repo_url)
        if x.verified:
            lines.append(f"- Fixes {name}: this pull request rewrites its code and the review, which read the file "
                         "looking for security bugs, did not find it again.")
        else:
            lines.append(f"- May fix {name}: this pull request rewrites its code; the review did not confirm it (the "
                         "next audit of the base branch closes it once it is gone).")
    more = max(0, len(known) - MAX_LISTED) + max(0, len(fixed) - MAX_LISTED)
    if more:
        lines.append(f"- …and {more} more")
    return lines
