"""Provider error responses → retryable or permanent, by Cloudflare error code, with what the user should do."""

from __future__ import annotations

import httpx

from reviewbot.errors import ModelBusy, ModelPermanent, ModelRetryable

CAPACITY = 3040  # Workers AI: out of capacity, transient
# Workers AI's published codes (platform/errors.mdx; 5035 from the 2026-07-28 changelog). None of them is a
# complaint about the request's shape, so none may send the reviewer through its response_format forms.
PERMANENT_CODES = {
    3036: "the account's daily free allowance is spent: upgrade to Workers Paid or wait for 00:00 UTC",
    5035: "the model needs a Workers Paid plan: upgrade the account or set REVIEWBOT_MODEL to another model",
    3006: "the prompt is too large: lower the prompt budget in .github/reviewbot.yml",
    5007: "no such model: check REVIEWBOT_MODEL",
    3042: "invalid model id: check REVIEWBOT_MODEL",
    5018: "the account is not allowed to access this model: set REVIEWBOT_MODEL to a model the account can use",
    3041: "the account is not allowed to access this model: set REVIEWBOT_MODEL to a model the account can use",
    5016: "the model's terms have not been agreed to on this account",
    3023: "the provider blocked the account (\"service unavailable for account\"): contact Cloudflare support",
    3003: "the request was incomplete (missing headers or body): check REVIEWBOT_MODEL_BASE_URL and any proxy",
    5004: "the provider refused the request's data",
    5019: "the provider refused a deprecated client",
    5005: "the model does not support this kind of inference",
}
# Codes that mean "this request body does not fit the model's input schema": the one case where the next
# response_format form may succeed.
INVALID_INPUT_CODES = {8001, 5006}
# Words of a server that refused the response_format itself (llama.cpp's server answers HTTP 500 with a
# validation message, "Input should be 'text' or 'json_object'"): the next, plainer form may succeed.
FORM_WORDS = ("json_schema", "response_format")
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
    """Retryable: capacity (3040), 429, 408, 5xx. Permanent: quota, plan, access, size, bad request."""
    status = response.status_code
    codes, message = error_codes(response)
    for code, meaning in PERMANENT_CODES.items():
        if code in codes:
            return ModelPermanent(f"model provider refused the request (code {code}): {meaning}", status=status)
    if status == 413 or any(word in message.lower() for word in CONTEXT_WORDS):
        return ModelPermanent(f"the prompt is larger than the model accepts (HTTP {status}): lower the prompt "
                              "budget in .github/reviewbot.yml", status=status, context_length=True)
    if status in (401, 403):  # the access and plan codes above are 403s too, with their own advice
        return ModelPermanent(f"model provider rejected the credentials (HTTP {status}): check "
                              "CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID", status=status)
    if status != 429 and refused_form(message):
        return ModelPermanent(f"the server refused {refused_form(message)} (HTTP {status}): {message}",
                              status=status, invalid_input=True)
    if CAPACITY in codes:
        return ModelBusy(f"model provider is out of capacity (HTTP {status}, code {CAPACITY})", status=status)
    if status in (408, 429) or status >= 500:
        return ModelRetryable(f"model provider is busy (HTTP {status})", status=status)
    # A 400 without a Cloudflare code (an OpenAI-style body) may be a schema complaint too.
    invalid_input = status == 400 and (bool(codes & INVALID_INPUT_CODES) or not codes)
    coded = f", code {min(codes)}" if codes else ""
    return ModelPermanent(f"model provider answered HTTP {status}{coded}: {message or 'no details'}", status=status,
                          invalid_input=invalid_input)


def refused_form(message: str) -> str:
    """Which output form an error message complains about ("json_schema", "response_format"), or ""."""
    lowered = message.lower()
    return next((word for word in FORM_WORDS if word in lowered), "")
