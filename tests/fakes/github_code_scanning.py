"""Code scanning as GitHub runs it for SARIF uploads: the body checked (base64 of gzip, 10 MB compressed, the
SARIF 2.1.0 schema, a category per run, partialFingerprints, the per-run limits), 202 with an id, a processing
status that is pending for a while, and alerts per repository, tool, category and ref that open, stay and close,
listed as GitHub lists them; a person dismisses (the alert stays dismissed in later analyses) or reopens one, and
the `code_scanning_alert` webhook that GitHub would deliver is built from the documented shape."""

from __future__ import annotations

import base64
import binascii
import functools
import gzip
import json
import uuid
import zlib
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from tests.fakes.github_core import WEB_URL, ApiError, Call, Reply, now_iso, paginate
from tests.fakes.github_state import GitHubState

SARIF_SCHEMA = Path(__file__).resolve().parents[2] / "specs" / "sarif" / "sarif-2.1.0.json"
MAX_GZIPPED = 10 * 1024 * 1024
MAX_RAW = 200 * 1024 * 1024  # what the fake agrees to decompress (a gzip bomb is a 400)
NO_CODE_SCANNING = ("GitHub Code Security or GitHub Advanced Security must be enabled for this repository to use "
                    "code scanning.")
LIMITS = {"runs": 20, "results": 25_000, "rules": 25_000, "locations": 1_000, "thread_flow_locations": 10_000,
          "tags": 20}


@functools.cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(SARIF_SCHEMA.read_text()))


def upload(state: GitHubState, call: Call) -> Reply:
    repo = call.repo
    installation = state.installations.get(call.identity.installation_id or -1)
    if installation is not None and installation.permissions.get("security_events") != "write":
        raise ApiError(403, "Resource not accessible by integration")
    if repo in state.code_scanning_off:
        raise ApiError(403, NO_CODE_SCANNING)
    body = call.json_object()
    document, size = _decode(body.get("sarif"))
    sarif_id = str(uuid.uuid4())
    errors = _problems(document)
    state.sarif_uploads[sarif_id] = {"repo": repo, "ref": body.get("ref"), "commit_sha": body.get("commit_sha"),
                                     "tool_name": body.get("tool_name") or "API", "errors": errors,
                                     "polls_left": state.sarif_pending_polls, "gzipped_bytes": size,
                                     "document": document}
    if not errors:
        for run in document["runs"]:
            analyse(state, repo, str(body.get("ref")), run, str(body.get("commit_sha")))
    return Reply(202, {"id": sarif_id, "url": state.api(f"/repos/{repo}/code-scanning/sarifs/{sarif_id}")})


def status(state: GitHubState, call: Call) -> Reply:
    found = state.sarif_uploads.get(call.params["sarif_id"])
    if found is None or found["repo"] != call.repo:
        raise ApiError(404, "Not Found")
    if found["polls_left"] > 0:
        found["polls_left"] -= 1
        return Reply(json={"processing_status": "pending", "analyses_url": None, "errors": None})
    if found["errors"]:
        return Reply(json={"processing_status": "failed", "analyses_url": None, "errors": found["errors"]})
    analyses = state.api(f"/repos/{call.repo}/code-scanning/analyses?sarif_id={call.params['sarif_id']}")
    return Reply(json={"processing_status": "complete", "analyses_url": analyses, "errors": []})


def _decode(value: Any) -> tuple[dict[str, Any], int]:
    if not isinstance(value, str):
        raise ApiError(400, "Invalid request.\n\n\"sarif\" wasn't supplied.")
    try:
        packed = base64.b64decode(value, validate=True)
    except binascii.Error:
        raise ApiError(400, "The sarif field is not valid base64.") from None
    if len(packed) > MAX_GZIPPED:
        raise ApiError(413, "Payload Too Large: the SARIF file is over 10 MB once compressed")
    try:
        raw = zlib.decompressobj(wbits=31).decompress(packed, MAX_RAW)
        document = json.loads(raw)
    except (zlib.error, gzip.BadGzipFile, ValueError):
        raise ApiError(400, "The sarif field is not gzip-compressed JSON.") from None
    if not isinstance(document, dict):
        raise ApiError(400, "The sarif field is not a SARIF log.")
    return document, len(packed)


