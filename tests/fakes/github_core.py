"""Plumbing shared by the fake GitHub's endpoint modules: the request/reply types, errors, pagination."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import urlencode

from starlette.datastructures import Headers

DOCS_URL = "https://docs.github.com/rest"
WEB_URL = "https://github.com"
JSON_MEDIA = "application/json; charset=utf-8"
MAX_BODY = 65_536


def now_iso(at: datetime | None = None) -> str:
    """GitHub's timestamp format: second precision, always UTC, `Z` suffix."""
    return (at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")


class ApiError(Exception):
    """Raised by endpoint code; rendered the way GitHub renders errors."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        errors: list[Any] | None = None,
        documentation_url: str = DOCS_URL,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {message}")
        self.status = status
        self.message = message
        self.errors = errors
        self.documentation_url = documentation_url
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message}
        if self.errors is not None:
            body["errors"] = self.errors
        body["documentation_url"] = self.documentation_url
        # GitHub has included the status (as a string) in error bodies since 2023.
        body["status"] = str(self.status)
        return body


def not_found() -> ApiError:
    return ApiError(404, "Not Found")


def invalid(detail: str) -> ApiError:
    """GitHub's JSON-schema validation failure, e.g. `Invalid request.\n\n"name" wasn't supplied.`"""
    return ApiError(422, f"Invalid request.\n\n{detail}")


@dataclass
class Identity:
    """Who a request authenticated as, and which rate-limit bucket it draws from."""

    kind: Literal["app", "installation", "personal", "anonymous"]
    rate_key: str
    login: str = ""
    installation_id: int | None = None


@dataclass
class Call:
    """One authenticated request, as the endpoint functions see it."""

    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    headers: Headers
    body: Any
    identity: Identity
    base_url: str

    @property
    def repo(self) -> str:
        return f"{self.params['owner']}/{self.params['repo']}"

    def int_param(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise not_found() from None

    def json_object(self) -> dict[str, Any]:
        if not isinstance(self.body, dict):
            raise ApiError(400, "Problems parsing JSON")
        return self.body

    def accepts(self, *media_types: str) -> bool:
        accept = self.headers.get("accept", "")
        return any(media in accept for media in media_types)


@dataclass
class Reply:
    status: int = 200
    json: Any = None
    text: str | bytes | None = None  # sent instead of `json` when set
    media_type: str = JSON_MEDIA
    headers: dict[str, str] = field(default_factory=dict)


def user_json(login: str, *, user_id: int, kind: str = "User") -> dict[str, Any]:
    return {
        "login": login,
        "id": user_id,
        "node_id": f"U_fake{user_id}",
        "type": kind,
        "site_admin": False,
        "html_url": f"{WEB_URL}/{login}",
    }


def _int_query(call: Call, name: str, default: int) -> int:
    try:
        return int(call.query.get(name, default))
    except ValueError:
        return default


def paginate(call: Call, items: list[Any], *, cap: int | None = None) -> tuple[list[Any], dict[str, str]]:
    """Slice `items` by `per_page`/`page` and build GitHub's RFC 5988 `Link` header (absolute URLs)."""
    per_page = min(max(_int_query(call, "per_page", 30), 1), 100)
    page = max(_int_query(call, "page", 1), 1)
    total = min(len(items), cap) if cap is not None else len(items)
    last = max(math.ceil(total / per_page), 1)
    start = (page - 1) * per_page
    chunk = items[start : min(start + per_page, total)]

    # GitHub keeps the caller's other parameters and puts `page` last.
    kept = {k: v for k, v in call.query.items() if k != "page"}

    def link(target: int, rel: str) -> str:
        query = urlencode({**kept, "page": target})
        return f'<{call.base_url}{call.path}?{query}>; rel="{rel}"'

    links: list[str] = []
    if page > 1:
        links.append(link(min(page - 1, last), "prev"))
    if page < last:
        links += [link(page + 1, "next"), link(last, "last")]
    if page > 1:
        links.append(link(1, "first"))
    return chunk, ({"link": ", ".join(links)} if links else {})
