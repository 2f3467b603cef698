"""Settings built from a mapping (the environment plus an optional .env), validated with clear errors."""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dotenv import dotenv_values

from reviewbot.catalogue import DEFAULT_PRICES, Price, parse_prices
from reviewbot.errors import ConfigError

DEFAULT_MODEL = "@cf/moonshotai/kimi-k2.5"
DEFAULT_GITHUB_API_URL = "https://api.github.com"
DEFAULT_GITHUB_URL = "https://github.com"
CLOUDFLARE_BASE = "https://api.cloudflare.com/client/v4/accounts/{account}/ai/v1"

_Get = Callable[[str], str | None]


@dataclass(frozen=True)
class Settings:
    """Every knob reviewbot has; build with `Settings.from_mapping`."""

    github_app_id: str | None = None
    github_private_key: str | None = field(default=None, repr=False)
    github_webhook_secret: str | None = field(default=None, repr=False)
    github_api_url: str = DEFAULT_GITHUB_API_URL
    github_token: str | None = field(default=None, repr=False)
    redis_url: str | None = None
    data_dir: Path = Path(".reviewbot")
    model_base_url: str | None = None
    model: str = DEFAULT_MODEL
    cloudflare_account_id: str | None = None
    cloudflare_api_token: str | None = field(default=None, repr=False)
    model_timeout: float = 600.0
    job_timeout: float = 900.0
    max_jobs: int = 50
    installation_concurrency: int = 4
    shutdown_grace: float = 60.0
    app_slug: str | None = None
    command_aliases: tuple[str, ...] = ()
    model_run_url: str | None = None
    async_queue: bool = True
    async_poll_s: float = 20.0
    reject_if_busy: bool | None = None
    model_retries: int = 3
    model_backoff_s: float = 1.0
    model_rpm: float = 240.0
    thinking: bool | None = None
    max_tool_turns: int = 8
    review_token_budget: int = 600_000
    max_completion_tokens: int = 16_000
    prices: dict[str, Price] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    daily_budget_usd: float | None = None
    daily_budget_tokens: int | None = None
    github_client_id: str | None = None
    github_url: str = DEFAULT_GITHUB_URL
    public_url: str | None = None
    rate_limit_wait: float = 30.0
    write_interval: float = 1.0
    # context engine
    prompt_budget: int = 100_000
    repo_cache_mb: int = 2_048
    dashboard_token: str | None = field(default=None, repr=False)
    ledger_days: int = 90
    log_format: str = "auto"

    @classmethod
    def from_mapping(cls, env: Mapping[str, str]) -> Settings:
        """Read every variable from `env`; raise ConfigError naming what is wrong."""
        get = _getter(env)
        key = get("GITHUB_PRIVATE_KEY")
        key_path = get("GITHUB_PRIVATE_KEY_PATH")
        if key is None and key_path is not None:
            try:
                key = Path(key_path).expanduser().read_text()
            except OSError as exc:
                raise ConfigError(f"GITHUB_PRIVATE_KEY_PATH: cannot read {key_path}: {exc.strerror}") from None
        if key is not None:
            key = key.replace("\\n", "\n")  # keys pasted into one-line env vars
        api_url = _url(get, "GITHUB_API_URL") or DEFAULT_GITHUB_API_URL
        return cls(
            github_app_id=get("GITHUB_APP_ID"),
            github_private_key=key,
            github_webhook_secret=get("GITHUB_WEBHOOK_SECRET"),
            github_api_url=api_url,
            github_token=get("GITHUB_TOKEN"),
            redis_url=get("REDIS_URL"),
            data_dir=Path(get("REVIEWBOT_DATA_DIR") or ".reviewbot"),
            model_base_url=(get("REVIEWBOT_MODEL_BASE_URL") or "").rstrip("/") or None,
            model=get("REVIEWBOT_MODEL") or DEFAULT_MODEL,
            cloudflare_account_id=get("CLOUDFLARE_ACCOUNT_ID"),
            cloudflare_api_token=get("CLOUDFLARE_API_TOKEN"),
            model_timeout=_number(get, "REVIEWBOT_MODEL_TIMEOUT", 600.0),
            job_timeout=_number(get, "REVIEWBOT_JOB_TIMEOUT", 900.0),
            max_jobs=int(_number(get, "REVIEWBOT_MAX_JOBS", 50)),
            installation_concurrency=int(_number(get, "REVIEWBOT_INSTALLATION_CONCURRENCY", 4)),
            shutdown_grace=_number(get, "REVIEWBOT_SHUTDOWN_GRACE", 60.0),
            app_slug=(get("REVIEWBOT_APP_SLUG") or "").lstrip("@") or None,
            command_aliases=tuple(a.strip().lstrip("@") for a in (get("REVIEWBOT_COMMAND_ALIASES") or "").split(",")
                                  if a.strip()),
            model_run_url=(get("REVIEWBOT_MODEL_RUN_URL") or "").rstrip("/") or None,
            async_queue=_flag(get, "REVIEWBOT_ASYNC_QUEUE", True) is not False,
            async_poll_s=_number(get, "REVIEWBOT_ASYNC_POLL", 20.0),
            reject_if_busy=_flag(get, "REVIEWBOT_REJECT_IF_BUSY", None),
            model_retries=int(_number(get, "REVIEWBOT_MODEL_RETRIES", 3)),
            model_backoff_s=_number(get, "REVIEWBOT_MODEL_BACKOFF", 1.0),
            model_rpm=_number(get, "REVIEWBOT_MODEL_RPM", 240.0),
            thinking=_flag(get, "REVIEWBOT_MODEL_THINKING", None),
            max_tool_turns=int(_number(get, "REVIEWBOT_MAX_TOOL_TURNS", 8)),
            review_token_budget=int(_number(get, "REVIEWBOT_REVIEW_TOKEN_BUDGET", 600_000)),
            max_completion_tokens=int(_number(get, "REVIEWBOT_MAX_COMPLETION_TOKENS", 16_000)),
            prices=_prices(get("REVIEWBOT_PRICES")),
            daily_budget_usd=_optional(get, "REVIEWBOT_DAILY_BUDGET_USD"),
            daily_budget_tokens=_int_or_none(_optional(get, "REVIEWBOT_DAILY_BUDGET_TOKENS")),
            github_client_id=get("GITHUB_CLIENT_ID"),
            github_url=_url(get, "GITHUB_URL") or _web_url(api_url),
            public_url=_url(get, "REVIEWBOT_PUBLIC_URL"),
            rate_limit_wait=_number(get, "REVIEWBOT_RATE_LIMIT_WAIT", 30.0),
            write_interval=_number(get, "REVIEWBOT_WRITE_INTERVAL", 1.0),
            prompt_budget=_bounded_int(get, "REVIEWBOT_PROMPT_TOKENS", 100_000, 8_000, 200_000),
            repo_cache_mb=_bounded_int(get, "REVIEWBOT_REPO_CACHE_MB", 2_048, 100, 1_000_000),
            dashboard_token=_dashboard_token(get("REVIEWBOT_DASHBOARD_TOKEN")),
            ledger_days=max(1, int(_number(get, "REVIEWBOT_LEDGER_DAYS", 90))),
            log_format=_choice(get, "REVIEWBOT_LOG_FORMAT", ("auto", "json", "text"), "auto"),
        )

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")) -> Settings:
        """The process environment over an optional .env file (the environment wins)."""
        merged: dict[str, str] = {}
        if env_file is not None and env_file.is_file():
            merged.update({k: v for k, v in dotenv_values(env_file).items() if v is not None})
        merged.update(os.environ if environ is None else environ)
        return cls.from_mapping(merged)

    @property
    def is_cloudflare(self) -> bool:
        return self.model_base_url is None or "api.cloudflare.com" in self.model_base_url

    @property
    def run_url(self) -> str | None:
        """The native `/ai/run/{model}` endpoint (asynchronous queue), derived from a Workers AI base URL."""
        if self.model_run_url:
            return self.model_run_url
        base = self.chat_base_url if (self.model_base_url or self.cloudflare_account_id) else ""
        if base.endswith("/ai/v1"):
            return f"{base.removesuffix('/v1')}/run/{self.model}"
        return None

    @property
    def chat_base_url(self) -> str:
        """The OpenAI-compatible base; requests go to `{base}/chat/completions`."""
        if self.model_base_url:
            return self.model_base_url
        if not self.cloudflare_account_id:
            raise ConfigError("set CLOUDFLARE_ACCOUNT_ID (or REVIEWBOT_MODEL_BASE_URL) to reach the model")
        return CLOUDFLARE_BASE.format(account=self.cloudflare_account_id)

    def missing_for_github(self) -> list[str]:
        """Variables the GitHub App needs that are not set."""
        missing = [] if self.github_app_id else ["GITHUB_APP_ID"]
        if not self.github_private_key:
            missing.append("GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH")
        if not self.github_webhook_secret:
            missing.append("GITHUB_WEBHOOK_SECRET")
        return missing

    def missing_for_model(self) -> list[str]:
        """Variables a model request needs that are not set."""
        missing = [] if self.cloudflare_api_token else ["CLOUDFLARE_API_TOKEN"]
        if not self.model_base_url and not self.cloudflare_account_id:
            missing.append("CLOUDFLARE_ACCOUNT_ID (or REVIEWBOT_MODEL_BASE_URL)")
        return missing

    def require(self, missing: list[str], what: str) -> None:
        """Raise a ConfigError that names every missing variable."""
        if missing:
            raise ConfigError(f"{what} needs: " + ", ".join(missing))

    @property
    def secrets(self) -> list[str]:
        """Values that must never appear in logs or output."""
        values = [self.github_private_key, self.github_webhook_secret, self.github_token,
                  self.cloudflare_api_token, self.dashboard_token]
        return [v for v in values if v]


