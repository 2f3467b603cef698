"""`reviewbot doctor`: the configuration, the App's key, Redis and the model, each tried for real, in a table."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Literal

import httpx
from redis.asyncio import Redis
from redis.exceptions import RedisError

from reviewbot.app.app_api import AppApi
from reviewbot.errors import ConfigError, GitHubError, GitHubRetryable
from reviewbot.inference.budget import DailyBudget, Limits, today
from reviewbot.queue.embedded import EmbeddedRedis
from reviewbot.settings import Settings
from reviewbot.settings.catalogue import capabilities, model_warnings
from reviewbot.settings.envcheck import Unknown, describe
from reviewbot.state.shared_keys import SPEND_PATTERN

Status = Literal["ok", "warn", "FAIL", "skip"]


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""


async def github_checks(settings: Settings) -> list[Check]:
    missing = settings.missing_for_github()
    if missing:
        return [Check("GitHub App", "FAIL", "not configured: " + ", ".join(missing),
                      "run `reviewbot setup` (or `./dev run` and open /setup), or set these variables"),
                Check("installations", "skip", "needs the GitHub App")]
    api = AppApi.from_settings(settings)
    try:
        app = await api.get_app()
        installations = await api.installations()
    except ConfigError as exc:
        return [Check("GitHub App", "FAIL", str(exc), "set GITHUB_PRIVATE_KEY(_PATH) to the App's .pem file")]
    except GitHubRetryable as exc:
        return [Check("GitHub App", "FAIL", f"cannot reach {settings.github_api_url}: {exc}",
                      "check GITHUB_API_URL (GitHub Enterprise: https://HOST/api/v3) and the network")]
    except GitHubError as exc:
        return [Check("GitHub App", "FAIL", f"GitHub refused the App's JWT ({exc.status})",
                      "GITHUB_APP_ID (or GITHUB_CLIENT_ID) and the private key must belong to the same App; "
                      "generate a new key in the App's settings")]
    finally:
        api.close()
    if str(app.get("id")) != settings.github_app_id:
        return [Check("GitHub App", "FAIL", f"the key belongs to App {app.get('id')}, not {settings.github_app_id}",
                      "set GITHUB_APP_ID to the App the key belongs to")]
    found = Check("GitHub App", "ok", f"{app.get('slug')} (id {app.get('id')}) at {settings.github_api_url}")
    if not installations:
        return [found, Check("installations", "warn", "the App is not installed anywhere yet",
                             f"install it: {app.get('html_url')}/installations/new")]
    accounts = ", ".join(str((i.get("account") or {}).get("login")) for i in installations[:5])
    return [found, Check("installations", "ok", f"{len(installations)} ({accounts})")]


def webhook_check(settings: Settings) -> Check:
    if settings.public_url:
        return Check("webhooks", "ok", f"GitHub delivers to {settings.public_url}")
    return Check("webhooks", "warn", "REVIEWBOT_PUBLIC_URL is not set",
                 "set it to the address GitHub can reach (a tunnel for local use), then update the App's webhook URL")


async def redis_check(settings: Settings) -> list[Check]:
    """Redis answers; then, through it, what is left of today's budgets."""
    embedded = None if settings.redis_url else EmbeddedRedis(settings.data_dir)
    where = "REDIS_URL" if settings.redis_url else f"the embedded Redis under {settings.data_dir}"
    try:
        url = await asyncio.to_thread(embedded.start) if embedded is not None else str(settings.redis_url)
        client = Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
        try:
            await client.ping()
            budgets = await budget_check(settings, client)
        finally:
            await client.aclose()
    except (RedisError, OSError, ConfigError) as exc:
        return [Check("Redis", "FAIL", f"{where} does not answer: {exc}",
                      "start Redis or fix REDIS_URL (unset it to use the embedded one)"),
                Check("budgets", "skip", "needs Redis")]
    finally:
        if embedded is not None:
            embedded.stop()  # only stops a server this check started
    return [Check("Redis", "ok", f"{where} answers PING"), budgets]


