"""Settings built from a mapping (the environment plus an optional .env), validated with clear errors."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dotenv import dotenv_values

from reviewbot.errors import ConfigError

DEFAULT_MODEL = "@cf/moonshotai/kimi-k2.5"
DEFAULT_GITHUB_API_URL = "https://api.github.com"
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
    max_jobs: int = 10
    # context engine (issue 5)
    prompt_budget: int = 100_000
    repo_cache_mb: int = 2_048

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
        return cls(
            github_app_id=get("GITHUB_APP_ID"),
            github_private_key=key,
            github_webhook_secret=get("GITHUB_WEBHOOK_SECRET"),
            github_api_url=(get("GITHUB_API_URL") or DEFAULT_GITHUB_API_URL).rstrip("/"),
            github_token=get("GITHUB_TOKEN"),
            redis_url=get("REDIS_URL"),
            data_dir=Path(get("REVIEWBOT_DATA_DIR") or ".reviewbot"),
            model_base_url=(get("REVIEWBOT_MODEL_BASE_URL") or "").rstrip("/") or None,
            model=get("REVIEWBOT_MODEL") or DEFAULT_MODEL,
            cloudflare_account_id=get("CLOUDFLARE_ACCOUNT_ID"),
            cloudflare_api_token=get("CLOUDFLARE_API_TOKEN"),
            model_timeout=_number(get, "REVIEWBOT_MODEL_TIMEOUT", 600.0),
            job_timeout=_number(get, "REVIEWBOT_JOB_TIMEOUT", 900.0),
            max_jobs=int(_number(get, "REVIEWBOT_MAX_JOBS", 10)),
            prompt_budget=_bounded_int(get, "REVIEWBOT_PROMPT_TOKENS", 100_000, 8_000, 200_000),
            repo_cache_mb=_bounded_int(get, "REVIEWBOT_REPO_CACHE_MB", 2_048, 100, 1_000_000),
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
                  self.cloudflare_api_token]
        return [v for v in values if v]


def _getter(env: Mapping[str, str]) -> _Get:
    def get(name: str) -> str | None:
        value = env.get(name)
        return value.strip() if value and value.strip() else None

    return get


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


def _bounded_int(get: _Get, name: str, default: int, low: int, high: int) -> int:
    value = _number(get, name, default)
    if value != int(value) or not low <= value <= high:
        raise ConfigError(f"{name} must be a whole number from {low:,} to {high:,}, got {get(name)!r}")
    return int(value)
