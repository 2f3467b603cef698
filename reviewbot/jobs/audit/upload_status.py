"""audit_upload_status: after an audit's SARIF upload, wait for GitHub to process it by deferring this small job
(no worker slot held while GitHub works), then say in the record and the answer whether it was accepted."""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING, Any

from arq import Retry
from redis.exceptions import RedisError

from reviewbot.app.port.code_scanning import check_processed
from reviewbot.audit.service_state import AuditStore
from reviewbot.errors import PermanentError, RetryableError, SarifRejected, Waiting
from reviewbot.jobs.audit.audit_progress import edit_answer
from reviewbot.jobs.audit.audit_record import published_text
from reviewbot.queue import retries
from reviewbot.state.audit_keys import poll_job_id

if TYPE_CHECKING:
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)


async def audit_upload_status(ctx: dict[str, Any], audit_id: str) -> dict[str, Any]:
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    store = AuditStore(redis)
    try:
        record = await store.load(audit_id)
    except RedisError as exc:
        raise Retry(defer=5.0) from exc
    publication = record.publication if record is not None else None
    if record is None or publication is None or publication.status != "processing" or not publication.sarif_id:
        return {"outcome": "nothing to poll"}
    port = deps.installation_port(record.installation_id)
    try:
        try:
            status = await check_processed(port, record.repo, str(publication.sarif_id),
                                           int(ctx.get("job_try") or 1) - 1, first_s=deps.settings.sarif_poll)
        except Waiting as exc:
            raise Retry(defer=exc.retry_after or 10.0) from exc
        except SarifRejected as exc:
            publication = dataclasses.replace(publication, status="failed", errors=list(exc.errors) or [str(exc)])
        except RetryableError as exc:
            await retries.retry_later(redis, poll_job_id(audit_id), exc, first_s=deps.settings.retry_delay)
            publication = dataclasses.replace(publication, status="failed", errors=[f"status unknown: {exc}"])
        except PermanentError as exc:
            publication = dataclasses.replace(publication, status="failed", errors=[str(exc)])
        else:
            publication = dataclasses.replace(publication, status="complete", analyses_url=status.analyses_url)
        record = dataclasses.replace(record, publication=publication, published=published_text(publication))
        await store.save(record)
        await edit_answer(port, record, final=True)
    finally:
        port.close()
    if publication.status == "failed":
        log.warning("audit upload not processed", extra={"repo": record.repo, "errors": publication.errors})
    return {"outcome": publication.status, "results": publication.results}
