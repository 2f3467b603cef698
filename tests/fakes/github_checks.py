"""Check runs: create, update (annotations accumulate), read, list per commit -- with GitHub's limits."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from tests.fakes.github_core import WEB_URL, ApiError, Call, Reply, invalid, not_found, now_iso, paginate
from tests.fakes.github_state import GitHubState

MAX_OUTPUT_CHARS = 65_535
MAX_ANNOTATION_BYTES = 64 * 1024
MAX_ANNOTATIONS_PER_REQUEST = 50
MAX_ACTIONS = 3
_STATUSES = ["queued", "in_progress", "completed"]
_CONCLUSIONS = ["action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out"]
_LEVELS = ["notice", "warning", "failure"]
_ACTION_LIMITS = {"label": 20, "description": 40, "identifier": 20}
# Kept in `FakeGitHub.check_runs` for tests, but not part of GitHub's check run JSON.
_INTERNAL = ("repo", "annotations", "actions", "history")


def _one_of(name: str, value: Any, allowed: list[str]) -> None:
    if value is not None and value not in allowed:
        raise invalid(f"For 'properties/{name}', {json.dumps(value)} is not one of {json.dumps(allowed)}.")


def _required_str(obj: dict[str, Any], key: str) -> None:
    if not isinstance(obj.get(key), str) or not obj[key]:
        raise invalid(f'"{key}" wasn\'t supplied.')


def _check_length(value: Any, limit: int) -> None:
    if isinstance(value, str) and len(value) > limit:
        raise invalid(f"Only {limit} characters are allowed; {len(value)} were supplied.")


def _check_annotation(annotation: Any) -> None:
    if not isinstance(annotation, dict):
        raise invalid("For 'items', is not an object.")
    for key in ("path", "message"):
        _required_str(annotation, key)
    for key in ("start_line", "end_line"):
        if not isinstance(annotation.get(key), int):
            raise invalid(f'"{key}" wasn\'t supplied.')
    for key in ("message", "raw_details"):  # "The maximum size is 64 KB": bytes, not characters
        value = annotation.get(key)
        if isinstance(value, str) and len(value.encode()) > MAX_ANNOTATION_BYTES:
            raise invalid(f"Only {MAX_ANNOTATION_BYTES} bytes are allowed for {key}; {len(value.encode())} were"
                          " supplied.")
    _one_of("annotation_level", annotation.get("annotation_level"), _LEVELS)
    _required_str(annotation, "annotation_level")
    has_columns = "start_column" in annotation or "end_column" in annotation
    if has_columns and annotation["start_line"] != annotation["end_line"]:
        raise invalid("start_column and end_column may only be used when start_line equals end_line.")


def _check_output(output: Any) -> None:
    if not isinstance(output, dict):
        raise invalid("For 'properties/output', is not an object.")
    _required_str(output, "title")
    _required_str(output, "summary")
    _check_length(output["summary"], MAX_OUTPUT_CHARS)
    _check_length(output.get("text"), MAX_OUTPUT_CHARS)
    annotations = output.get("annotations") or []
    if len(annotations) > MAX_ANNOTATIONS_PER_REQUEST:
        raise invalid(f"Only {MAX_ANNOTATIONS_PER_REQUEST} annotations are allowed per request.")
    for annotation in annotations:
        _check_annotation(annotation)


def _check_actions(actions: Any) -> None:
    if not isinstance(actions, list) or len(actions) > MAX_ACTIONS:
        raise invalid(f"Only {MAX_ACTIONS} actions are allowed.")
    for action in actions:
        if not isinstance(action, dict):
            raise invalid("For 'items', is not an object.")
        for key, limit in _ACTION_LIMITS.items():
            _required_str(action, key)
            if len(action[key]) > limit:
                raise invalid(f"{key} is too long (maximum is {limit} characters)")


def _validate(payload: dict[str, Any], *, creating: bool) -> None:
    if creating:
        _required_str(payload, "name")
        _required_str(payload, "head_sha")
    _one_of("status", payload.get("status"), _STATUSES)
    _one_of("conclusion", payload.get("conclusion"), _CONCLUSIONS)
    for key in ("started_at", "completed_at"):
        value = payload.get(key)
        if value is not None:
            try:
                datetime.fromisoformat(str(value).replace("Z", "+00:00"))
            except ValueError:
                raise invalid(f"For 'properties/{key}', {json.dumps(value)} is not a timestamp.") from None
    if payload.get("output") is not None:
        _check_output(payload["output"])
    if payload.get("actions") is not None:
        _check_actions(payload["actions"])


def _apply(run: dict[str, Any], payload: dict[str, Any]) -> None:
    for key in ("name", "details_url", "external_id", "started_at", "completed_at"):
        if key in payload:
            run[key] = payload[key]
    if "status" in payload:
        run["status"] = payload["status"]
        if payload["status"] != "completed":
            run["conclusion"] = run["completed_at"] = None
    # Supplying a conclusion completes the run, whatever `status` says.
    if payload.get("conclusion") is not None:
        run["conclusion"], run["status"] = payload["conclusion"], "completed"
    if run["status"] == "completed":
        if run["conclusion"] is None:
            raise invalid('"conclusion" wasn\'t supplied.')
        run["completed_at"] = run["completed_at"] or now_iso()
    if payload.get("output") is not None:
        output = payload["output"]
        run["output"] = {"title": output["title"], "summary": output["summary"], "text": output.get("text")}
        run["annotations"] = run["annotations"] + list(output.get("annotations") or [])
    if payload.get("actions") is not None:
        run["actions"] = payload["actions"]
    run["history"].append(payload)


def _render(state: GitHubState, run: dict[str, Any]) -> dict[str, Any]:
    rendered = {k: v for k, v in run.items() if k not in _INTERNAL}
    annotations_url = state.api(f"/repos/{run['repo']}/check-runs/{run['id']}/annotations")
    rendered["output"] = {
        **run["output"],
        "annotations_count": len(run["annotations"]),
        "annotations_url": annotations_url,
    }
    rendered["pull_requests"] = [
        {"url": state.api(f"/repos/{pr.repo}/pulls/{pr.number}"), "id": pr.id, "number": pr.number}
        for pr in state.pulls.values()
        if pr.repo == run["repo"] and pr.head_sha == run["head_sha"]
    ]
    return rendered


def create_check_run(state: GitHubState, call: Call) -> Reply:
    if call.identity.kind != "installation":
        raise ApiError(403, "You must authenticate via a GitHub App.")
    payload = call.json_object()
    _validate(payload, creating=True)
    if (call.repo, payload["head_sha"]) not in state.commits:
        raise ApiError(422, f"No commit found for SHA: {payload['head_sha']}")
    run_id = state.next_id()
    run: dict[str, Any] = {
        "id": run_id,
        "node_id": f"CR_fake{run_id}",
        "name": payload["name"],
        "head_sha": payload["head_sha"],
        "external_id": "",
        "url": state.api(f"/repos/{call.repo}/check-runs/{run_id}"),
        "html_url": f"{WEB_URL}/{call.repo}/runs/{run_id}",
        "details_url": None,
        "status": "queued",
        "conclusion": None,
        "started_at": now_iso(),
        "completed_at": None,
        "output": {"title": None, "summary": None, "text": None},
        "check_suite": {"id": state.suite_id(call.repo, payload["head_sha"])},
        "app": {"id": state.app_id, "slug": state.app_slug, "name": state.app_slug, "node_id": "A_fake"},
        "repo": call.repo,
        "annotations": [],
        "actions": [],
        "history": [],
    }
    _apply(run, payload)
    state.check_runs[run_id] = run
    return Reply(201, _render(state, run))


def _run(state: GitHubState, call: Call) -> dict[str, Any]:
    run = state.check_runs.get(call.int_param("check_run_id"))
    if run is None or run["repo"] != call.repo:
        raise not_found()
    return run


def update_check_run(state: GitHubState, call: Call) -> Reply:
    if call.identity.kind != "installation":
        raise ApiError(403, "You must authenticate via a GitHub App.")
    run = _run(state, call)
    payload = call.json_object()
    _validate(payload, creating=False)
    # Validate the merged result on a copy so that a rejected update leaves the run untouched.
    updated = {**run, "history": list(run["history"])}
    _apply(updated, payload)
    run.update(updated)
    return Reply(json=_render(state, run))


def get_check_run(state: GitHubState, call: Call) -> Reply:
    return Reply(json=_render(state, _run(state, call)))


def list_annotations(state: GitHubState, call: Call) -> Reply:
    page, headers = paginate(call, _run(state, call)["annotations"])
    return Reply(json=page, headers=headers)


def list_for_suite(state: GitHubState, call: Call) -> Reply:
    suite = call.int_param("check_suite_id")
    runs = [r for r in state.check_runs.values() if r["repo"] == call.repo and r["check_suite"]["id"] == suite]
    if not runs and suite not in state.suites.values():
        raise not_found()
    return _listed(state, call, runs)


def list_for_ref(state: GitHubState, call: Call) -> Reply:
    sha = state.resolve_ref(call.repo, call.params["ref"])
    if sha is None:
        raise ApiError(422, f"No commit found for SHA: {call.params['ref']}")
    return _listed(state, call, [r for r in state.check_runs.values()
                                 if r["repo"] == call.repo and r["head_sha"] == sha])


def _listed(state: GitHubState, call: Call, runs: list[dict[str, Any]]) -> Reply:
    """GitHub's filters (name, status, latest or all), newest first, in pages."""
    if "check_name" in call.query:
        runs = [r for r in runs if r["name"] == call.query["check_name"]]
    if "status" in call.query:
        runs = [r for r in runs if r["status"] == call.query["status"]]
    runs.sort(key=lambda r: r["id"], reverse=True)
    if call.query.get("filter", "latest") == "latest":
        # The default filter keeps only the most recent run of each name.
        latest: dict[str, dict[str, Any]] = {}
        for run in runs:
            latest.setdefault(run["name"], run)
        runs = list(latest.values())
    page, headers = paginate(call, runs)
    return Reply(json={"total_count": len(runs), "check_runs": [_render(state, r) for r in page]}, headers=headers)
