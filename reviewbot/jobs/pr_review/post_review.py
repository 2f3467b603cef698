"""Publishing a review: once per run, no repeats, incremental, one request with a 422 fallback, fixed threads
resolved, and the check run completed with annotations."""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.audit.disclosure import is_public
from reviewbot.audit.publish import branch_ref
from reviewbot.errors import GitHubError
from reviewbot.jobs.pr_review.checkrun import CheckRun
from reviewbot.outcomes.classify import sealed_fixes
from reviewbot.review.config import RepoConfig
from reviewbot.review.diff.parse import ParsedDiff, parse_diff
from reviewbot.review.findings.alerts import TOOL_NAME, Alert
from reviewbot.review.findings.anchoring import Anchored
from reviewbot.review.findings.dismissals import Learning
from reviewbot.review.findings.fingerprints import read_marker, read_review_marker
from reviewbot.review.publish.markdown import UNVERIFIED, Links, ReviewReport
from reviewbot.review.publish.posting import Existing, Publication, plan, without_inline

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Posted:
    """What publishing did: the review's id, its inline comments, findings held back as dismissed, threads
    resolved as fixed, and whether only the lines pushed since the last review were commented on; for the
    outcome records, the findings posted as line comments and the fingerprints whose threads were resolved."""

    review_id: int
    comments: int
    dismissed: int
    resolved: int
    incremental: bool
    findings: tuple[tuple[str, Anchored], ...] = ()
    fixed: tuple[str, ...] = ()


def review_markers(reviews: list[dict[str, Any]], key: bytes) -> list[dict[str, Any]]:
    """reviewbot's own earlier reviews on this PR, oldest first, as {sha, run, fps}: only authenticated markers
    on the body's last line count, so a look-alike in the model's text (or anyone's) is ignored."""
    found = []
    for review in reviews:
        if is_bot(review.get("user")) and (data := read_review_marker(str(review.get("body") or ""), key)):
            found.append(data)
    return found


async def already_posted(port: GitHubPort, repo: str, number: int, head_sha: str, run_id: str, key: bytes) -> bool:
    """True when an earlier run of this very request (same SHA, same run id) already posted its review."""
    return any(m.get("sha") == head_sha and m.get("run") == run_id
               for m in review_markers(await port.list_reviews(repo, number), key))


async def publish(port: GitHubPort, check: CheckRun, *, pull: PullInfo, head_sha: str, report: ReviewReport,
                  diff: ParsedDiff, config: RepoConfig, run_id: str, full: bool, key: bytes,
                  config_errors: tuple[str, ...] = (), unseen: tuple[str, ...] = (),
                  learnings: tuple[Learning, ...] = (), app: str = "reviewbot") -> Posted:
    repo, number = check.repo, pull.number
    # On a public repository security findings beyond the diff are counted, not described (review/publish).
    report = dataclasses.replace(report, public=is_public(pull.visibility))
    earlier = review_markers(await port.list_reviews(repo, number), key)
    threads = await port.review_threads(repo, number)
    existing = _open_findings(threads, full, key)
    last = next((m.get("sha") for m in reversed(earlier) if m.get("sha") != head_sha), None)
    changed = None
    if config.incremental and not full and last:
        changed = await _changed_lines(port, repo, str(last), head_sha)
    head_files = await _head_files(port, repo, head_sha, report, learnings)
    alerts = await _alerts(port, repo, pull.base_ref, diff)
    html = pull.html_url.rsplit("/pull/", 1)[0]
    links = Links(head=f"{html}/blob/{head_sha}", base=f"{html}/blob/{pull.base_sha}", repo=html) if html else Links()
    publication = plan(report, diff, head_sha=head_sha, config=config, key=key, run_id=run_id, existing=existing,
                       changed_lines=changed, head_files=head_files, links=links, config_errors=config_errors,
                       unseen=unseen, learnings=learnings, number=number, app=app, alerts=alerts)
    await check.remember(publication.conclusion, publication.title, publication.summary)
    review_id, inline = await _post(port, repo, number, publication)
    fixed = await _resolve_fixed(port, repo, number, threads, publication, head_sha, key)
    resolved = len(fixed)
    summary = publication.summary + (f"\n\n{resolved} earlier finding(s) are fixed; their threads were resolved."
                                     if resolved else "")
    # Fixable: a verified finding posted now, or an earlier one still open (the fix job reads which).
    fixable = any(f" · {UNVERIFIED} · " not in str(c.get("body") or "").split("\n", 1)[0]
                  for c in publication.payload["comments"]) or len(existing.fingerprints) > resolved
    await check.complete(publication.conclusion, publication.title, summary, annotations=publication.annotations,
                         fixable=fixable)
    return Posted(review_id, len(publication.payload["comments"]), publication.dismissed, resolved,
                  changed is not None, findings=publication.posted if inline else (), fixed=tuple(fixed))


