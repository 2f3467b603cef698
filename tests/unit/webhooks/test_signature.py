"""Webhook signatures: GitHub's published test vector, tampering and junk headers."""

from reviewbot.webhooks.signature import sign, verify

SECRET = "It's a Secret to Everybody"
BODY = b"Hello, World!"
GITHUB_VECTOR = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"


def test_matches_githubs_documented_vector() -> None:
    assert sign(SECRET, BODY) == GITHUB_VECTOR
    assert verify(SECRET, BODY, GITHUB_VECTOR)


def test_rejects_a_changed_body_or_wrong_secret() -> None:
    assert not verify(SECRET, BODY + b" ", GITHUB_VECTOR)
    assert not verify("another secret", BODY, GITHUB_VECTOR)


def test_rejects_missing_malformed_and_sha1_headers() -> None:
    for header in (None, "", "sha256=", "sha1=" + "0" * 40, GITHUB_VECTOR.upper(), "sha256=zz\u00e9", "garbage"):
        assert not verify(SECRET, BODY, header)


def test_an_empty_secret_never_verifies() -> None:
    assert not verify("", BODY, sign("", BODY))
