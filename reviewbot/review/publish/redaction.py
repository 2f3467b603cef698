"""Secret-looking strings (cloud keys, tokens, private keys) taken out of everything reviewbot posts.

A pull request may contain a leaked credential, and a model asked to review it may quote it back: the review
would then copy the secret into a comment, a summary or a suggestion, where it is indexed, mailed and kept
after the commit is gone. Patterns follow the providers' documented token formats.
"""

from __future__ import annotations

import re

REDACTED = "[redacted secret]"
_PATTERNS = [
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[0-9A-Z]{16}\b",  # AWS access key ids
    r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b",  # GitHub tokens
    r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b",
    r"\bglpat-[A-Za-z0-9_-]{20,}",  # GitLab
    r"\bxox[abposre]-[A-Za-z0-9-]{10,}",  # Slack
    r"\bsk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{32,}",  # OpenAI, Anthropic
    r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe
    r"\bAIza[0-9A-Za-z_-]{35}",  # Google API keys
    r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # JWTs
    r"\bnpm_[A-Za-z0-9]{36}\b",
    r"\bhf_[A-Za-z0-9]{34,}\b",  # Hugging Face
]
_SECRET = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.DOTALL)


def redact(text: str) -> str:
    """`text` with every secret-looking string replaced by a marker."""
    return _SECRET.sub(REDACTED, text)


def has_secret(text: str) -> bool:
    return _SECRET.search(text) is not None