def _open_findings(threads: list[Any], full: bool, key: bytes) -> Existing:
    """Fingerprints of reviewbot's unresolved threads, from authenticated markers only (a planted one could hide
    a future finding as "already open"); a full review ignores earlier findings."""
    if full:
        return Existing()
    fps, cks = set(), set()
    for thread in threads:
        keys = read_marker(thread["comments"][0]["body"], key) if thread["comments"] else None
        if keys and not thread["is_resolved"]:
            fps.add(keys[0])
            cks.add(keys[1])
    return Existing(frozenset(fps), frozenset(cks))


async def _changed_lines(port: GitHubPort, repo: str, last: str, head_sha: str) -> dict[str, set[int]] | None:
    """New-file lines the push since the last review added; None (review everything) if GitHub can't say."""
    try:
        since = parse_diff(await port.compare_diff(repo, last, head_sha))
    except (GitHubError, ValueError) as exc:  # a force-push can make the old head unreachable
        log.info("incremental diff unavailable; commenting on the whole PR", extra={"error": str(exc)})
        return None
    return {f.path: {ln.new for h in f.hunks for ln in h.lines if ln.kind == "+" and ln.new is not None}
            for f in since.files}


async def _head_files(port: GitHubPort, repo: str, head_sha: str, report: ReviewReport,
                      learnings: tuple[Learning, ...]) -> dict[str, list[str]]:
    """Head versions of files that carry suggestions, to check a suggestion applies before offering it, and of
    files where a remembered dismissal may match by title, to see whether the code it names is still there."""
    paths = sorted({a.finding.path for a in report.placement.inline
                    if a.finding.suggestion is not None and a.finding.side == "RIGHT"})[:20]
    remembered = {learning.path for learning in learnings if learning.source in ("thread", "code-scanning")}
    found = [a.finding for a in report.placement.inline] + list(report.placement.outside)
    paths += sorted({f.path for f in found if f.path in remembered} - set(paths))[:20]
    files: dict[str, list[str]] = {}
    for path in paths:
        text = await port.get_file(repo, path, head_sha)
        if text is not None:
            files[path] = text.split("\n")
    return files


async def _alerts(port: GitHubPort, repo: str, base_ref: str, diff: ParsedDiff) -> tuple[Alert, ...]:
    """reviewbot's open code-scanning alerts on the base branch (what audits of it uploaded), in the changed files."""
    changed = {f.path for f in diff.files} | {f.old_path for f in diff.files if f.old_path}
    if not changed:
        return ()
    alerts = await port.open_alerts(repo, branch_ref(base_ref), tool_name=TOOL_NAME)
    return tuple(a for a in alerts if a.path in changed)


async def _post(port: GitHubPort, repo: str, number: int, publication: Publication) -> tuple[int, bool]:
    """One review request; on a 422 the inline comments move into the body and it is sent once more. Returns
    the review's id and whether its comments stand as line comments (threads whose outcome can be followed)."""
    try:
        return await port.create_review(repo, number, publication.payload), True
    except GitHubError as exc:
        if exc.status != 422 or not publication.payload["comments"]:
            raise
        log.warning("GitHub refused an inline comment (422); posting them in the body", extra={"error": str(exc)})
        payload = without_inline(publication.payload, "GitHub answered 422")
        return await port.create_review(repo, number, payload), False


async def _resolve_fixed(port: GitHubPort, repo: str, number: int, threads: list[Any], publication: Publication,
                         head_sha: str, key: bytes) -> list[str]:
    """Resolve reviewbot's threads whose finding is gone because the code changed; humans' threads stay, unless
    the finding's fix is a commit of the pull request (its `Reviewbot-Fix:` trailer names it): then the person's
    reply was the `fix` that asked for it. Returns the fingerprints of the findings resolved as fixed."""
    resolved: list[str] = []
    fixes: frozenset[str] | None = None
    for thread in threads:
        comments = thread["comments"]
        keys = read_marker(comments[0]["body"], key) if comments else None
        if keys is None or thread["is_resolved"] or not thread["is_outdated"]:
            continue
        if set(keys) & publication.current_keys:
            continue  # still reported (the code moved but the problem is there)
        if any(not c["author"].endswith("[bot]") for c in comments[1:]):
            if fixes is None:  # read once, only when a thread needs it
                fixes = frozenset(sealed_fixes(await port.pull_commit_messages(repo, number), repo, key))
            if keys[0] not in fixes:
                continue  # a person replied: the conversation is theirs to close
        await port.reply_to_review_comment(repo, number, comments[0]["database_id"],
                                           f"This looks fixed in {head_sha[:7]}; resolving.")
        if await port.resolve_thread(thread["id"]):
            resolved.append(keys[0])
    return resolved


def is_bot(user: Any) -> bool:
    return isinstance(user, dict) and (user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]"))
