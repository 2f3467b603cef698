"""Settings from a mapping, with errors that name the variable to set."""

from pathlib import Path

import pytest

from reviewbot.errors import ConfigError
from reviewbot.settings import Settings


def test_defaults_point_at_cloudflare_and_github() -> None:
    s = Settings.from_mapping({"CLOUDFLARE_ACCOUNT_ID": "acc"})
    assert s.github_api_url == "https://api.github.com"
    assert s.model == "@cf/moonshotai/kimi-k2.5"
    assert s.chat_base_url == "https://api.cloudflare.com/client/v4/accounts/acc/ai/v1"
    assert s.redis_url is None and s.data_dir == Path(".reviewbot")


def test_missing_variables_are_named() -> None:
    s = Settings.from_mapping({})
    assert s.missing_for_github() == ["GITHUB_APP_ID", "GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH",
                                      "GITHUB_WEBHOOK_SECRET"]
    with pytest.raises(ConfigError, match="CLOUDFLARE_API_TOKEN"):
        s.require(s.missing_for_model(), "the worker")
    with pytest.raises(ConfigError, match="CLOUDFLARE_ACCOUNT_ID"):
        _ = s.chat_base_url


def test_private_key_from_a_path_and_a_clear_error_when_unreadable(tmp_path: Path) -> None:
    key = tmp_path / "app.pem"
    key.write_text("-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n")
    assert "abc" in (Settings.from_mapping({"GITHUB_PRIVATE_KEY_PATH": str(key)}).github_private_key or "")
    with pytest.raises(ConfigError, match="GITHUB_PRIVATE_KEY_PATH"):
        Settings.from_mapping({"GITHUB_PRIVATE_KEY_PATH": str(tmp_path / "missing.pem")})


def test_bad_numbers_are_rejected_by_name() -> None:
    with pytest.raises(ConfigError, match="REVIEWBOT_MAX_JOBS"):
        Settings.from_mapping({"REVIEWBOT_MAX_JOBS": "lots"})


def test_env_file_is_read_and_the_environment_wins(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("GITHUB_APP_ID=111\nREVIEWBOT_MODEL=from-file\n")
    s = Settings.load({"GITHUB_APP_ID": "222"}, env)
    assert s.github_app_id == "222" and s.model == "from-file"


def test_secrets_are_not_in_the_repr() -> None:
    s = Settings.from_mapping({"GITHUB_WEBHOOK_SECRET": "hush-hush", "CLOUDFLARE_API_TOKEN": "cf-secret"})
    assert "hush-hush" not in repr(s) and "cf-secret" not in repr(s)
    assert set(s.secrets) == {"hush-hush", "cf-secret"}


def test_observability_variables_are_validated_by_name() -> None:
    s = Settings.from_mapping({"REVIEWBOT_DASHBOARD_TOKEN": "t" * 16, "REVIEWBOT_LEDGER_DAYS": "30",
                               "REVIEWBOT_LOG_FORMAT": "JSON"})
    assert (s.ledger_days, s.log_format) == (30, "json") and "t" * 16 in s.secrets and "t" * 16 not in repr(s)
    with pytest.raises(ConfigError, match="REVIEWBOT_DASHBOARD_TOKEN must be at least 16"):
        Settings.from_mapping({"REVIEWBOT_DASHBOARD_TOKEN": "short"})
    with pytest.raises(ConfigError, match="REVIEWBOT_LOG_FORMAT must be one of auto, json, text"):
        Settings.from_mapping({"REVIEWBOT_LOG_FORMAT": "xml"})
    with pytest.raises(ConfigError, match="REVIEWBOT_LEDGER_DAYS"):
        Settings.from_mapping({"REVIEWBOT_LEDGER_DAYS": "-1"})
