"""Thread commands: `@app dismiss | won't fix | false positive [reason]` remembered where the person may decide,
`@app forget` undoing it; no model request. A thread whose marker cannot be verified gets a reply, not silence."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from reviewbot.commands.decisions import REASONS
from reviewbot.jobs.outcomes.recording import record_dismissal, record_forgotten
from reviewbot.review.findings.dismissals import Learning, code_lines, normalise_rule
from reviewbot.review.findings.fingerprints import code_key, read_marker
from reviewbot.review.findings.scope import dismissal_scope
from reviewbot.review.publish import dismissal_replies as say
from reviewbot.review.publish.header import PostedFinding, read_header
from reviewbot.state.learnings_store import Learnings

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)


async def thread_command(deps: Deps, port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int,
                         root: dict[str, Any], *, ours: bool, author: str, role: str, verb: str, reason: str,
                         app: str) -> dict[str, Any]:
    """`root` is the thread's first comment; `ours` whether reviewbot wrote it; `role` the author's permission."""
    root_id, fields = int(root["id"]), {"repo": repo, "pr": number, "command": verb}
    if not ours:
        await port.reply_to_review_comment(repo, number, root_id, say.not_ours(app))
        return {"outcome": "ignored", "reason": "a thread command outside reviewbot's threads"}
    keys = read_marker(str(root.get("body") or ""), deps.settings.marker_key())
    if keys is None:  # an older review, signed with another marker secret: say so rather than stay silent
        await port.reply_to_review_comment(repo, number, root_id, say.unmatched(app))
        log.info("thread command on an unverifiable marker", extra=fields)
        return {"outcome": "unmatched"}
    store = Learnings(redis, deps.settings.learning_ttl_days)
    if verb == "forget":
        gone = await store.forget_code(repo, keys[1], number)
        await record_forgotten(redis, installation_id, repo, number, keys[0])
        await port.reply_to_review_comment(repo, number, root_id, say.forgotten(len(gone), app))
        log.info("learning forgotten", extra={**fields, "removed": len(gone)})
        return {"outcome": "forgotten", "keys": gone}
    posted = read_header(str(root.get("body") or "")) or PostedFinding("critical", "", "")  # unknown: narrowest
    pull = await port.get_pull(repo, number)
    scope = dismissal_scope(role=role, by_author=author.lower() == pull.author.lower(), severity=posted.severity,
                            security=bool(posted.cwe) or posted.category == "security")
    path = str(root.get("path") or "")
    learning = Learning(
        rule=normalise_rule(posted.title), code_key=keys[1], path=path, reason=reason or REASONS.get(verb, verb),
        by=author, title=posted.title, category=posted.category, severity=posted.severity, cwe=posted.cwe,
        lines=await _extent(port, repo, root, posted.category, keys[1]), pr=number, repository=scope.repository)
    key = await store.remember(repo, learning)
    await record_dismissal(redis, installation_id, repo, number, keys[0], by=author, repository=scope.repository)
    await port.reply_to_review_comment(repo, number, root_id, say.acknowledged(
        learning, scope, app=app, repo=repo, expires=time.time() + store.ttl))
    threads = await port.review_threads(repo, number)
    node = next((t for t in threads if t["comments"] and t["comments"][0]["database_id"] == root_id), None)
    resolved = bool(node and not node["is_resolved"] and await port.resolve_thread(node["id"]))
    log.info("finding dismissed", extra={**fields, "repository": scope.repository, "role": role})
    return {"outcome": "dismissed", "key": key, "repository": scope.repository, "resolved": resolved}


async def _extent(port: GitHubPort, repo: str, root: dict[str, Any], category: str, ck: str) -> int:
    """How many lines the finding's code spans, read from the commit it was posted on and checked against its
    code key; 0 (the learning then matches that exact code only) when it cannot be confirmed."""
    end, sha = root.get("original_line"), str(root.get("original_commit_id") or "")
    start = root.get("original_start_line") or end
    if root.get("side", "RIGHT") != "RIGHT" or not isinstance(end, int) or not isinstance(start, int) or not sha:
        return 0
    text = await port.get_file(repo, str(root.get("path") or ""), sha)
    if text is None:
        return 0
    code = text.split("\n")[start - 1:end]
    return code_lines(code) if code_key(str(root.get("path") or ""), category, code) == ck else 0