def _getter(env: Mapping[str, str]) -> _Get:
    def get(name: str) -> str | None:
        value = env.get(name)
        return value.strip() if value and value.strip() else None

    return get


def _url(get: _Get, name: str) -> str | None:
    raw = get(name)
    if raw is None:
        return None
    parsed = urllib.parse.urlsplit(raw)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ConfigError(f"{name} must be an http(s) URL like https://example.com, got {raw!r}")
    return raw.rstrip("/")


def _web_url(api_url: str) -> str:
    """github.com for the public API; for GitHub Enterprise Server (`https://HOST/api/v3`), `https://HOST`."""
    parts = urllib.parse.urlsplit(api_url)
    if parts.path.rstrip("/").endswith("/api/v3"):
        return f"{parts.scheme}://{parts.netloc}"
    return DEFAULT_GITHUB_URL


def _number(get: _Get, name: str, default: float) -> float:
    raw = get(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be positive, got {raw!r}")
    return value


def _flag(get: _Get, name: str, default: bool | None) -> bool | None:
    raw = get(name)
    if raw is None:
        return default
    lowered = raw.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name} must be on or off, got {raw!r}")


def _choice(get: _Get, name: str, allowed: tuple[str, ...], default: str) -> str:
    raw = (get(name) or default).lower()
    if raw not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(allowed)}, got {raw!r}")
    return raw


def _dashboard_token(raw: str | None) -> str | None:
    if raw is not None and len(raw) < 16:  # it guards cost data over the network: no short guessable words
        raise ConfigError("REVIEWBOT_DASHBOARD_TOKEN must be at least 16 characters (try `openssl rand -hex 24`)")
    return raw


def _optional(get: _Get, name: str) -> float | None:
    return _number(get, name, 0.0) if get(name) is not None else None


def _int_or_none(value: float | None) -> int | None:
    return None if value is None else int(value)


def _prices(raw: str | None) -> dict[str, Price]:
    if raw is None:
        return dict(DEFAULT_PRICES)
    try:
        return parse_prices(raw)
    except ValueError as exc:
        raise ConfigError(f"REVIEWBOT_PRICES: {exc}") from None
def _bounded_int(get: _Get, name: str, default: int, low: int, high: int) -> int:
    value = _number(get, name, default)
    if value != int(value) or not low <= value <= high:
        raise ConfigError(f"{name} must be a whole number from {low:,} to {high:,}, got {get(name)!r}")
    return int(value)
