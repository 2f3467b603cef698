"""The Settings table: every environment variable reviewbot reads, declared once with its parser, default and help."""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dotenv import dotenv_values

from reviewbot.errors import ConfigError
from reviewbot.settings import parsers as p
from reviewbot.settings.catalogue import DEFAULT_PRICES, Price
from reviewbot.settings.declare import env, read

DEFAULT_MODEL = "@cf/moonshotai/kimi-k2.6"
DEFAULT_GITHUB_API_URL = "https://api.github.com"
DEFAULT_GITHUB_URL = "https://github.com"
DEFAULT_DAILY_BUDGET_USD = 10.0  # a new installation is protected: about 150 typical reviews of Kimi K2.5 a day
CLOUDFLARE_BASE = "https://api.cloudflare.com/client/v4/accounts/{account}/ai/v1"


@dataclass(frozen=True)
class Settings:
    """Every knob reviewbot has; build with `Settings.from_mapping`."""

    github_app_id: str | None = env("GITHUB_APP_ID", p.text, None, "The App's id (JWT issuer).")
    github_private_key: str | None = env(
        "GITHUB_PRIVATE_KEY", p.private_key, None, "The App's private key (PEM), inline (`\\n` allowed) or as a file.",
        also=("GITHUB_PRIVATE_KEY_PATH",), secret=True)
    github_webhook_secret: str | None = env(
        "GITHUB_WEBHOOK_SECRET", p.text, None, "Webhook secret; without it every delivery is refused (503).",
        secret=True)
    marker_secret: str | None = env(
        "REVIEWBOT_MARKER_SECRET", p.text, None,
        "Key that authenticates the hidden markers in reviewbot's comments (fingerprints, reviewed SHA). Unset: "
        "derived from GITHUB_WEBHOOK_SECRET (or the private key, or GITHUB_TOKEN). Changing it makes the next "
        "review treat earlier findings as new.", secret=True, shown="derived from the webhook secret")
    github_api_url: str = env("GITHUB_API_URL", p.url, DEFAULT_GITHUB_API_URL,
                              "GitHub Enterprise: `https://HOST/api/v3` (GraphQL: `https://HOST/api/graphql`).")
    github_token: str | None = env("GITHUB_TOKEN", p.text, None, "Personal token for CLI one-offs.", secret=True)
    redis_url: str | None = env("REDIS_URL", p.text, None,
                                "`redis://…`, `rediss://…` or `unix://…`. Unset: an embedded Redis under the data dir.",
                                shown="unset → embedded")
    data_dir: Path = env("REVIEWBOT_DATA_DIR", p.data_dir, Path("~/.local/share/reviewbot"),
                         "Embedded Redis data (append-only file) and socket, cached trees, the context index, "
                         "audits, the App's private key. Never the working directory: a repository you review "
                         "stays clean.", shown="`$XDG_DATA_HOME/reviewbot`, else `~/.local/share/reviewbot`")
    model_base_url: str | None = env(
        "REVIEWBOT_MODEL_BASE_URL", p.base_url, None,
        "Any OpenAI-compatible base; requests go to `{base}/chat/completions`.",
        shown="Cloudflare's `…/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1`")
    model: str = env(
        "REVIEWBOT_MODEL", p.text, DEFAULT_MODEL,
        "Model id: `@cf/moonshotai/kimi-k2.6` (K2.5's successor), `@cf/moonshotai/kimi-k2.5` (deprecated, "
        "served and priced as K2.6) or `@cf/moonshotai/kimi-k2.7-code`; other ids get safe defaults and a warning.")
    cloudflare_account_id: str | None = env("CLOUDFLARE_ACCOUNT_ID", p.text, None,
                                            "Used to build the default base URL.")
    cloudflare_api_token: str | None = env("CLOUDFLARE_API_TOKEN", p.text, None,
                                           "Sent as `Authorization: Bearer`.", secret=True)
    model_timeout: float = env("REVIEWBOT_MODEL_TIMEOUT", p.number, 600.0,
                               "Seconds to wait for a model answer (read timeout; connect is 10 s).")
    job_timeout: float = env(
        "REVIEWBOT_JOB_TIMEOUT", p.number, 900.0,
        "A review's time limit: reviewbot stops it a little before (10%, 1 to 30 s) and says so in the check run; "
        "a killed worker's job runs again after REVIEWBOT_JOB_LEASE, not this.")
    job_lease: float = env(
        "REVIEWBOT_JOB_LEASE", p.number, 15.0,
        "Seconds a running job's claim lasts unless its worker renews it (every third of this): a killed worker's "
        "job runs again this long after the kill (a GitHub write it had begun holds others' back 7/3 as long); a "
        "worker stalled longer loses the job to another.")
    retry_delay: float = env("REVIEWBOT_RETRY_DELAY", p.number, 10.0,
                             "Seconds before a failed job's first retry; each next one waits twice as long (at "
                             "most 300 s), all ±20%.")
    max_jobs: int = env("REVIEWBOT_MAX_JOBS", p.count, 50, "Concurrent jobs per worker process.")
    installation_concurrency: int = env("REVIEWBOT_INSTALLATION_CONCURRENCY", p.count, 4,
                                        "Running reviews per installation, across all workers.")
    audit_chunk_tokens: int = env("REVIEWBOT_AUDIT_CHUNK_TOKENS", p.count, 120_000,
                                  "Code per chunk of a service audit, in tokens (one job and request per chunk).")
    audit_push_delay: float = env("REVIEWBOT_AUDIT_PUSH_DELAY", p.number, 600.0,
                                  "Seconds from a push to the default branch to the audit it starts (`audit: "
                                  "{on_push: true}`); further pushes in that time add nothing to it.")
    sarif_poll: float = env("REVIEWBOT_SARIF_POLL", p.number, 5.0,
                            "Seconds before the first look at whether GitHub processed an audit's SARIF upload; "
                            "the next looks wait 2, 4, 6, then 12 times as long.")
    shutdown_grace: float = env("REVIEWBOT_SHUTDOWN_GRACE", p.number, 60.0,
                                "Seconds a stopping worker lets running reviews finish.")
    app_slug: str | None = env("REVIEWBOT_APP_SLUG", p.slug, None, "The name comments mention (`@slug review`).",
                               shown="from `GET /app`")
    command_aliases: tuple[str, ...] = env("REVIEWBOT_COMMAND_ALIASES", p.names, (),
                                           "Comma-separated extra names the bot answers to.")
    model_run_url: str | None = env(
        "REVIEWBOT_MODEL_RUN_URL", p.base_url, None,
        "The native `/ai/run/{model}` URL, when it cannot be derived from the base URL.", shown="derived")
    async_queue: bool = env("REVIEWBOT_ASYNC_QUEUE", p.switch, True,
                            "Fall back to the provider's asynchronous queue.")
    async_poll_s: float = env("REVIEWBOT_ASYNC_POLL", p.number, 20.0, "Seconds between polls of the queue.")
    reject_if_busy: bool | None = env(
        "REVIEWBOT_REJECT_IF_BUSY", p.switch, None,
        "Send `options.rejectIfBusy` and go to the queue at the first 3040.", shown="on for Cloudflare")
    model_retries: int = env("REVIEWBOT_MODEL_RETRIES", p.count, 3, "Synchronous attempts at a model request.")
    model_backoff_s: float = env("REVIEWBOT_MODEL_BACKOFF", p.number, 1.0,
                                 "The first backoff between attempts, in seconds.")
    model_rpm: float = env("REVIEWBOT_MODEL_RPM", p.number, 240.0,
                           "Model requests per minute, for all workers together.")
    thinking: bool | None = env("REVIEWBOT_MODEL_THINKING", p.switch, None,
                                "`on`/`off`: the model's thinking switch (`chat_template_kwargs.enable_thinking`; "
                                "K2.7-code always thinks).", shown="unset")
    max_tool_turns: int = env("REVIEWBOT_MAX_TOOL_TURNS", p.count, 8, "Tool turns before the model must answer.")
    conversation_pr_limit: int = env("REVIEWBOT_CONVERSATION_PR_LIMIT", p.count, 20,
                                     "Questions answered in review threads per pull request per day (UTC).")
    fixes: str = env("REVIEWBOT_FIXES", p.choice("off", "suggest", "push"), "off",
                     "`@app fix` and the check run's Fix button: off; suggest (suggestion blocks or a patch, never "
                     "a push); push (one commit on a same-repository pull request's branch, and audits' fix pull "
                     "requests; asks for contents: write).")
    fix_max_findings: int = env("REVIEWBOT_FIX_MAX_FINDINGS", p.count, 5,
                                "Findings one pull-request-wide `@app fix` takes on (the most severe first).")
    conversation_user_limit: int = env("REVIEWBOT_CONVERSATION_USER_LIMIT", p.count, 10,
                                       "Questions answered in review threads per person per day, over all the "
                                       "installation's repositories.")
    learning_ttl_days: int = env("REVIEWBOT_LEARNING_TTL_DAYS", p.days, 180,
                                 "Days a dismissal remembered from a review thread holds findings back (then it "
                                 "expires; `@reviewbot dismiss` again to renew it).")
    vision: str = env("REVIEWBOT_VISION", p.choice("auto", "on", "off"), "auto",
                      "Send PR-description screenshots to the model: auto (when the model is known to read images), "
                      "on, off.")
    max_images: int = env("REVIEWBOT_MAX_IMAGES", p.count, 3,
                          "GitHub-hosted images from a PR description downloaded (failed downloads count) and sent to "
                          "a model that reads images (0: none).")
    max_image_bytes: int = env("REVIEWBOT_MAX_IMAGE_BYTES", p.count, 5_000_000,
                               "Largest image downloaded, and the most bytes of images one review downloads.")
    max_image_pixels: int = env("REVIEWBOT_MAX_IMAGE_PIXELS", p.count, 40_000_000,
                                "Images with more pixels are skipped (decompression bombs); others are downscaled "
                                "to at most 1,568 px on the long side.")
    review_token_budget: int = env(
        "REVIEWBOT_REVIEW_TOKEN_BUDGET", p.count, 600_000,
        "Tokens (prompt + completion) one review may be billed over all its passes, verification batches and "
        "tool turns together.")
    max_completion_tokens: int = env("REVIEWBOT_MAX_COMPLETION_TOKENS", p.count, 16_000,
                                     "`max_completion_tokens` per request (reasoning tokens count too); a "
                                     "truncated answer is asked again once with twice the room.")
    prices: dict[str, Price] = env("REVIEWBOT_PRICES", p.prices, DEFAULT_PRICES,
                                   "JSON prices per model (see \"The model\").", shown="built in")
    daily_budget_usd: float | None = env(
        "REVIEWBOT_DAILY_BUDGET_USD", p.dollars_or_off, DEFAULT_DAILY_BUDGET_USD,
        "Per-installation daily budget in US dollars (UTC days); every paid request counts, failed reviews too. "
        "`off` for none.")
    daily_budget_tokens: int | None = env("REVIEWBOT_DAILY_BUDGET_TOKENS", p.count, None,
                                          "Per-installation daily budget in tokens (UTC days).")
    repo_daily_budget_usd: float | None = env("REVIEWBOT_REPO_DAILY_BUDGET_USD", p.number, None,
                                              "Per-repository daily budget in US dollars (UTC days).")
    repo_daily_budget_tokens: int | None = env("REVIEWBOT_REPO_DAILY_BUDGET_TOKENS", p.count, None,
                                               "Per-repository daily budget in tokens (UTC days).")
    github_client_id: str | None = env(
        "GITHUB_CLIENT_ID", p.text, None,
        "The App's client id; when set it is the JWT issuer (GitHub's recommendation). Written by the setup.")
    github_url: str = env("GITHUB_URL", p.github_web_url, DEFAULT_GITHUB_URL,
                          "GitHub's web address, where the App is created.",
                          shown="`https://github.com`, or `https://HOST` for `https://HOST/api/v3`")
    public_url: str | None = env(
        "REVIEWBOT_PUBLIC_URL", p.url, None,
        "Where GitHub reaches this service (a tunnel for local use); webhooks go to `{it}/webhooks/github` "
        "(a smee.io channel: to the channel).")
    rate_limit_wait: float = env(
        "REVIEWBOT_RATE_LIMIT_WAIT", p.number, 30.0,
        "Longest wait (seconds) for a GitHub rate limit inside a job; longer ones defer the job.")
    write_interval: float = env(
        "REVIEWBOT_WRITE_INTERVAL", p.number, 1.0,
        "Seconds between content-creating GitHub requests of one installation (GitHub's guidance).")
    prompt_budget: int = env(
        "REVIEWBOT_PROMPT_TOKENS", p.bounded(8_000, 200_000), 100_000,
        "Prompt budget in tokens (8,000–200,000); a repository's `budget` overrides it.")
    repo_cache_mb: int = env(
        "REVIEWBOT_REPO_CACHE_MB", p.bounded(100, 1_000_000), 2_048,
        "Disk for cached base trees under the data dir; least recently used trees go first.")
    dashboard_token: str | None = env(
        "REVIEWBOT_DASHBOARD_TOKEN", p.long_secret, None,
        "Required for `/dashboard` and `/metrics` when set; at least 16 characters. Without it both work only on "
        "a loopback listen address.", secret=True)
    ledger_days: int = env("REVIEWBOT_LEDGER_DAYS", p.days, 90, "Days of usage-ledger records kept in Redis.")
    log_format: str = env("REVIEWBOT_LOG_FORMAT", p.choice("auto", "json", "text"), "auto",
                          "`json` (one object per line), `text`, or `auto`: text on a terminal, JSON otherwise.")

    def __post_init__(self) -> None:
        # The declared default is `~/…`: expanded when settings are built, never at import.
        object.__setattr__(self, "data_dir", self.data_dir.expanduser())

    @classmethod
    def from_mapping(cls, env: Mapping[str, str]) -> Settings:
        """Read every variable from `env`; raise ConfigError naming what is wrong."""
        return cls(**read(cls, p.getter(env)))

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
        # A server of one's own (llama.cpp, Ollama, vLLM) often wants no key: only Workers AI always does.
        missing = [] if self.cloudflare_api_token or not self.is_cloudflare else ["CLOUDFLARE_API_TOKEN"]
        if not self.model_base_url and not self.cloudflare_account_id:
            missing.append("CLOUDFLARE_ACCOUNT_ID (or REVIEWBOT_MODEL_BASE_URL)")
        return missing

    def require(self, missing: list[str], what: str) -> None:
        """Raise a ConfigError that names every missing variable."""
        if missing:
            raise ConfigError(f"{what} needs: " + ", ".join(missing))

    def marker_key(self) -> bytes:
        """The HMAC key for hidden markers: only this server can write one that later reviews believe."""
        for name, value in (("marker", self.marker_secret), ("webhook", self.github_webhook_secret),
                            ("private-key", self.github_private_key), ("token", self.github_token)):
            if value:
                return hmac.new(value.encode(), f"reviewbot markers v1 {name}".encode(), hashlib.sha256).digest()
        raise ConfigError("posting a review needs REVIEWBOT_MARKER_SECRET (or GITHUB_WEBHOOK_SECRET) to sign its "
                          "hidden markers")

    @property
    def secrets(self) -> list[str]:
        """Values that must never appear in logs or output."""
        values = [self.github_private_key, self.github_webhook_secret, self.marker_secret, self.github_token,
                  self.cloudflare_api_token, self.dashboard_token]
        return [v for v in values if v]
