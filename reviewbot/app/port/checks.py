"""Check runs: created, adopted after an ambiguous failure, found in a suite, updated."""

from __future__ import annotations

from typing import Any

from reviewbot.app.port.base import PortBase, _q, _q1
from reviewbot.app.requester import next_link

MAX_CHECK_RUN_PAGES = 10  # GitHub keeps at most 1,000 runs of one name in a check suite


class ChecksAPI(PortBase):
    """The check-runs API."""

    async def create_check_run(self, repo: str, body: dict[str, Any]) -> int:
        """Create a check run; after an ambiguous failure (5xx) it adopts the run that request may have made,
        which would otherwise stay queued forever beside the one created next."""
        async def created() -> dict[str, Any] | None:
            found = await self.open_check_run(repo, body["head_sha"], body["name"], str(body.get("external_id")))
            return {"id": found} if found is not None else None

        data = await self._send("POST", f"POST check run {repo}", f"/repos/{_q(repo)}/check-runs", body,
                                recover=created)
        return int(data["id"])

    async def open_check_run(self, repo: str, head_sha: str, name: str, external_id: str) -> int | None:
        """The newest check run of this name and external id on the commit that has not completed, if any."""
        url: str | None = f"/repos/{_q(repo)}/commits/{_q1(head_sha)}/check-runs"
        params: dict[str, Any] | None = {"check_name": name, "filter": "all", "per_page": 100}
        pages = 0
        while url is not None and pages < MAX_CHECK_RUN_PAGES:  # every page, not just GitHub's default first 30
            headers, data = await self._http.request("GET", url, what=f"GET check runs {head_sha[:12]}",
                                                     params=params)
            runs = data.get("check_runs") if isinstance(data, dict) else None
            found = next((int(r["id"]) for r in runs or [] if isinstance(r, dict) and r.get("status") != "completed"
                          and r.get("external_id") == external_id and isinstance(r.get("id"), int)), None)
            if found is not None:
                return found
            url, params, pages = next_link(headers.get("link", "")), None, pages + 1
        return None

    async def suite_external_ids(self, repo: str, suite_id: int, name: str) -> list[str]:
        """The `external_id` of every check run called `name` in a check suite (all pages)."""
        url: str | None = f"/repos/{_q(repo)}/check-suites/{int(suite_id)}/check-runs"
        params: dict[str, Any] | None = {"check_name": name, "filter": "all", "per_page": 100}
        found: list[str] = []
        pages = 0
        while url is not None and pages < MAX_CHECK_RUN_PAGES:
            headers, data = await self._http.request("GET", url, what=f"GET suite {suite_id} check runs",
                                                     params=params)
            runs = data.get("check_runs") if isinstance(data, dict) else None
            found += [str(r.get("external_id") or "") for r in runs or [] if isinstance(r, dict)]
            url, params, pages = next_link(headers.get("link", "")), None, pages + 1
        return found

    async def update_check_run(self, repo: str, check_run_id: int, body: dict[str, Any]) -> None:
        await self._send("PATCH", f"PATCH check run {check_run_id}",
                         f"/repos/{_q(repo)}/check-runs/{int(check_run_id)}", body)