async def budget_check(settings: Settings, redis: Redis) -> Check:
    """Today's spend, holds and what is left, per installation and repository that spent anything today."""
    budget = DailyBudget(redis, Limits(settings.daily_budget_usd, settings.daily_budget_tokens),
                         Limits(settings.repo_daily_budget_usd, settings.repo_daily_budget_tokens))
    limit = settings.daily_budget_usd
    if limit is None or math.isinf(limit):
        head = "no daily dollar budget per installation (REVIEWBOT_DAILY_BUDGET_USD=off)"
    else:
        head = f"${limit:.2f} a day per installation"
    lines, low = [], False
    async for raw in redis.scan_iter(match=f"{SPEND_PATTERN}:{today()}", count=500):
        key = raw.decode()
        name = key.split(":", 2)[2].rsplit(":", 1)[0]
        scope = budget.limits[1] if name.startswith("repo:") else budget.limits[0]
        state = await budget.spent(key)
        text = f"{name.replace('repo:', '', 1) if name.startswith('repo:') else 'installation ' + name}: " \
               f"${state.usd:.2f} spent, ${state.held_usd:.2f} held"
        if scope.usd is not None and not math.isinf(scope.usd):
            left = max(0.0, scope.usd - state.usd - state.held_usd)
            low = low or left < scope.usd * 0.1
            text += f", ${left:.2f} left"
        if scope.tokens is not None:
            text += f", {max(0, scope.tokens - state.tokens - state.held_tokens):,} tokens left"
        lines.append(text)
    detail = head + ("; today: " + "; ".join(sorted(lines)[:10]) if lines else "; nothing spent today (UTC)")
    return Check("budgets", "warn" if low else "ok", detail,
                 "reviews that do not fit wait for 00:00 UTC; raise REVIEWBOT_DAILY_BUDGET_USD to allow more")


async def model_check(settings: Settings, http: httpx.AsyncClient) -> Check:
    missing = settings.missing_for_model()
    if missing:
        return Check("model", "FAIL", "not configured: " + ", ".join(missing), "set these variables")
    body = {"model": settings.model, "messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 1}
    url = f"{settings.chat_base_url}/chat/completions"
    try:
        response = await http.post(url, json=body, headers={"Authorization": f"Bearer {settings.cloudflare_api_token}"})
    except httpx.HTTPError as exc:
        return Check("model", "FAIL", f"cannot reach {url}: {type(exc).__name__}",
                     "check REVIEWBOT_MODEL_BASE_URL / CLOUDFLARE_ACCOUNT_ID and the network")
    if response.status_code in (401, 403):
        return Check("model", "FAIL", f"the provider refused the token ({response.status_code})",
                     "check CLOUDFLARE_API_TOKEN (Workers AI needs the 'Workers AI: Read' permission)")
    if response.status_code != 200:
        return Check("model", "FAIL", f"{url} answered {response.status_code}: {response.text[:200]}",
                     "check REVIEWBOT_MODEL and the base URL")
    served = str(response.json().get("model") or settings.model)
    return Check("model", "ok", f"{settings.model} answered" + (f" (served by {served})"
                                                                 if served != settings.model else ""))


def catalogue_check(settings: Settings) -> Check:
    """What the published model catalogue says about REVIEWBOT_MODEL (no request)."""
    if warnings := model_warnings(settings.model, settings.thinking):
        return Check("catalogue", "warn", "; ".join(warnings),
                     "set REVIEWBOT_MODEL to @cf/moonshotai/kimi-k2.6 or @cf/moonshotai/kimi-k2.7-code")
    caps = capabilities(settings.model)
    queue = "asynchronous queue" if caps.async_queue else "no asynchronous queue (busy answers are deferred)"
    return Check("catalogue", "ok", f"{settings.model}: {caps.context_window:,}-token window, {queue}")


def configuration_check(errors: list[str], unknown: list[Unknown]) -> Check:
    """Every bad value, then names nothing reads (a typo leaves its setting at the default without a word)."""
    if errors:
        return Check("configuration", "FAIL", "; ".join(errors) + (f"; {describe(unknown)}" if unknown else ""),
                     "fix the variables named above (the other checks ran with their defaults)")
    if unknown:
        return Check("configuration", "warn", describe(unknown), "rename or remove them (docs/configuration.md "
                     "lists every variable)")
    return Check("configuration", "ok", "the environment and .env are valid")


async def run_checks(settings: Settings, http: httpx.AsyncClient, configured: Check | None = None) -> list[Check]:
    configured = configured or Check("configuration", "ok", "the environment and .env are valid")
    return [configured, *await github_checks(settings), webhook_check(settings), *await redis_check(settings),
            catalogue_check(settings), await model_check(settings, http)]


def render(checks: list[Check]) -> str:
    width = max(len(c.name) for c in checks)
    lines = [f"{'check':<{width}}  status  details"]
    for c in checks:
        lines.append(f"{c.name:<{width}}  {c.status:<6}  {c.detail}")
        if c.fix and c.status in ("FAIL", "warn"):
            lines.append(f"{'':<{width}}          fix: {c.fix}")
    return "\n".join(lines)


def exit_code(checks: list[Check]) -> int:
    return 1 if any(c.status == "FAIL" for c in checks) else 0
