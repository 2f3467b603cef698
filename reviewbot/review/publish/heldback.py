"""The summary's account of findings held back by remembered dismissals: what, where, who, when, how to undo.
A held-back security finding is listed first, under its own heading: a dismissal never hides one silently."""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass

from reviewbot.review.findings.dismissals import Learning
from reviewbot.review.findings.schema import Finding
from reviewbot.review.publish.markdown import BADGE, Links, code_span, neutralize_inline
from reviewbot.review.publish.safemd import LinkPolicy

MAX_LISTED = 30


@dataclass(frozen=True)
class HeldBack:
    finding: Finding
    learning: Learning


def held_back_section(held: Sequence[HeldBack], *, links: Links, app: str, public: bool = False) -> list[str]:
    """Markdown lines for the review body (empty when nothing was held back). On a public repository dismissed
    security findings are counted, not described: they may lie beyond the diff, where GitHub shows writers only."""
    repo = urllib.parse.urlsplit(links.repo).path.strip("/") or "OWNER/REPO"  # https://HOST/owner/repo
    policy = links.policy
    security = [h for h in held if h.finding.cwe or h.finding.category == "security" or h.learning.security]
    others = [h for h in held if h not in security]
    lines: list[str] = []
    if public and security:
        lines += ["", "#### Dismissed security findings", "",
                  f"{len(security)} security finding(s) matched remembered dismissals and are held back; they are "
                  f"not described here because this repository is public ({code_span('reviewbot learnings list')} "
                  "shows them to its operators)."]
        security = []
    for title, group in (("Dismissed security findings", security), ("Held back by remembered dismissals", others)):
        if group:
            lines += ["", f"#### {title}", ""]
            lines += [_line(h, repo, app, policy) for h in group[:MAX_LISTED]]
            if len(group) > MAX_LISTED:
                lines.append(f"- …and {len(group) - MAX_LISTED} more (`reviewbot learnings list` shows them all)")
    return lines


def _line(held: HeldBack, repo: str, app: str, policy: LinkPolicy | None) -> str:
    f, learning = held.finding, held.learning
    tag = f" ({f.cwe})" if f.cwe else ""
    what = f"- {BADGE[f.severity]} {code_span(f.path)} line {f.line}: **{neutralize_inline(f.title, policy)}**{tag}"
    reason = neutralize_inline(learning.reason, policy) or "no reason given"
    if learning.source == "config":
        return (f"{what}: matches the rule {code_span(learning.rule)} in `.github/reviewbot.yml` ({reason}); "
                "remove it from `learnings:` to undo.")
    when = time.strftime("%Y-%m-%d", time.gmtime(learning.at)) if learning.at else "an earlier review"
    if learning.source == "code-scanning":
        return (f"{what}: code-scanning alert {learning.alert} was dismissed as {code_span(reason)} by "
                f"{code_span(learning.by or 'someone')} on {when}. Undo: reopen the alert, or "
                f"{code_span(f'reviewbot learnings forget {repo} {learning.store_key}')}.")
    where = "on this pull request" if not learning.repository else \
        f"in pull request {learning.pr}" if learning.pr else "in an earlier pull request"
    scope = "" if learning.repository else " (this pull request only)"
    return (f"{what}: dismissed by {code_span(learning.by or 'someone')} {where} on {when}{scope}: {reason}. "
            f"Undo: {code_span(f'@{app} forget')} in that thread, or "
            f"{code_span(f'reviewbot learnings forget {repo} {learning.store_key}')}.")
