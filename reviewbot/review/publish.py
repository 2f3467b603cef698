"""What gets posted: the review request body and the check run's conclusion and output."""

from __future__ import annotations

from typing import Any

from reviewbot.review.findings import SEVERITY_RANK
from reviewbot.review.render import ReviewReport, check_title, comment_body, review_body

BLOCKING = "major"  # findings at or above this severity make the check neutral instead of success


def review_payload(report: ReviewReport, head_sha: str) -> dict[str, Any]:
    """One `POST /pulls/{n}/reviews` body with every inline comment (one request, never one per comment)."""
    comments: list[dict[str, Any]] = []
    for anchored in report.placement.inline:
        f = anchored.finding
        comment: dict[str, Any] = {"path": f.path, "line": anchored.line, "side": f.side,
                                   "body": comment_body(anchored)}
        if anchored.start_line is not None:
            comment |= {"start_line": anchored.start_line, "start_side": f.side}
        comments.append(comment)
    return {"commit_id": head_sha, "event": "COMMENT", "body": review_body(report), "comments": comments}


def check_conclusion(report: ReviewReport) -> str:
    findings = [a.finding for a in report.placement.inline] + list(report.placement.outside)
    blocking = any(SEVERITY_RANK[f.severity] <= SEVERITY_RANK[BLOCKING] for f in findings)
    return "neutral" if blocking else "success"


def check_output(report: ReviewReport) -> tuple[str, str]:
    """(title, summary markdown) for the completed check run."""
    return check_title(report), review_body(report)
