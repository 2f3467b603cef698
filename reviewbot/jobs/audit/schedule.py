"""audit_schedules, the worker's cron job: every repository of every installation whose default branch's
`.github/reviewbot.yml` schedules audits gets one audit per period, however many workers scan (configurations are
read again only after a push: `schedule_configs`)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from reviewbot.app.app_api import AppApi
from reviewbot.audit.service_state import AuditStore
from reviewbot.jobs.audit.schedule_configs import read_schedules
from reviewbot.jobs.audit.triggers import start_audit
from reviewbot.review.cronspec import due_period

if TYPE_CHECKING:
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
EVERY_MINUTES = 10  # how often the cron job scans; a cron expression matches in the minutes since the last scan
SCAN_MINUTES = set(range(0, 60, EVERY_MINUTES))


async def audit_schedules(ctx: dict[str, Any], now: float | None = None) -> dict[str, Any]:
    deps: Deps = ctx["deps"]
    moment = datetime.fromtimestamp(now, UTC) if now is not None else datetime.now(UTC)
    app = AppApi.from_settings(deps.settings)
    try:
        installations = [int(i["id"]) for i in await app.installations()]
    finally:
        app.close()
    started: list[str] = []
    for installation_id in installations:
        port = deps.installation_port(installation_id)
        try:
            for found in await read_schedules(ctx["redis"], port, await port.installation_repos()):
                repo, branch = found.repo, found.branch
                if not found.schedule:
                    continue
                period = due_period(found.schedule, moment, timedelta(minutes=EVERY_MINUTES))
                if period is None or not await AuditStore(ctx["redis"]).first_in_period(repo, period):
                    continue
                await start_audit(ctx["redis"], installation_id, repo, branch=branch, trigger="schedule", run=period)
                started.append(repo)
        finally:
            port.close()
    log.info("audit schedules scanned", extra={"installations": len(installations), "started": len(started)})
    return {"outcome": "scanned", "started": started}
