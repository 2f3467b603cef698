"""What gets posted: dedup against open threads, incremental and severity filters, the cap, annotations."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reviewbot.review.config import RepoConfig
from reviewbot.review.diff.parse import ParsedDiff
from reviewbot.review.findings.alerts import Alert, fixed_alerts, known_alert
from reviewbot.review.findings.anchoring import Anchored, Placement
from reviewbot.review.findings.dismissals import Learning, held_back
from reviewbot.review.findings.fingerprints import anchored_code, code_key, fingerprint, marker, review_marker
from reviewbot.review.findings.schema import SEVERITY_RANK, Finding
from reviewbot.review.publish.alert_lines import Known, alert_section
from reviewbot.review.publish.cutting import bounded
from reviewbot.review.publish.heldback import HeldBack, held_back_section
from reviewbot.review.publish.markdown import (
    BodyNotes,
    Links,
    ReviewReport,
    check_title,
    code_span,
    comment_body,
    plain,
    posted_findings,
    review_body,
)
from reviewbot.review.publish.suggestions import applies

ANNOTATION_LEVEL = {"critical": "failure", "major": "warning", "minor": "notice", "nit": "notice"}
MAX_ANNOTATION_BYTES = 64_000  # GitHub: "The maximum size is 64 KB", in bytes; under either reading of KB


@dataclass(frozen=True)
class Existing:
    """What reviewbot already said on this PR: open findings' fingerprints and code keys."""

    fingerprints: frozenset[str] = frozenset()
    code_keys: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Publication:
    payload: dict[str, Any]
    conclusion: str
    title: str
    summary: str
    annotations: list[dict[str, Any]]
    current_keys: frozenset[str] = field(default_factory=frozenset)  # fingerprints and code keys found now
    dismissed: int = 0  # findings held back by remembered dismissals
    held: tuple[HeldBack, ...] = ()  # which, and by which learning
    posted: tuple[tuple[str, Anchored], ...] = ()  # the line comments posted now, with their fingerprints
    known: tuple[Known, ...] = ()  # findings already open as code-scanning alerts, not posted again


def plan(report: ReviewReport, diff: ParsedDiff, *, head_sha: str, config: RepoConfig, key: bytes, run_id: str = "",
         existing: Existing | None = None, changed_lines: Mapping[str, set[int]] | None = None,
         head_files: Mapping[str, list[str]] | None = None, links: Links | None = None,
         config_errors: tuple[str, ...] = (), unseen: tuple[str, ...] = (),
         learnings: tuple[Learning, ...] = (), number: int = 0, app: str = "reviewbot",
         alerts: tuple[Alert, ...] = ()) -> Publication:
    """Decide every comment, the body, the annotations and the conclusion; one review request results. `key`
    authenticates the hidden markers (fingerprints, the review's SHA) that later reviews read back; `learnings`
    are the repository's remembered dismissals: matching findings on pull request `number` are held back and
    listed with who dismissed them and how to undo it (`@app forget`); `head_files` lets a learning see whether
    the code it names is still there. `alerts`: reviewbot's open code-scanning alerts on the base branch; a
    finding that is one is not posted again, and alerts whose code this changes are said to be (maybe) fixed."""
    existing = existing or Existing()
    links = links or Links()
    threshold = SEVERITY_RANK[config.severity_threshold]
    kept = [a for a in report.placement.inline if SEVERITY_RANK[a.finding.severity] <= threshold]
    outside = [f for f in report.placement.outside if SEVERITY_RANK[f.severity] <= threshold]
    below = len(report.placement.inline) + len(report.placement.outside) - len(kept) - len(outside)
    keys = {id(a): _keys(a, diff) for a in kept}
    held: list[HeldBack] = []

    known: list[Known] = []

    def holds(finding: Finding, code: str) -> bool:
        start = finding.start_line or finding.line
        learning = held_back(code, finding.path, finding.title, learnings, number=number, head_files=head_files,
                             cwe=finding.cwe, lines=(start, finding.line))
        if learning is not None:
            held.append(HeldBack(finding, learning))
            return True
        security = finding.side == "RIGHT" and (finding.cwe is not None or finding.category == "security")
        alert = known_alert(finding.path, finding.cwe, start, finding.line, alerts, diff) if security else None
        if alert is not None:
            known.append(Known(finding, alert))
        return alert is not None

    kept = [a for a in kept if not holds(a.finding, keys[id(a)][1])]
    outside = [f for f in outside if not holds(f, "")]
    dismissed = len(held)
    reviewed = report.coverage.reviewed if report.coverage is not None else ()
    fixed = fixed_alerts(alerts, diff, (k.alert.number for k in known), reviewed=reviewed, security=report.security)
    fresh = [a for a in kept if not (set(keys[id(a)]) & (existing.fingerprints | existing.code_keys))]
    repeated = len(kept) - len(fresh)
    if changed_lines is not None:  # incremental: only lines this push changed
        now = [a for a in fresh if a.finding.side == "RIGHT" and a.line in changed_lines.get(a.finding.path, set())]
        earlier = len(fresh) - len(now)
        fresh = now
    else:
        earlier = 0
    posted, overflow = fresh[:config.max_comments], [a.finding for a in fresh[config.max_comments:]]
    comments = [_comment(a, keys[id(a)], head_files or {}, key, links) for a in posted]
    shown = dataclasses.replace(report, placement=Placement(inline=tuple(posted), outside=tuple(outside)))
    fps = sorted(keys[id(a)][0] for a in posted)
    notes = BodyNotes(overflow=tuple(overflow), repeated=repeated, earlier_code=earlier, below_threshold=below,
                      config_errors=config_errors, unseen=unseen, links=links,
                      marker=review_marker({"sha": head_sha, "run": run_id, "fps": fps}, key), dismissed=dismissed,
                      held_back=tuple(held_back_section(held, links=links, app=app,
                                                                  public=report.public)),
                      alerts=tuple(alert_section(known, fixed, links=links, public=report.public)))
    body = review_body(shown, notes)
    # Open findings (posted now, or repeated from an earlier review) decide the conclusion; an unverified one
    # counts like any other, so a failed check can never turn into a silent success.
    current = [a.finding for a in kept] + outside
    conclusion = _conclusion(current, config)
    summary = review_body(shown, dataclasses.replace(notes, marker=""))
    return Publication(
        payload={"commit_id": head_sha, "event": "COMMENT", "body": body, "comments": comments},
        conclusion=conclusion, title=check_title(posted_findings(shown, overflow)), summary=summary,
        annotations=[_annotation(a) for a in kept if a.finding.side == "RIGHT"],
        current_keys=frozenset(k for a in kept for k in keys[id(a)]), dismissed=dismissed, held=tuple(held),
        posted=tuple((keys[id(a)][0], a) for a in posted),
        known=tuple(known))