def _problems(document: dict[str, Any]) -> list[str]:
    """What GitHub's processing reports as errors (status `failed`)."""
    problems = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:200]}"
                for e in sorted(_validator().iter_errors(document), key=lambda e: list(e.absolute_path))[:10]]
    if problems:
        return problems
    runs = document["runs"]
    if len(runs) > LIMITS["runs"]:
        problems.append(f"{len(runs)} runs: over the limit of {LIMITS['runs']}")
    categories = [(r["tool"]["driver"]["name"], (r.get("automationDetails") or {}).get("id")) for r in runs]
    if any(c is None for _, c in categories):
        problems.append("a run has no automationDetails.id (category)")
    if len(set(categories)) < len(categories):
        problems.append("two runs share a tool and category")
    for i, run in enumerate(runs):
        problems += _run_problems(i, run)
    return problems


def _run_problems(i: int, run: dict[str, Any]) -> list[str]:
    results, rules = run.get("results") or [], run["tool"]["driver"].get("rules") or []
    problems = []
    if len(results) > LIMITS["results"]:
        problems.append(f"runs[{i}]: {len(results)} results over the limit")
    if len(rules) > LIMITS["rules"]:
        problems.append(f"runs[{i}]: {len(rules)} rules over the limit")
    problems += [f"runs[{i}].rules {r['id']}: more than {LIMITS['tags']} tags" for r in rules
                 if len((r.get("properties") or {}).get("tags") or []) > LIMITS["tags"]]
    known = {r["id"] for r in rules}
    for j, result in enumerate(results):
        where = f"runs[{i}].results[{j}]"
        if not result.get("partialFingerprints"):
            problems.append(f"{where}: no partialFingerprints (alerts could not be matched across analyses)")
        if result.get("ruleId") not in known:
            problems.append(f"{where}: ruleId {result.get('ruleId')!r} is not a rule of the run")
        if len(result.get("locations") or []) + len(result.get("relatedLocations") or []) > LIMITS["locations"]:
            problems.append(f"{where}: more than {LIMITS['locations']} locations")
        flows = sum(len(t.get("locations") or []) for f in result.get("codeFlows") or [] for t in f["threadFlows"])
        if flows > LIMITS["thread_flow_locations"]:
            problems.append(f"{where}: more than {LIMITS['thread_flow_locations']} thread flow locations")
        if not result.get("locations"):
            problems.append(f"{where}: no location")
    return problems


def analyse(state: GitHubState, repo: str, ref: str, run: dict[str, Any], commit_sha: str = "0" * 40) -> None:
    """One analysis (tool + category + ref): matching alerts stay open, new ones open, missing ones are fixed."""
    tool, category = run["tool"]["driver"]["name"], run["automationDetails"]["id"]
    alerts = state.code_scanning_alerts[repo]
    seen = set()
    for result in run.get("results") or []:
        where = result["locations"][0]["physicalLocation"]
        identity = (result["ruleId"], where["artifactLocation"]["uri"],
                    json.dumps(result["partialFingerprints"], sort_keys=True))
        seen.add(identity)
        found = next((a for a in alerts if (a["tool"], a["category"], a["ref"]) == (tool, category, ref)
                      and a["identity"] == identity), None)
        if found is None:
            found = {"number": len(alerts) + 1, "tool": tool, "category": category, "ref": ref,
                     "identity": identity, "rule_id": result["ruleId"], "created_at": now_iso(), "state": "open",
                     "dismissed_reason": None, "dismissed_by": None, "dismissed_at": None}
            alerts.append(found)
        if found["state"] != "dismissed":  # a person's dismissal holds across analyses
            found.update(state="open", fixed_at=None)
        found.update(path=where["artifactLocation"]["uri"], commit_sha=commit_sha,
                     start_line=where["region"]["startLine"],
                     end_line=where["region"].get("endLine", where["region"]["startLine"]),
                     message=result["message"]["text"],
                     level=result.get("level", "warning"), related=len(result.get("relatedLocations") or []),
                     flows=len(result.get("codeFlows") or []))
    for alert in alerts:
        if (alert["tool"], alert["category"], alert["ref"]) == (tool, category, ref) and \
                alert["state"] == "open" and alert["identity"] not in seen:
            alert.update(state="fixed", fixed_at=now_iso())


