"""GitHub code scanning for the port: upload an audit's SARIF, read its processing status, and wait for it by
deferring the job rather than sleeping."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from reviewbot.app.port.base import PortBase, _q, _q1
from reviewbot.errors import CodeScanningUnavailable, GitHubError, SarifRejected, Waiting
from reviewbot.review.findings.alerts import Alert

log = logging.getLogger(__name__)

# What GitHub says when a repository cannot use code scanning; any other 403 that is not a rate limit (those are
# retried before this point) is the installation lacking `security_events` or an archived repository.
NO_ADVANCED_SECURITY = "must be enabled for this repository to use code scanning"
MAX_ALERTS = 1000  # a review reads at most this many of its tool's open alerts (ten pages)
# The waits between looks, in multiples of the first (REVIEWBOT_SARIF_POLL, 5 s by default: 5, 10, 20, 30, 60 s);
# GitHub usually processes an upload within a minute.
POLL_STEPS = (1, 2, 4, 6, 12)
MAX_POLLS = 40  # about half an hour of pending (at the default) before the upload is reported as stuck


@dataclass(frozen=True)
class SarifStatus:
    """`GET …/code-scanning/sarifs/{id}`: pending, complete or failed, and the errors GitHub reported."""

    processing_status: str
    errors: tuple[str, ...] = ()
    analyses_url: str | None = None

    @property
    def done(self) -> bool:
        return self.processing_status in ("complete", "failed")


@dataclass(frozen=True)
class AlertPlace:
    """Where a code-scanning alert points (its most recent instance), and by which tool."""

    number: int
    tool: str
    path: str
    start_line: int
    state: str


class CodeScanning(PortBase):
    """The code-scanning operations of GitHubPort (a mixin over PortBase)."""

    async def upload_sarif(self, repo: str, commit_sha: str, ref: str, sarif_gz_b64: str, *,
                           tool_name: str = "reviewbot") -> str:
        """`POST /repos/{owner}/{repo}/code-scanning/sarifs` (202): the upload's id. CodeScanningUnavailable when
        the repository or installation cannot use code scanning (fall back); SarifRejected on 400 or 413."""
        body = {"commit_sha": commit_sha, "ref": ref, "sarif": sarif_gz_b64, "tool_name": tool_name}
        try:
            # Uploading the same analysis twice is harmless (the second replaces the first): safe to retry.
            _, data = await self._http.request("POST", f"/repos/{_q(repo)}/code-scanning/sarifs",
                                               what=f"POST SARIF {repo}@{commit_sha[:12]}", body=body,
                                               idempotent=True)
        except GitHubError as exc:
            if exc.status == 403:
                why = "GitHub Code Security or Advanced Security is not enabled for this repository" \
                    if NO_ADVANCED_SECURITY in str(exc) else \
                    "the App's installation has no `security_events: write` permission here (or it is archived)"
                raise CodeScanningUnavailable(f"code scanning is not available: {why} ({exc})", status=403) from exc
            if exc.status in (400, 413):
                reason = "too large" if exc.status == 413 else "invalid"
                raise SarifRejected(f"GitHub refused the SARIF upload as {reason}: {exc}", status=exc.status) from exc
            raise
        return str(data["id"])

    async def alert_place(self, repo: str, number: int) -> AlertPlace | None:
        """`@app fix #12`: where alert 12 points. None when there is no such alert (404) or it points nowhere."""
        try:
            data = await self._get(f"GET alert {number}", f"/repos/{_q(repo)}/code-scanning/alerts/{int(number)}")
        except GitHubError as exc:
            if exc.status in (403, 404):
                return None
            raise
        location = ((data.get("most_recent_instance") or {}).get("location") or {}) if isinstance(data, dict) else {}
        path, line = location.get("path"), location.get("start_line")
        if not isinstance(path, str) or not isinstance(line, int):
            return None
        return AlertPlace(int(number), str((data.get("tool") or {}).get("name") or ""), path, line,
                          str(data.get("state") or ""))

    async def sarif_status(self, repo: str, sarif_id: str) -> SarifStatus:
        """The upload's processing status; a 404 right after the upload means GitHub has not registered it yet."""
        url = f"/repos/{_q(repo)}/code-scanning/sarifs/{_q1(sarif_id)}"
        try:
            _, data = await self._http.request("GET", url, what=f"GET SARIF status {sarif_id[:12]}")
        except GitHubError as exc:
            if exc.status == 404:
                return SarifStatus("pending")
            if exc.status == 403:
                raise CodeScanningUnavailable(f"code scanning is not available: {exc}", status=403) from exc
            raise
        return SarifStatus(str(data.get("processing_status") or "pending"),
                           tuple(str(e) for e in data.get("errors") or ()), data.get("analyses_url"))

    async def open_alerts(self, repo: str, ref: str, *, tool_name: str = "reviewbot") -> tuple[Alert, ...]:
        """`GET …/code-scanning/alerts?tool_name=…&ref=…&state=open`, every page up to MAX_ALERTS. A 403 or 404
        (code scanning off, no `security_events` permission, no analysis yet) means no alerts: logged, said nowhere
        else."""
        url = f"/repos/{_q(repo)}/code-scanning/alerts"
        found: list[Alert] = []
        try:
            async for page in self._http.pages(url, what=f"GET code-scanning alerts {repo}",
                                               params={"tool_name": tool_name, "ref": ref, "state": "open"}):
                found += [a for item in page if (a := _alert(item)) is not None]
                if len(found) >= MAX_ALERTS:
                    break
        except GitHubError as exc:
            if exc.status not in (403, 404):
                raise
            log.info("code-scanning alerts not readable", extra={"repo": repo, "status": exc.status})
            return ()
        return tuple(found[:MAX_ALERTS])


def _alert(item: Any) -> Alert | None:
    """An alert of the list, from its most recent instance's location; one without a usable location is skipped."""
    if not isinstance(item, dict):
        return None
    where = ((item.get("most_recent_instance") or {}).get("location")) or {}
    rule, number = (item.get("rule") or {}).get("id"), item.get("number")
    start, end, path = where.get("start_line"), where.get("end_line"), where.get("path")
    if not (isinstance(number, int) and isinstance(rule, str) and isinstance(path, str) and isinstance(start, int)):
        return None
    return Alert(number=number, rule_id=rule, path=path, start_line=start,
                 end_line=end if isinstance(end, int) and end >= start else start,
                 html_url=str(item.get("html_url") or ""))


async def check_processed(port: CodeScanning, repo: str, sarif_id: str, attempt: int, *,
                          first_s: float) -> SarifStatus:
    """One look at an upload, for a job that polls by deferring itself: the status once complete; SarifRejected
    with GitHub's errors once failed; `Waiting` (retry_after grows from `first_s` with `attempt`) while pending,
    so the job frees its worker slot; a permanent error after MAX_POLLS looks."""
    status = await port.sarif_status(repo, sarif_id)
    if status.processing_status == "failed":
        raise SarifRejected(f"GitHub could not process the SARIF upload {sarif_id}: " +
                            ("; ".join(status.errors) or "no reason given"), errors=status.errors)
    if status.processing_status == "complete":
        return status
    if attempt >= MAX_POLLS:
        raise SarifRejected(f"the SARIF upload {sarif_id} was still {status.processing_status} after "
                            f"{attempt} checks")
    raise Waiting(f"the SARIF upload {sarif_id} is {status.processing_status}",
                  retry_after=first_s * POLL_STEPS[min(attempt, len(POLL_STEPS) - 1)])


