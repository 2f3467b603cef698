"""Provider error responses → retryable or permanent, with what the user should do about it."""

from __future__ import annotations

import httpx

from reviewbot.errors import ModelBusy, ModelPermanent, ModelRetryable

CAPACITY = 3040  # Workers AI: out of capacity, transient
PERMANENT_CODES = {
    3036: "the account's daily free allowance is spent: upgrade to Workers Paid or wait for 00:00 UTC",
    5035: "the model needs a Workers Paid plan: upgrade the account or set REVIEWBOT_MODEL to another model",
    3006: "the prompt is too large: lower the prompt budget in .github/reviewbot.yml",
    5007: "no such model: check REVIEWBOT_MODEL",
    3042: "invalid model id: check REVIEWBOT_MODEL",
}
CONTEXT_WORDS = ("context length", "context_length", "maximum context", "too many tokens", "prompt is too long")


def error_codes(response: httpx.Response) -> tuple[set[int], str]:
    """Cloudflare codes from `errors[].code` (or OpenAI's `error.code`) and a short message."""
    try:
        data = response.json()
    except ValueError:
        return set(), response.text[:200]
    codes: set[int] = set()
    messages: list[str] = []
    errors = data.get("errors") if isinstance(data, dict) else None
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        errors = [data["error"]]
    for item in errors or []:
        if isinstance(item, dict):
            if str(item.get("code", "")).isdigit():
                codes.add(int(item["code"]))
            messages.append(str(item.get("message") or ""))
    return codes, "; ".join(m for m in messages if m)[:300]


def classify(response: httpx.Response) -> ModelPermanent | ModelRetryable:
    """Retryable: capacity (3040), 429, 408, 5xx. Permanent: quota, plan, auth, size, bad request."""
    status = response.status_code
    codes, message = error_codes(response)
    for code, meaning in PERMANENT_CODES.items():
        if code in codes:
            return ModelPermanent(f"model provider refused the request (code {code}): {meaning}", status=status)
    if status in (401, 403):
        return ModelPermanent(f"model provider rejected the credentials (HTTP {status}): check "
                              "CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID", status=status)
    if status == 413 or any(word in message.lower() for word in CONTEXT_WORDS):
        return ModelPermanent(f"the prompt is larger than the model accepts (HTTP {status}): lower the prompt "
                              "budget in .github/reviewbot.yml", status=status, context_length=True)
    if CAPACITY in codes:
        return ModelBusy(f"model provider is out of capacity (HTTP {status}, code {CAPACITY})", status=status)
    if status in (408, 429) or status >= 500:
        return ModelRetryable(f"model provider is busy (HTTP {status})", status=status)
    return ModelPermanent(f"model provider answered HTTP {status}: {message or 'no details'}", status=status)
