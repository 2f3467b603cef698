"""The audit schedules of an installation's repositories, read again only after a push: each one is remembered in
Redis (shared by the workers) with the `pushed_at` it was read at, the repository's and the organisation's
`.github` defaults', so an idle installation costs its repository list per scan, not two file reads a repository;
the defaults are read at most once per owner and scan."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reviewbot.errors import GitHubError, RetryableError
from reviewbot.jobs.pr_review.gates import OrgDefaults, load_config, org_defaults
from reviewbot.state.audit_keys import schedule_config_key

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.app.port.audits import InstalledRepo

log = logging.getLogger(__name__)
# Read again at least this often: a push GitHub stamps in the same second as the one read, or defaults in a
# `.github` repository the installation does not list (its `pushed_at` is not seen), are noticed within a day.
REFRESH_S = 86_400


@dataclass(frozen=True)
class Scheduled:
    """A repository whose configuration was read (now or after its last push) and its audit schedule, if any."""

    repo: str
    branch: str
    schedule: str | None


async def read_schedules(redis: Any, port: GitHubPort, repos: Sequence[InstalledRepo]) -> list[Scheduled]:
    """Each readable repository's schedule; one that cannot be read now is left to the next scan (said in the log)."""
    pushed = {r.full_name.lower(): r.pushed_at for r in repos}
    remembered = await redis.mget([schedule_config_key(r.full_name) for r in repos]) if repos else []
    org: dict[str, OrgDefaults] = {}
    found: list[Scheduled] = []
    for repo, raw in zip(repos, remembered, strict=True):
        owner = repo.full_name.split("/", 1)[0]
        version = "\n".join([repo.pushed_at, repo.default_branch, pushed.get(f"{owner}/.github".lower(), "")])
        seen = json.loads(raw) if raw else {}
        if seen.get("version") == version:
            found.append(Scheduled(repo.full_name, repo.default_branch, seen.get("schedule")))
            continue
        try:
            if owner not in org:
                org[owner] = await org_defaults(port, owner)
            config = (await load_config(port, repo.full_name, repo.default_branch, visibility=None,
                                        org=org[owner])).config
        except (GitHubError, RetryableError) as exc:
            log.warning("audit schedule not read", extra={"repo": repo.full_name, "error": str(exc)})
            continue
        await redis.set(schedule_config_key(repo.full_name),
                        json.dumps({"version": version, "schedule": config.audit.schedule}), ex=REFRESH_S)
        found.append(Scheduled(repo.full_name, repo.default_branch, config.audit.schedule))
    return found
