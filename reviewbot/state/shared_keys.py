"""Redis keys shared by every job: daily budgets, the model's rate limit, GitHub tokens and write spacing, metrics."""

from __future__ import annotations

from reviewbot.state.keys import PREFIX

APP_SLUG_KEY = f"{PREFIX}:app:slug"  # the App's slug as GitHub names it (no expiry)
LEDGER_STREAM = f"{PREFIX}:ledger"  # one entry per review, audit and answer, trimmed to the ledger's days
LEDGER_DAY_PREFIX = f"{PREFIX}:ledger:day:"  # + YYYY-MM-DD → the day's totals (the ledger's days + 2)
METRICS_PREFIX = f"{PREFIX}:metrics"  # + metric name → its counters (no expiry)
RUNNING_KEY = f"{METRICS_PREFIX}:running"  # job id → lease expiry, so a killed worker's jobs stop counting
SPEND_PATTERN = f"{PREFIX}:spend:*"  # every scope's spend, for `doctor`


def spend_keys(installation_id: int, repo: str, day: str) -> list[str]:
    """A UTC day's spend per installation and per repository (3 days); their holds are the `:held:` twins."""
    return [f"{PREFIX}:spend:{installation_id}:{day}", f"{PREFIX}:spend:repo:{repo.lower()}:{day}"]


def held_key(spend_key: str) -> str:
    """The holds of reviews running now against one spend key (3 days)."""
    return spend_key.replace(":spend:", ":held:")


def charged_key(installation_id: int, once: str) -> str:
    """Set once a queued request's answer was charged (3 days): fetching it again after a crash is free."""
    return f"{PREFIX}:charged:{installation_id}:{once}"


def ratelimit_key(account: str) -> str:
    """The model account's token bucket (1 hour after its last use)."""
    return f"{PREFIX}:ratelimit:{account}"


def installation_token_key(app_id: str | int, installation_id: int) -> str:
    """A cached installation token, encrypted (until five minutes before GitHub expires it)."""
    return f"{PREFIX}:installation-token:{app_id}:{int(installation_id)}"


def github_write_key(key: str) -> str:
    """The last write to GitHub by one installation (the write interval): writes are spaced as GitHub asks."""
    return f"{PREFIX}:github-write:{key}"


def metric_key(name: str) -> str:
    """One metric's counters (no expiry)."""
    return f"{METRICS_PREFIX}:{name}"
