"""Secret-looking strings are taken out of everything posted, ordinary text is left alone, code spans hold."""

from __future__ import annotations

import pytest

from reviewbot.review.publish.markdown import code_span
from reviewbot.review.publish.redaction import REDACTED, redact


@pytest.mark.parametrize("secret", [
    "AKIAIOSFODNN7EXAMPLE", "ghs_" + "a" * 36, "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "xoxb-1234567890-abcdefghij", "sk-proj-" + "Ab1" * 12, "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "AIzaSyD-1234567890abcdefghijklmnopqrstu", "glpat-abcdefghij0123456789",
    "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiI0MjQyIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ",
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE",  # cut off: redacted to the end
])
def test_secret_looking_strings_are_redacted(secret: str) -> None:
    assert redact(f"key = '{secret}' # oops") == f"key = '{REDACTED}' # oops" or redact(secret) == REDACTED


@pytest.mark.parametrize("harmless", [
    "f692370ea007213dff3d775f8f2c89edc7786b7a", "123e4567-e89b-12d3-a456-426614174000", "AKIA is a prefix",
    "sk-short", "ghp_tooShort", "-----BEGIN PUBLIC KEY-----", "The KEY_ID is AKIAWORD",
])
def test_ordinary_text_is_left_alone(harmless: str) -> None:
    assert redact(harmless) == harmless


def test_code_spans_cannot_be_broken_out_of() -> None:
    assert code_span("a.py") == "`a.py`"
    assert code_span("x`\n\n@everyone `y") == "``x` @everyone `y``"
    assert code_span("``a``") == "``` ``a`` ```"
