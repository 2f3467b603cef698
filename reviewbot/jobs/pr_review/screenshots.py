"""Screenshots of a PR description for a model that reads images: fetched through the port, checked, noted."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reviewbot.errors import GitHubError, GitHubRetryable
from reviewbot.review.linked.readable import UNREADABLE
from reviewbot.review.prompt.images import ImageRef, describe, find_images, image_parts
from reviewbot.review.prompt.pixels import Checked, check_image
from reviewbot.settings.catalogue import supports_vision

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort, PullInfo
    from reviewbot.settings import Settings

log = logging.getLogger(__name__)


async def screenshots(port: GitHubPort, settings: Settings, repo: str, pull: PullInfo, *,
                      check: Callable[[bytes, str, int, int], Checked] = check_image,
                      ) -> tuple[list[dict[str, Any]], list[str]]:
    """(content parts for the model, coverage notes saying which images were seen and which skipped and why).
    Nothing is fetched for a model without vision, and nothing outside GitHub's attachments ever."""
    refs = find_images(pull.body, repo, settings.github_url)
    if not refs:
        return [], []
    if not supports_vision(settings.model, settings.vision):
        return [], [f"{len(refs)} image(s) in the description not sent: {settings.model} is not known to read "
                    "images (REVIEWBOT_VISION=on sends them)"]
    # What the review sees it may describe in public: for a pull request that may be public (unknown counts as
    # public), an image is fetched as a stranger would, so one uploaded in a private repository is never seen.
    anonymous = pull.visibility not in ("private", "internal")
    notes: list[str] = []
    sent: list[tuple[ImageRef, str]] = []
    spent = tried = 0
    for ref in refs:
        name = describe(ref.url)
        if not ref.allowed:
            notes.append(f"image {name} skipped: {ref.reason}")
            continue
        if tried >= settings.max_images:  # failed downloads count too: broken links never cost a request each
            notes.append(f"image {name} skipped: more than REVIEWBOT_MAX_IMAGES ({settings.max_images})")
            continue
        tried += 1
        left = settings.max_image_bytes - spent
        try:
            kind, data = await port.download_image(ref.url, max(0, left), anonymous=anonymous)
        except GitHubError as exc:  # a missing image never fails the review
            # Refused anonymously: one wording whatever GitHub said, as for linked issues (a 404 or a 401 must not
            # tell a stranger that a private repository holds the image).
            notes.append(f"image {name} skipped: {UNREADABLE if anonymous else exc}")
            continue
        except GitHubRetryable as exc:
            notes.append(f"image {name} skipped: {exc}")
            continue
        spent += len(data)
        # Decoding and downscaling take up to seconds: off the event loop, whose heartbeat keeps the job's lease.
        checked = await asyncio.to_thread(check, data, kind, settings.max_image_bytes,
                                          settings.max_image_pixels)
        if checked.reason:
            notes.append(f"image {name} skipped: {checked.reason}")
            continue
        sent.append((ref, checked.data_url))
        notes.append(f"image {name} sent to the model ({checked.size[0]}×{checked.size[1]})")
    log.info("description images", extra={"repo": repo, "pr": pull.number, "seen": len(refs), "sent": len(sent)})
    return image_parts(pull.body, sent), notes
