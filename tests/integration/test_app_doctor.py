"""`reviewbot doctor` against the fakes: a table that says what works and what to fix, and its exit status."""

from __future__ import annotations

import asyncio
import io
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from redis.asyncio import Redis

from reviewbot.cli.github_app import doctor_command
from reviewbot.inference.budget import DailyBudget, Limits
from reviewbot.model import Usage
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.model import FakeModel


def doctor(environ: dict[str, str]) -> tuple[int, dict[str, str], str]:
    """Exit status, the status of each check, and the whole table."""
    out = io.StringIO()
    code = doctor_command(environ, env_file=None, out=out)
    table = out.getvalue()
    rows = {line[:14].strip(): line[14:].split()[0] for line in table.splitlines()[1:] if line[:1].strip()}
    return code, rows, table


def test_a_working_setup_passes_every_check(env: dict[str, str], fake_model: FakeModel) -> None:
    code, rows, table = doctor(env | {"REVIEWBOT_PUBLIC_URL": "https://bot.example.com"})
    assert code == 0, table
    assert rows == {"configuration": "ok", "GitHub App": "ok", "installations": "ok", "webhooks": "ok",
                    "Redis": "ok", "budgets": "ok", "catalogue": "ok", "model": "ok"}
    assert "$10.00 a day per installation; nothing spent today (UTC)" in table  # the default protects
    assert "reviewbot-test (id 4242)" in table
    [ping] = fake_model.requests
    assert ping.json["max_tokens"] == 1


async def test_doctor_shows_what_is_left_of_todays_budgets(env: dict[str, str]) -> None:
    client = Redis.from_url(env["REDIS_URL"])
    try:
        budget = DailyBudget(client, Limits(usd=10.0))
        await budget.charge(INSTALLATION, REPO, "job-1", Usage(prompt_tokens=5_000, cost_usd=9.25))
        await budget.reserve(INSTALLATION, REPO, "job-2", usd=0.5, tokens=1_000)  # a review running now
    finally:
        await client.aclose()
    environ = env | {"REVIEWBOT_REPO_DAILY_BUDGET_TOKENS": "20000"}
    code, rows, table = await asyncio.to_thread(doctor, environ)
    assert rows["budgets"] == "warn" and code == 0  # low, not broken
    assert f"installation {INSTALLATION}: $9.25 spent, $0.50 held, $0.25 left" in table
    assert f"{REPO}: $9.25 spent, $0.50 held, 14,000 tokens left" in table
    assert "raise REVIEWBOT_DAILY_BUDGET_USD" in table


def test_the_embedded_redis_is_checked_when_redis_url_is_unset(env: dict[str, str]) -> None:
    data = tempfile.mkdtemp(prefix="rb-doc-", dir="/tmp")
    environ = {k: v for k, v in env.items() if k != "REDIS_URL"} | {"REVIEWBOT_DATA_DIR": data}
    code, rows, table = doctor(environ)
    assert rows["Redis"] == "ok" and "embedded" in table and code == 0


def test_a_broken_setup_fails_and_says_what_to_fix(env: dict[str, str]) -> None:
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    code, rows, table = doctor(env | {"GITHUB_PRIVATE_KEY": stranger, "CLOUDFLARE_API_TOKEN": "wrong-token",
                                      "REDIS_URL": "redis://127.0.0.1:1"})
    assert code == 1
    assert rows == {"configuration": "ok", "GitHub App": "FAIL", "webhooks": "warn", "Redis": "FAIL",
                    "budgets": "skip", "catalogue": "ok", "model": "FAIL"}
    assert "private key must belong to the same App" in table and "CLOUDFLARE_API_TOKEN" in table
    assert "REDIS_URL" in table and "REVIEWBOT_PUBLIC_URL" in table
    assert stranger.splitlines()[1] not in table and "wrong-token" not in table


def test_missing_and_invalid_settings_are_named(env: dict[str, str], tmp_path: Path) -> None:
    code, rows, table = doctor(env | {"GITHUB_PRIVATE_KEY_PATH": str(tmp_path / "missing.pem"),
                                      "GITHUB_PRIVATE_KEY": ""})
    assert code == 1 and rows["configuration"] == "FAIL" and "GITHUB_PRIVATE_KEY_PATH" in table
    # The other checks still run, with the bad variable left at its default.
    assert rows["GitHub App"] == "FAIL" and rows["Redis"] == "ok" and rows["model"] == "ok"
    bare = {k: v for k, v in env.items() if not k.startswith("GITHUB_") or k == "GITHUB_API_URL"}
    code, rows, table = doctor(bare)
    assert code == 1 and rows["GitHub App"] == "FAIL" and "reviewbot setup" in table
    assert Settings.from_mapping(bare).missing_for_github()[0] in table
