"""learn_from_alert: a person dismissed reviewbot's code-scanning alert in GitHub's interface (a learning, where
they may decide for the whole repository) or reopened it (the learning forgotten). No model request, no reply:
GitHub's interface already shows the decision."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from reviewbot.audit.findings import audit_fingerprint
from reviewbot.queue import retries
from reviewbot.queue.request import AlertChange
from reviewbot.review.findings.alerts import RULE_PREFIX, UNCLASSIFIED
from reviewbot.review.findings.dismissals import Learning, code_lines
from reviewbot.review.findings.scope import dismissal_scope
from reviewbot.state import keys
from reviewbot.state.learnings_store import Learnings

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
WRITERS = frozenset({"admin", "maintain", "write"})


def alert_cwe(rule_id: str) -> str | None:
    """The CWE an alert's rule names (`reviewbot/cwe-89` → `CWE-89`); None for the unclassified rule."""
    if rule_id == UNCLASSIFIED or not rule_id.startswith(RULE_PREFIX):
        return None
    return rule_id.removeprefix(RULE_PREFIX).upper()


async def learn_from_alert(ctx: dict[str, Any], installation_id: int, repo: str,
                           change: dict[str, Any]) -> dict[str, Any]:
    """`change` is the webhook's AlertChange (its fields); `installation_id` and `repo` name the job in logs."""
    deps: Deps = ctx["deps"]
    alert = AlertChange(**{**change, "installation_id": installation_id, "repo": repo})
    job_id = str(ctx.get("job_id") or keys.alert_job_id(alert.repo, alert.number, ""))
    store = Learnings(ctx["redis"], deps.settings.learning_ttl_days)
    fields = {"repo": alert.repo, "alert": alert.number, "change": alert.change}
    if alert.change == "reopened":
        gone = await store.forget(alert.repo, f"alert:{alert.number}")
        log.info("code-scanning alert reopened", extra={**fields, "forgotten": gone})
        return {"outcome": "forgotten" if gone else "nothing remembered"}
    port = deps.installation_port(alert.installation_id)
    try:
        return await retries.settled(ctx["redis"], job_id, "alert dismissal", fields,
                                     _dismissed(port, store, alert), first_s=deps.settings.retry_delay)
    finally:
        port.close()


async def _dismissed(port: GitHubPort, store: Learnings, alert: AlertChange) -> dict[str, Any]:
    """Remembered for the whole repository when the person may decide that for a security finding (maintain or
    admin, as for a thread dismissal); a writer's dismissal stays GitHub's alone: there is no pull request to
    narrow it to. The payload's sender is asked about, not trusted."""
    role = await port.permission(alert.repo, alert.sender)
    if role not in WRITERS:
        log.warning("alert dismissal by someone without write access ignored", extra={"repo": alert.repo})
        return {"outcome": "ignored", "reason": "the sender cannot write to the repository"}
    cwe = alert_cwe(alert.rule_id)
    scope = dismissal_scope(role=role, by_author=False, severity="", security=True)
    if not scope.repository:
        log.info("alert dismissal not remembered", extra={"repo": alert.repo, "alert": alert.number, "role": role})
        return {"outcome": "not remembered", "reason": scope.why}
    text = await port.get_file(alert.repo, alert.path, alert.commit_sha)
    code = text.split("\n")[alert.start_line - 1:alert.end_line] if text is not None else []
    # The audit's code key of those lines: an audit's finding on them carries it as its fingerprint, and a review
    # finds the code again in the file by it, wherever it moved.
    key = audit_fingerprint(alert.path, cwe, code) if any(line.strip() for line in code) else ""
    reason = alert.reason + (f": {alert.comment}" if alert.comment else "")
    learning = Learning(rule=alert.rule_id, code_key=key, path=alert.path, reason=reason, by=alert.sender,
                        source="code-scanning", title=f"code-scanning alert #{alert.number}",
                        category=cwe or "security", lines=code_lines(code) if key else 0, cwe=cwe or "",
                        repository=True, alert=alert.number)
    stored = await store.remember(alert.repo, learning)
    log.info("code-scanning alert dismissal remembered", extra={"repo": alert.repo, "alert": alert.number})
    return {"outcome": "dismissed", "key": stored}
