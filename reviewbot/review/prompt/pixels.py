"""An attachment's bytes checked and downscaled with Pillow before a model sees them (no I/O)."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError

FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
CONTENT_TYPES = frozenset(FORMATS.values())
MAX_SIDE = 1568  # the long side vision models resize to anyway: more pixels only cost tokens


@dataclass(frozen=True)
class Checked:
    data_url: str = ""
    size: tuple[int, int] = (0, 0)
    reason: str = ""  # why it was refused; empty: accepted


def check_image(data: bytes, content_type: str, max_bytes: int, max_pixels: int) -> Checked:
    """Refuse what is not a PNG, JPEG, GIF or WebP (by header and by content), too big, or too many pixels;
    turn the rest upright (EXIF orientation), downscale it to MAX_SIDE and re-encode as PNG (which also drops
    metadata). Only the four formats' parsers ever see the bytes. CPU-bound: call it in a thread."""
    kind = content_type.split(";")[0].strip().lower()
    if kind not in CONTENT_TYPES:
        return Checked(reason=f"content type {kind or 'missing'} is not an image type reviewbot sends")
    if len(data) > max_bytes:
        return Checked(reason=f"{len(data):,} bytes is over REVIEWBOT_MAX_IMAGE_BYTES ({max_bytes:,})")
    try:
        with Image.open(io.BytesIO(data), formats=list(FORMATS)) as image:  # no other plugin parses the header
            if image.format not in FORMATS:
                return Checked(reason=f"the bytes are {image.format or 'not an image'}, not {kind}")
            width, height = image.size
            if width * height > max_pixels:  # checked from the header, before any pixel is decoded
                return Checked(reason=f"{width}×{height} pixels is over REVIEWBOT_MAX_IMAGE_PIXELS ({max_pixels:,})")
            image.seek(0)  # an animation: its first frame
            upright = ImageOps.exif_transpose(image)  # a phone photo taken sideways is shown as it was seen
            frame = upright.convert("RGBA" if upright.mode in ("RGBA", "LA", "P") else "RGB")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        return Checked(reason=f"not a readable image ({type(exc).__name__})")
    frame.thumbnail((MAX_SIDE, MAX_SIDE))
    out = io.BytesIO()
    frame.save(out, format="PNG", optimize=True)
    return Checked(data_url="data:image/png;base64," + base64.b64encode(out.getvalue()).decode(), size=frame.size)