def list_alerts(state: GitHubState, call: Call) -> Reply:
    """`GET …/code-scanning/alerts`: the repository's alerts on `ref` (the default branch's without it), of
    `tool_name` and in `state` when given, newest first; 403 where code scanning is off or not permitted."""
    installation = state.installations.get(call.identity.installation_id or -1)
    if installation is not None and installation.permissions.get("security_events") not in ("read", "write"):
        raise ApiError(403, "Resource not accessible by integration")
    if call.repo in state.code_scanning_off:
        raise ApiError(403, NO_CODE_SCANNING)
    ref = call.query.get("ref") or "refs/heads/main"
    ref = ref if ref.startswith("refs/") else f"refs/heads/{ref}"
    tool, wanted = call.query.get("tool_name"), call.query.get("state")
    found = [render(state, call.repo, a) for a in reversed(state.code_scanning_alerts[call.repo])
             if a["ref"] == ref and tool in (None, a["tool"]) and wanted in (None, a["state"])]
    page, headers = paginate(call, found)
    return Reply(json=page, headers=headers)


def render(state: GitHubState, repo: str, alert: dict[str, Any]) -> dict[str, Any]:
    """An alert as the REST API and the webhook show it (`code-scanning-alert-items`)."""
    number = alert["number"]
    where = {"path": alert["path"], "start_line": alert["start_line"], "end_line": alert["end_line"],
             "start_column": 1, "end_column": 1}
    instance = {"ref": alert["ref"], "analysis_key": "reviewbot", "environment": "{}", "category": alert["category"],
                "state": alert["state"], "commit_sha": alert.get("commit_sha") or "0" * 40,
                "message": {"text": alert["message"]}, "location": where, "classifications": []}
    html = f"{WEB_URL}/{repo}/security/code-scanning/{number}"
    return {"number": number, "created_at": alert["created_at"], "updated_at": alert["created_at"],
            "url": state.api(f"/repos/{repo}/code-scanning/alerts/{number}"), "html_url": html,
            "instances_url": state.api(f"/repos/{repo}/code-scanning/alerts/{number}/instances"),
            "state": alert["state"], "fixed_at": alert.get("fixed_at"),
            "dismissed_by": state.user(alert["dismissed_by"]) if alert["dismissed_by"] else None,
            "dismissed_at": alert["dismissed_at"], "dismissed_reason": alert["dismissed_reason"],
            "dismissed_comment": None,
            "rule": {"id": alert["rule_id"], "severity": "error", "description": alert["rule_id"], "name": "",
                     "tags": ["security"]},
            "tool": {"name": alert["tool"], "guid": None, "version": None},
            "most_recent_instance": instance}


def decide(state: GitHubState, repo: str, number: int, *, by: str, reason: str | None,
           installation_id: int) -> dict[str, Any]:
    """A person dismisses (`reason`: false positive, won't fix, used in tests) or reopens (None) alert `number`
    in GitHub's interface; returns the `code_scanning_alert` delivery GitHub sends the App."""
    alert = next(a for a in state.code_scanning_alerts[repo] if a["number"] == number)
    if reason is None:
        alert.update(state="open", dismissed_reason=None, dismissed_by=None, dismissed_at=None)
    else:
        alert.update(state="dismissed", dismissed_reason=reason, dismissed_by=by, dismissed_at=now_iso())
    return {"action": "reopened_by_user" if reason is None else "closed_by_user",
            "alert": render(state, repo, alert), "ref": "", "commit_oid": "",
            "repository": {"id": 1, "name": repo.split("/")[1], "full_name": repo,
                           "private": state.visibility.get(repo, "private") != "public",
                           "owner": state.user(repo.split("/")[0])},
            "sender": state.user(by), "installation": {"id": installation_id}}


def get_alert(state: GitHubState, call: Call) -> Reply:
    """`GET …/code-scanning/alerts/{alert_number}`: one alert, as the list renders it."""
    number = call.int_param("alert_number")
    alert = next((a for a in state.code_scanning_alerts[call.repo] if a["number"] == number), None)
    if alert is None:
        raise ApiError(404, "No alert found for alert number")
    return Reply(json=render(state, call.repo, alert))
