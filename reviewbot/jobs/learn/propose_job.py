"""propose_rule: one pattern as a pull request that changes `.github/reviewbot.yml` on the default branch, made
once per repository and pattern: before anything is written, Redis and then GitHub (a pull request from the
pattern's branch, in any state) are asked whether it was proposed already; a closed proposal is never made again."""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING, Any

from reviewbot.errors import GitHubError
from reviewbot.jobs.learn.detect import pattern_from
from reviewbot.jobs.pr_review.gates import load_config
from reviewbot.learn.proposal import Proposal, propose
from reviewbot.review.config import CONFIG_PATH
from reviewbot.state import keys

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
NOT_GRANTED = (403, 404)  # without `contents: write` or `pull_requests: write` GitHub answers 403 (or 404)
ALREADY_EXISTS = 422  # the branch (a try that stopped before the pull request) or an open pull request


async def propose_rule(ctx: dict[str, Any], installation_id: int, repo: str, pattern: dict[str, Any]) -> dict[str, Any]:
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    found = pattern_from(pattern)
    key = keys.proposal_key(repo, found.hash)
    fields = {"repo": repo, "pattern": found.hash, "kind": found.kind}
    if await redis.exists(key):
        return {"outcome": "already proposed"}
    port = deps.installation_port(installation_id)
    try:
        info = await port.repository(repo)
        loaded = await load_config(port, repo, info.default_branch, visibility=info.visibility)
        if loaded.config.learn != "propose":
            return {"outcome": "off", "reason": "learn: propose is not set in " + CONFIG_PATH}
        text = await port.get_file(repo, CONFIG_PATH, info.default_branch) or ""
        proposal = propose(found, text, public=info.visibility not in ("private", "internal"))
        if proposal is None:
            log.info("nothing to propose: the file says it already, or cannot be edited safely", extra=fields)
            return {"outcome": "nothing to change"}
        earlier = await port.pulls_from(repo, proposal.branch)
        if earlier:  # Redis forgot (or never knew); GitHub remembers
            await _remember(redis, key, earlier[0].number, "merged" if earlier[0].merged else earlier[0].state)
            return {"outcome": "already proposed", "pr": earlier[0].number}
        number = await _open(port, repo, info.default_branch, proposal)
    except GitHubError as exc:
        if exc.status not in NOT_GRANTED:
            raise
        log.warning("a rule proposal needs contents: write and pull_requests: write", extra=fields)
        return {"outcome": "declined", "reason": f"GitHub answered {exc.status}"}
    finally:
        port.close()
    await _remember(redis, key, number, "open")
    log.info("rule proposed", extra={**fields, "pr": number})
    return {"outcome": "proposed", "pr": number}


async def _open(port: GitHubPort, repo: str, base: str, proposal: Proposal) -> int:
    """One commit on the default branch's head, the pattern's branch at it, the pull request into that branch."""
    head = await port.branch_head(repo, base)
    message = f"{proposal.title}\n\nProposed by reviewbot from what people did with its findings."
    sha = await port.make_commit(repo, head, {proposal.path: proposal.text}, message)
    try:
        await port.create_branch(repo, proposal.branch, sha)
    except GitHubError as exc:
        if exc.status != ALREADY_EXISTS:
            raise
        # Left by a try that stopped before opening the pull request: point it at this commit.
        await port.commit_files(repo, proposal.branch, await port.branch_head(repo, proposal.branch),
                                {proposal.path: proposal.text}, message)
    pull = await port.create_pull(repo, head=proposal.branch, base=base, title=proposal.title, body=proposal.body)
    return pull.number


async def _remember(redis: Any, key: str, number: int, state: str) -> None:
    await redis.set(key, json.dumps({"pr": number, "state": state, "at": time.time()}), ex=keys.PROPOSAL_TTL)
