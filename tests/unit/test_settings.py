"""Settings from a mapping, with errors that name the variable to set."""

import dataclasses
import runpy
import sys
from pathlib import Path

import pytest

from reviewbot.errors import ConfigError
from reviewbot.settings import Settings, settings_markdown, settings_table

# Found by walking up, so the test keeps working wherever the tests directory is reorganised.
ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
CONFIGURATION = ROOT / "docs" / "configuration.md"


def test_defaults_point_at_cloudflare_and_github() -> None:
    s = Settings.from_mapping({"CLOUDFLARE_ACCOUNT_ID": "acc"})
    assert s.github_api_url == "https://api.github.com"
    assert s.model == "@cf/moonshotai/kimi-k2.6"
    assert s.chat_base_url == "https://api.cloudflare.com/client/v4/accounts/acc/ai/v1"
    assert s.redis_url is None and s.data_dir == Path.home() / ".local" / "share" / "reviewbot"
    # The user's data directory, never the working directory (a reviewed repository stays clean).
    assert Settings.from_mapping({"HOME": "/home/ann"}).data_dir == Path("/home/ann/.local/share/reviewbot")
    assert Settings.from_mapping({"HOME": "/home/ann", "XDG_DATA_HOME": "/d"}).data_dir == Path("/d/reviewbot")
    assert Settings.from_mapping({"HOME": "/h", "REVIEWBOT_DATA_DIR": "~/rb"}).data_dir == Path.home() / "rb"


def test_missing_variables_are_named() -> None:
    s = Settings.from_mapping({})
    assert s.missing_for_github() == ["GITHUB_APP_ID", "GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH",
                                      "GITHUB_WEBHOOK_SECRET"]
    with pytest.raises(ConfigError, match="CLOUDFLARE_API_TOKEN"):
        s.require(s.missing_for_model(), "the worker")
    with pytest.raises(ConfigError, match="CLOUDFLARE_ACCOUNT_ID"):
        _ = s.chat_base_url


def test_a_server_of_ones_own_needs_no_key_but_workers_ai_does() -> None:
    local = Settings.from_mapping({"REVIEWBOT_MODEL_BASE_URL": "http://127.0.0.1:8080/v1"})
    assert local.missing_for_model() == []
    workers = Settings.from_mapping({"REVIEWBOT_MODEL_BASE_URL": "https://api.cloudflare.com/client/v4/accounts/a/ai/v1"})
    assert workers.missing_for_model() == ["CLOUDFLARE_API_TOKEN"]


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


def test_every_field_is_declared_once_with_one_line_help() -> None:
    table = settings_table()
    assert [v.attr for v in table] == [f.name for f in dataclasses.fields(Settings)]
    names = [n for v in table for n in v.names]
    assert len(names) == len(set(names))
    for var in table:
        assert var.help.strip() and "\n" not in var.help, var.attr


def test_the_declared_defaults_are_the_unset_values() -> None:
    assert Settings() == Settings.from_mapping({})


def test_from_mapping_reads_exactly_the_declared_variables() -> None:
    class Recording(dict[str, str]):
        def __init__(self) -> None:
            super().__init__()
            self.asked: set[str] = set()

        def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
            self.asked.add(key)
            return super().get(key, default)

    env = Recording()
    Settings.from_mapping(env)
    # The data dir falls back to the user's data directory: XDG_DATA_HOME, else HOME's.
    assert env.asked == {n for v in settings_table() for n in v.names} | {"XDG_DATA_HOME", "HOME"}


def test_markdown_lists_every_variable_once_and_the_configuration_page_has_it() -> None:
    text = settings_markdown()
    rows = text.splitlines()[2:]
    assert len(rows) == len(settings_table())
    for var, row in zip(settings_table(), rows, strict=True):
        assert row.split(" | ")[0] == "| " + " / ".join(f"`{n}`" for n in var.names)
        assert row.endswith(f" | {var.help.replace('|', chr(92) + '|')} |")
    assert text in CONFIGURATION.read_text(), "regenerate it: python -m reviewbot.settings docs/configuration.md"


def test_the_module_prints_the_table(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["reviewbot.settings"])
    runpy.run_module("reviewbot.settings", run_name="__main__")
    assert capsys.readouterr().out == settings_markdown()
