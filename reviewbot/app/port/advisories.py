"""Repository security advisories for the port: the one private draft advisory an audit keeps on a public
repository whose code scanning is refused (visible to admins and the advisory's collaborators only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from reviewbot.app.port.base import PortBase, _q, _q1
from reviewbot.errors import AdvisoriesUnavailable, GitHubError

MAX_LISTED_ADVISORIES = 300  # the App keeps one; bounded so a repository with many advisories stays cheap


class AdvisoryFields(Protocol):
    """What reviewbot writes into a draft advisory (GitHub's create and update bodies share these fields); the
    audit's AdvisoryDraft (reviewbot/audit/advisory.py) is one, without this package importing the audit's."""

    @property
    def summary(self) -> str: ...  # at most 1,024 characters

    @property
    def description(self) -> str: ...  # at most 65,535 characters

    @property
    def severity(self) -> str: ...  # critical, high, medium or low

    @property
    def cwe_ids(self) -> tuple[str, ...]: ...

    @property
    def package(self) -> str: ...  # the affected "package": the repository's name, ecosystem `other`


@dataclass(frozen=True)
class Advisory:
    ghsa_id: str
    state: str
    description: str
    html_url: str = ""


class AdvisoriesAPI(PortBase):
    """The repository-advisory operations of GitHubPort (a mixin over PortBase)."""

    def _body(self, draft: AdvisoryFields) -> dict[str, object]:
        return {"summary": draft.summary, "description": draft.description, "severity": draft.severity,
                "cwe_ids": list(draft.cwe_ids),
                "vulnerabilities": [{"package": {"ecosystem": "other", "name": draft.package}}]}

    async def create_advisory(self, repo: str, draft: AdvisoryFields) -> Advisory:
        """`POST /repos/{owner}/{repo}/security-advisories` (201): a draft. Not retried after an ambiguous failure:
        the caller looks for its marker before creating another."""
        try:
            _, data = await self._http.request("POST", f"/repos/{_q(repo)}/security-advisories",
                                               what=f"POST advisory {repo}", body=self._body(draft))
        except GitHubError as exc:
            raise _unavailable(exc) from exc
        return _advisory(data)

    async def update_advisory(self, repo: str, ghsa_id: str, draft: AdvisoryFields) -> Advisory:
        """`PATCH …/security-advisories/{ghsa_id}`: the same fields; the advisory stays a draft."""
        try:
            _, data = await self._http.request("PATCH", f"/repos/{_q(repo)}/security-advisories/{_q1(ghsa_id)}",
                                               what=f"PATCH advisory {ghsa_id}", body=self._body(draft),
                                               idempotent=True)
        except GitHubError as exc:
            raise _unavailable(exc) from exc
        return _advisory(data)

    async def draft_advisories(self, repo: str) -> list[Advisory]:
        """The repository's draft advisories, newest first (GitHub lists them to admins and, for an App, with
        `repository_advisories: read`)."""
        found: list[Advisory] = []
        try:
            async for page in self._http.pages(f"/repos/{_q(repo)}/security-advisories",
                                               what=f"GET advisories {repo}", params={"state": "draft"}):
                found += [_advisory(a) for a in page if isinstance(a, dict)]
                if len(found) >= MAX_LISTED_ADVISORIES:
                    break
        except GitHubError as exc:
            raise _unavailable(exc) from exc
        return found[:MAX_LISTED_ADVISORIES]


def _advisory(data: object) -> Advisory:
    item = data if isinstance(data, dict) else {}
    return Advisory(ghsa_id=str(item.get("ghsa_id") or ""), state=str(item.get("state") or ""),
                    description=str(item.get("description") or ""), html_url=str(item.get("html_url") or ""))


def _unavailable(exc: GitHubError) -> GitHubError | AdvisoriesUnavailable:
    # 403: the permission is missing (GitHub's "Resource not accessible by integration"); 404: advisories are not
    # available to this installation here. Anything else (5xx, 422) is the caller's to handle as it is.
    if exc.status in (403, 404):
        return AdvisoriesUnavailable(f"no repository_advisories permission here ({exc})", status=exc.status)
    return exc
