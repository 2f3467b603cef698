"""`reviewbot doctor` against the fakes: a table that says what works and what to fix, and its exit status."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from reviewbot.cli.github_app import doctor_command
from reviewbot.settings import Settings
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
                    "Redis": "ok", "catalogue": "ok", "model": "ok"}
    assert "reviewbot-test (id 4242)" in table
    [ping] = fake_model.requests
    assert ping.json["max_tokens"] == 1


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
                    "catalogue": "ok", "model": "FAIL"}
    assert "private key must belong to the same App" in table and "CLOUDFLARE_API_TOKEN" in table
    assert "REDIS_URL" in table and "REVIEWBOT_PUBLIC_URL" in table
    assert stranger.splitlines()[1] not in table and "wrong-token" not in table


def test_missing_and_invalid_settings_are_named(env: dict[str, str], tmp_path: Path) -> None:
    code, rows, table = doctor(env | {"GITHUB_PRIVATE_KEY_PATH": str(tmp_path / "missing.pem"),
                                      "GITHUB_PRIVATE_KEY": ""})
    assert code == 1 and rows == {"configuration": "FAIL"} and "GITHUB_PRIVATE_KEY_PATH" in table
    bare = {k: v for k, v in env.items() if not k.startswith("GITHUB_") or k == "GITHUB_API_URL"}
    code, rows, table = doctor(bare)
    assert code == 1 and rows["GitHub App"] == "FAIL" and "reviewbot setup" in table
    assert Settings.from_mapping(bare).missing_for_github()[0] in table
