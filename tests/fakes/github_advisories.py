"""Repository security advisories as GitHub serves them to an App: drafts created, listed, read and edited, with the
`repository_advisories` permission checked (403 without it) and GitHub's field rules (summary 1,024 characters,
description 65,535, severity or a CVSS vector, not both). A draft is visible to admins and its collaborators only."""

from __future__ import annotations

import hashlib
from typing import Any

from tests.fakes.github_core import WEB_URL, ApiError, Call, Reply, invalid, not_found, now_iso, paginate
from tests.fakes.github_state import GitHubState

CWE_NAME = "Improper Neutralization"  # GitHub fills in each CWE's name; the fake needs only some name


def _allowed(state: GitHubState, call: Call, write: bool) -> None:
    installation = state.installations.get(call.identity.installation_id or -1)
    granted = installation.permissions.get("repository_advisories") if installation is not None else "write"
    if granted not in (("write",) if write else ("read", "write")):
        raise ApiError(403, "Resource not accessible by integration")


def _checked(body: dict[str, Any], creating: bool) -> dict[str, Any]:
    for name, limit in (("summary", 1024), ("description", 65_535)):
        if creating and not isinstance(body.get(name), str):
            raise invalid(f'"{name}" wasn\'t supplied.')
        if name in body and len(str(body[name])) > limit:
            raise ApiError(422, "Validation Failed", errors=[{"resource": "RepositoryAdvisory", "code": "custom",
                                                              "field": name, "message": f"{name} is too long"}])
    if body.get("severity") is not None and body.get("cvss_vector_string") is not None:
        raise ApiError(422, "You must choose between setting severity or cvss_vector_string, not both.")
    if creating and not isinstance(body.get("vulnerabilities"), list):
        raise invalid('"vulnerabilities" wasn\'t supplied.')
    return body


def render(advisory: dict[str, Any]) -> dict[str, Any]:
    vulnerabilities = [{"package": {"ecosystem": v["package"]["ecosystem"], "name": v["package"].get("name")},
                        "vulnerable_version_range": None, "patched_versions": None, "vulnerable_functions": None}
                       for v in advisory["vulnerabilities"]]
    return {**{k: v for k, v in advisory.items() if k not in ("repo", "vulnerabilities")},
            "vulnerabilities": vulnerabilities,
            "cwes": [{"cwe_id": c, "name": CWE_NAME} for c in advisory["cwe_ids"] or []]}


def create(state: GitHubState, call: Call) -> Reply:
    _allowed(state, call, write=True)
    body = _checked(call.json_object(), creating=True)
    ghsa = "GHSA-" + "-".join(hashlib.sha256(f"{call.repo}{state.next_id()}".encode()).hexdigest()[i:i + 4]
                              for i in (0, 4, 8))
    now = now_iso()
    advisory = {"repo": call.repo, "ghsa_id": ghsa, "cve_id": None,
                "url": state.api(f"/repos/{call.repo}/security-advisories/{ghsa}"),
                "html_url": f"{WEB_URL}/{call.repo}/security/advisories/{ghsa}",
                "summary": body["summary"], "description": body["description"],
                "severity": body.get("severity"), "author": state.user(call.identity.login),
                "identifiers": [{"type": "GHSA", "value": ghsa}], "state": "draft", "created_at": now,
                "updated_at": now, "published_at": None, "closed_at": None, "withdrawn_at": None,
                "submission": None, "vulnerabilities": body["vulnerabilities"], "cvss": None,
                "cwe_ids": body.get("cwe_ids"), "credits": [], "collaborating_users": None,
                "collaborating_teams": None}
    # `publisher` and `private_fork` (null on a draft without a fork) are left out: GitHub describes them as a
    # nullable `allOf`, which OpenAPI 3.0 validators cannot read as nullable.
    state.advisories[call.repo].append(advisory)
    return Reply(201, render(advisory))


def _one(state: GitHubState, call: Call) -> dict[str, Any]:
    found = next((a for a in state.advisories[call.repo] if a["ghsa_id"] == call.params["ghsa_id"]), None)
    if found is None:
        raise not_found()
    return found


def get(state: GitHubState, call: Call) -> Reply:
    _allowed(state, call, write=False)
    return Reply(json=render(_one(state, call)))


def update(state: GitHubState, call: Call) -> Reply:
    _allowed(state, call, write=True)
    advisory, body = _one(state, call), _checked(call.json_object(), creating=False)
    if advisory["state"] == "published" and "state" in body and body["state"] != "published":
        raise ApiError(422, "A published advisory cannot be moved back to draft.")
    for name in ("summary", "description", "severity", "vulnerabilities", "cwe_ids", "state"):
        if name in body:
            advisory[name] = body[name]
    advisory["updated_at"] = now_iso()
    return Reply(json=render(advisory))


def list_advisories(state: GitHubState, call: Call) -> Reply:
    _allowed(state, call, write=False)
    wanted = call.query.get("state")
    found = [a for a in state.advisories[call.repo] if wanted is None or a["state"] == wanted]
    found.sort(key=lambda a: (a["created_at"], a["ghsa_id"]), reverse=call.query.get("direction", "desc") == "desc")
    page, headers = paginate(call, [render(a) for a in found])
    return Reply(json=page, headers=headers)
