"""X-Hub-Signature-256: HMAC-SHA256 over the raw body, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac

PREFIX = "sha256="


def sign(secret: str, body: bytes) -> str:
    return PREFIX + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str | None) -> bool:
    """True only for a well-formed header whose digest matches; never raises on junk input."""
    if not header or not header.startswith(PREFIX) or not secret:
        return False
    expected = sign(secret, body)
    return hmac.compare_digest(expected.encode(), header.strip().encode("utf-8", errors="replace"))
