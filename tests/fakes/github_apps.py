"""App administration: the App's webhook deliveries (cursor pages, redelivery) and manifest conversions."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlencode

from tests.fakes.github_core import WEB_URL, ApiError, Call, Reply, now_iso
from tests.fakes.github_state import GitHubState


def add_delivery(state: GitHubState, guid: str, status_code: int, *, event: str, action: str | None,
                 delivered_at: str | None, redelivery: bool) -> dict[str, Any]:
    delivery = {
        "id": state.next_id(),
        "guid": guid,
        "delivered_at": delivered_at or now_iso(),
        "redelivery": redelivery,
        "duration": 0.12,
        # GitHub's words: "OK" for a 2xx, the failure otherwise ("Invalid HTTP Response: 503", timeouts...).
        "status": "OK" if 200 <= status_code < 300 else (
            f"Invalid HTTP Response: {status_code}" if status_code else "timed out"),
        "status_code": status_code,
        "event": event,
        "action": action,
        "installation_id": next(iter(state.installations), None),
        "repository_id": None,
        "throttled_at": None,
    }
    state.deliveries.append(delivery)
    return delivery


def list_deliveries(state: GitHubState, call: Call) -> Reply:
    """Newest first; `cursor` is opaque to clients and only ever taken from the `Link` header."""
    try:
        per_page = min(max(int(call.query.get("per_page", 30)), 1), 100)
    except ValueError:
        raise ApiError(422, "per_page must be an integer") from None
    ordered = sorted(state.deliveries, key=lambda d: (d["delivered_at"], d["id"]), reverse=True)
    cursor = call.query.get("cursor")
    start = 0
    if cursor:
        ids = [d["id"] for d in ordered]
        if not cursor.startswith("v1_") or int(cursor[3:] or 0) not in ids:
            raise ApiError(422, "Invalid cursor")
        start = ids.index(int(cursor[3:]))
    page = ordered[start : start + per_page]
    headers = {}
    if start + per_page < len(ordered):
        query = urlencode({"per_page": per_page, "cursor": f"v1_{ordered[start + per_page]['id']}"})
        headers["link"] = f'<{call.base_url}{call.path}?{query}>; rel="next"'
    return Reply(json=page, headers=headers)


def redeliver(state: GitHubState, call: Call) -> Reply:
    """Accepted; the fake "delivers" at once with `redelivery_status` and records the new attempt."""
    delivery_id = call.int_param("delivery_id")
    original = next((d for d in state.deliveries if d["id"] == delivery_id), None)
    if original is None:
        raise ApiError(404, "Not Found")
    state.redelivered.append(delivery_id)
    status_code, _ = state.redelivery_status
    add_delivery(state, original["guid"], status_code, event=original["event"], action=original["action"],
                 delivered_at=None, redelivery=True)
    return Reply(202, {})


def convert_manifest(state: GitHubState, call: Call) -> Reply:
    """`POST /app-manifests/{code}/conversions`: no authentication; each code works once."""
    pem = state.manifest_codes.pop(call.params["code"], None)
    if pem is None:
        raise ApiError(404, "Not Found")
    return Reply(201, {
        "id": state.app_id,
        "slug": state.app_slug,
        "node_id": f"A_fake{state.app_id}",
        "owner": {**state.user("reviewbot-org"), "type": "Organization"},
        "name": state.app_slug.replace("-", " ").title(),
        "description": "Reviews pull requests (fake)",
        "external_url": "https://example.invalid",
        "html_url": f"{WEB_URL}/apps/{state.app_slug}",
        "created_at": now_iso(),
        "updated_at": now_iso(),
        "permissions": {"checks": "write", "pull_requests": "write", "contents": "read"},
        "events": ["pull_request", "issue_comment"],
        "client_id": state.client_id,
        "client_secret": "fake-client-secret-" + secrets.token_hex(8),
        # GitHub documents this as nullable: an App can come back without one (`manifest_secret_missing`).
        "webhook_secret": None if state.manifest_secret_missing else "fake-webhook-secret-" + secrets.token_hex(8),
        "pem": pem.decode(),
    })


def update_hook_config(state: GitHubState, call: Call) -> Reply:
    """`PATCH /app/hook/config` (App JWT): the App's webhook address and secret; GitHub masks the secret."""
    body = call.json_object()
    state.hook_config.update({k: v for k, v in body.items() if k in ("url", "content_type", "secret", "insecure_ssl")})
    shown = {**state.hook_config, **({"secret": "********"} if state.hook_config.get("secret") else {})}
    return Reply(json=shown)