def _keys(anchored: Anchored, diff: ParsedDiff) -> tuple[str, str]:
    f = anchored.finding
    code = anchored_code(diff.file(f.path), f.side, anchored.start_line or anchored.line, anchored.line)
    return fingerprint(f.path, f.category, code, f.title), code_key(f.path, f.category, code)


def _comment(anchored: Anchored, keys: tuple[str, str], head_files: Mapping[str, list[str]], key: bytes,
             links: Links) -> dict[str, Any]:
    f = anchored.finding
    start = anchored.start_line or anchored.line
    ok = f.side == "RIGHT" and applies(f.suggestion, head_files.get(f.path), start, anchored.line)
    body = comment_body(anchored, suggestion_ok=ok, marker=marker(*keys, key), policy=links.policy)
    comment: dict[str, Any] = {"path": f.path, "line": anchored.line, "side": f.side, "body": body}
    if anchored.start_line is not None:
        comment |= {"start_line": anchored.start_line, "start_side": f.side}
    return comment


def _conclusion(findings: list[Finding], config: RepoConfig) -> str:
    """success without blocking findings; failure only when the repository opted in; neutral otherwise."""
    blocking = SEVERITY_RANK[config.blocking_severity or "major"]
    if not any(SEVERITY_RANK[f.severity] <= blocking for f in findings):
        return "success"
    return "failure" if config.blocking_severity is not None else "neutral"


def _annotation(anchored: Anchored) -> dict[str, Any]:
    f = anchored.finding
    return {"path": f.path, "start_line": anchored.start_line or anchored.line, "end_line": anchored.line,
            "annotation_level": ANNOTATION_LEVEL[f.severity],
            "title": (("[unverified] " if f.unverified else "") + " ".join(plain(f.title).split()))[:255],
            "message": clip_utf8(plain(f.body), MAX_ANNOTATION_BYTES) or plain(f.title)}


def clip_utf8(text: str, max_bytes: int) -> str:
    """At most `max_bytes` of UTF-8, cut on a character boundary (GitHub counts an annotation in bytes)."""
    data = text.encode()
    return text if len(data) <= max_bytes else data[:max_bytes].decode(errors="ignore")


def without_inline(payload: dict[str, Any], reason: str) -> dict[str, Any]:
    """The 422 fallback: the same review with every inline comment moved into the body."""
    moved = "\n".join(f"- {code_span(c['path'])} line {c['line']}: {c['body'].splitlines()[0]}"
                      for c in payload["comments"])
    text, _, trailer = payload["body"].rpartition("\n")  # the marker stays the last line
    body = bounded(text, 60_000) + f"\n\n#### Comments GitHub would not place inline ({reason})\n\n{moved}"
    return {**payload, "body": bounded(body, 64_000) + "\n" + trailer, "comments": []}
