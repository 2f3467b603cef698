"""`reviewbot redeliver`: ask GitHub to redeliver each webhook whose every attempt failed, once per run.

Safe from cron: a GUID with any successful attempt is left alone, and a redelivery keeps its GUID, so the
webhook side can drop one it has already seen.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, TextIO

from reviewbot.app.app_api import AppApi
from reviewbot.errors import GitHubError, GitHubRetryable
from reviewbot.observe.progress import counting


def delivered_at(delivery: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(str(delivery["delivered_at"]).replace("Z", "+00:00"))


def succeeded(delivery: dict[str, Any]) -> bool:
    """GitHub reached us and we answered 2xx/3xx (status_code 0: GitHub could not connect at all)."""
    code = int(delivery.get("status_code") or 0)
    return 0 < code < 400 and delivery.get("status") == "OK"


def to_redeliver(deliveries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The newest attempt of each GUID none of whose attempts succeeded, oldest GUID first."""
    by_guid: dict[str, list[dict[str, Any]]] = {}
    for delivery in deliveries:
        by_guid.setdefault(str(delivery["guid"]), []).append(delivery)
    failed = [max(attempts, key=lambda d: (delivered_at(d), int(d["id"])))
              for attempts in by_guid.values() if not any(succeeded(d) for d in attempts)]
    return sorted(failed, key=lambda d: (delivered_at(d), int(d["id"])))


async def recent_deliveries(api: AppApi, since: datetime) -> list[dict[str, Any]]:
    """Attempts delivered at or after `since`; pages come newest first, so reading stops at the first older one."""
    found: list[dict[str, Any]] = []
    async for page in api.deliveries():
        recent = [d for d in page if delivered_at(d) >= since]
        found.extend(recent)
        if len(recent) < len(page):
            break
    return found


async def redeliver(api: AppApi, window: timedelta, *, dry_run: bool, out: TextIO,
                    now: datetime | None = None) -> int:
    """Print what is (or would be) redelivered; exit status 1 when GitHub refused a redelivery."""
    since = (now or datetime.now(UTC)) - window
    deliveries = await recent_deliveries(api, since)
    failed = to_redeliver(deliveries)
    refused = 0
    # Redeliveries are spaced a second apart (GitHub's write guidance): a bar on a terminal shows how far along.
    with counting("redelivering", 0 if dry_run else len(failed)) as advance:
        for delivery in failed:
            what = (f"{delivery['guid']} {delivery.get('event')}.{delivery.get('action') or '-'} "
                    f"(last attempt {delivery['delivered_at']}: {delivery.get('status')})")
            if dry_run:
                print(f"would redeliver {what}", file=out)
                continue
            try:
                await api.redeliver(int(delivery["id"]))
            except (GitHubError, GitHubRetryable) as exc:
                refused += 1
                print(f"could not redeliver {what}: {exc}", file=out)
                continue
            finally:
                advance(1)
            print(f"redelivered {what}", file=out)
    guids = len({d["guid"] for d in deliveries})
    done = "nothing redelivered (dry run)" if dry_run else f"{len(failed) - refused} redelivered"
    print(f"{len(failed)} of {guids} webhook deliveries since {since:%Y-%m-%d %H:%M} UTC never succeeded; {done}.",
          file=out)
    return 1 if refused else 0
