"""Whether a review should run at all: superseded, unwanted by the base branch's config, or an "Update branch"."""

from __future__ import annotations

from typing import Any

from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.errors import PermanentError
from reviewbot.queue import keys
from reviewbot.review.config import CONFIG_PATH, LoadedConfig, parse_config, raw_mapping

AUTOMATIC = frozenset({"opened", "reopened", "synchronize", "ready_for_review"})


async def superseded(redis: Any, repo: str, number: int, head_sha: str) -> bool:
    """True when the webhook has since seen a newer head SHA for this PR, or saw it closed."""
    latest = await redis.get(keys.latest_key(repo, number))
    return latest is not None and latest.decode() != head_sha


async def automatic_skip(port: GitHubPort, repo: str, pull: PullInfo, trigger: str, draft: bool) -> str | None:
    """Why an automatic trigger should not review, per the base branch's config; None to go ahead."""
    if trigger not in AUTOMATIC:
        return None
    config = (await load_config(port, repo, pull.base_ref)).config
    if not config.enabled:
        return "reviews are disabled in " + CONFIG_PATH
    if (draft or pull.draft) and not config.auto_review.drafts:
        return "draft pull request"
    if trigger == "synchronize" and not config.auto_review.on_push:
        return "reviews on push are off in " + CONFIG_PATH
    if trigger in ("opened", "reopened", "ready_for_review") and not config.auto_review.on_open:
        return "reviews on open are off in " + CONFIG_PATH
    if pull.author.lower() in {a.lower() for a in config.authors}:
        return f"pull requests by {pull.author} are not reviewed automatically"
    if skip := sorted(set(pull.labels) & set(config.labels)):
        return f"labelled {', '.join(skip)}"
    return None


async def load_config(port: GitHubPort, repo: str, base_ref: str) -> LoadedConfig:
    """The base branch's config over the owner's org-wide defaults (the `.github` repository's file):
    a pull request can never change how it is reviewed."""
    owner = repo.split("/", 1)[0]
    try:
        org_text = await port.get_file(f"{owner}/.github", CONFIG_PATH, "")
    except PermanentError:  # not installed there, or no such repository: no org defaults
        org_text = None
    return parse_config(await port.get_file(repo, CONFIG_PATH, base_ref), defaults=raw_mapping(org_text))


async def only_merged_base(port: GitHubPort, repo: str, head_sha: str, before: str, base_sha: str) -> bool:
    """An "Update branch" push: a merge commit whose parents are the previous head and the base branch."""
    parents = await port.commit_parents(repo, head_sha)
    return len(parents) == 2 and parents[0] == before and parents[1] == base_sha


