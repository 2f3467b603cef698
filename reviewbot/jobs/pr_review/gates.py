"""Whether a review should run at all: unwanted by the base branch's config, or an "Update branch"."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.app.port.pulls import Visibility
from reviewbot.errors import PermanentError
from reviewbot.learn.proposal import BRANCH_PREFIX
from reviewbot.review.config import CONFIG_PATH, LoadedConfig, RepoConfig, parse_config, raw_mapping
from reviewbot.review.orgtext import ORG_TEXT_DROPPED, without_org_text

AUTOMATIC = frozenset({"opened", "reopened", "synchronize", "ready_for_review"})


def automatic_skip(config: RepoConfig, pull: PullInfo, trigger: str, draft: bool) -> str | None:
    """Why an automatic trigger should not review, per the base branch's config; None to go ahead."""
    if trigger not in AUTOMATIC:
        return None
    if not config.enabled:
        return "reviews are disabled in " + CONFIG_PATH
    if (draft or pull.draft) and not config.auto_review.drafts:
        return "draft pull request"
    if trigger == "synchronize" and not config.auto_review.on_push:
        return "reviews on push are off in " + CONFIG_PATH
    if trigger in ("opened", "reopened", "ready_for_review") and not config.auto_review.on_open:
        return "reviews on open are off in " + CONFIG_PATH
    if pull.head_ref.startswith(BRANCH_PREFIX) and pull.same_repository:
        return "a rule proposal of reviewbot's (it changes only " + CONFIG_PATH + ")"
    if pull.author.lower() in {a.lower() for a in config.authors}:
        return f"pull requests by {pull.author} are not reviewed automatically"
    if skip := sorted(set(pull.labels) & set(config.labels)):
        return f"labelled {', '.join(skip)}"
    return None


def config_digest(config: RepoConfig, model: str) -> str:
    """Names the effective configuration a SHA was reviewed under: another config or model reviews it again."""
    return hashlib.sha256(f"{model}\n{config.model_dump_json()}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class OrgDefaults:
    """The owner's `.github` repository's config text, read once (None: none, or not readable)."""

    text: str | None


async def org_defaults(port: GitHubPort, owner: str) -> OrgDefaults:
    try:
        return OrgDefaults(await port.get_file(f"{owner}/.github", CONFIG_PATH, ""))
    except PermanentError:  # not installed there, or no such repository: no org defaults
        return OrgDefaults(None)


async def load_config(port: GitHubPort, repo: str, base_ref: str, *, visibility: Visibility | None,
                      org: OrgDefaults | None = None) -> LoadedConfig:
    """The base branch's config over the owner's org-wide defaults (the `.github` repository's file; `org`: as
    already read by the caller, for many repositories of one owner): a pull request can never change how it is
    reviewed. `visibility` is the pull request's repository's (None: not
    for a pull request, as for audits): a public one (unknown counts as public) gets the defaults' free text only if
    the `.github` repository is public too or the organisation opted in, since a review may echo what it reads."""
    owner = repo.split("/", 1)[0]
    org_text = (org or await org_defaults(port, owner)).text
    defaults = raw_mapping(org_text)
    text = await port.get_file(repo, CONFIG_PATH, base_ref)
    loaded = parse_config(text, defaults=defaults)
    # `public_repos` comes from the defaults alone (a repository's own file may not set it).
    if visibility is None or visibility in ("private", "internal") or loaded.config.public_repos.use_org_text:
        return loaded
    kept = parse_config(text, defaults=without_org_text(defaults))
    # Asked only when the text would be used (the repository's own file may replace every bit of it).
    if kept.config == loaded.config or await port.repo_visibility(f"{owner}/.github") == "public":
        return loaded
    return LoadedConfig(kept.config, kept.errors, (*kept.notes, ORG_TEXT_DROPPED))


async def only_merged_base(port: GitHubPort, repo: str, head_sha: str, before: str, base_sha: str) -> bool:
    """An "Update branch" push: a merge commit whose parents are the previous head and the base branch."""
    parents = await port.commit_parents(repo, head_sha)
    return len(parents) == 2 and parents[0] == before and parents[1] == base_sha


