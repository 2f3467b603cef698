"""The rest of the command line as a newcomer meets it, each in a real process: `doctor` with typos in `.env`,
`config validate`, `audit --dry-run` and `--repo` mistakes, `--version`, help, and `usage` in a pipe."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MODEL_TOKEN
from tests.fakes.model import FakeModel
from tests.integration.test_cli_review import git, new_repo, run_cli
from tests.processes import web


def table_rows(table: str) -> dict[str, str]:
    return {line.split()[0]: line.split()[1] for line in table.splitlines()[1:]
            if line[:1].strip() and line.split()[0] in ("configuration", "Redis", "catalogue", "model")}


def test_doctor_names_typos_with_what_was_meant_and_every_bad_value(tmp_path: Path, redis_server: str,
                                                                    fake_model: FakeModel) -> None:
    (tmp_path / ".env").write_text(
        f"REVIEWBOT_MODEL_BASE_URL={fake_model.url}/v1\nCLOUDFLARE_API_TOKEN={MODEL_TOKEN}\n"
        f"REDIS_URL={redis_server}\nREVIEWBOT_PROMT_TOKENS=50000\nCLOUDFLARE_API_TOKN=typo\n"
        "REVIEWBOT_MODEL_TIMEOUT=soon\nREVIEWBOT_LOG_FORMAT=yaml\n")
    done = run_cli(["doctor"], {}, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "REVIEWBOT_PROMT_TOKENS in .env is not a variable reviewbot reads (did you mean " \
           "REVIEWBOT_PROMPT_TOKENS?)" in out
    assert "CLOUDFLARE_API_TOKN in .env is not a variable reviewbot reads (did you mean CLOUDFLARE_API_TOKEN?)" in out
    assert "REVIEWBOT_MODEL_TIMEOUT must be a number, got 'soon'" in out
    assert "REVIEWBOT_LOG_FORMAT must be one of auto, json, text, got 'yaml'" in out
    assert "typo" not in out  # a value, perhaps a secret: only names are shown
    # The other checks still ran (with the bad values at their defaults).
    assert table_rows(out) == {"configuration": "FAIL", "Redis": "ok", "catalogue": "ok", "model": "ok"}


def test_doctor_warns_about_an_unknown_name_alone_without_failing(tmp_path: Path, redis_server: str,
                                                                  fake_model: FakeModel) -> None:
    env = {"REVIEWBOT_MODEL_BASE_URL": f"{fake_model.url}/v1", "CLOUDFLARE_API_TOKEN": MODEL_TOKEN,
           "REDIS_URL": redis_server, "REVIEWBOT_PROMT_TOKENS": "50000", "GITHUB_SHA": "abc"}
    done = run_cli(["doctor"], env, tmp_path)
    assert table_rows(done.stdout)["configuration"] == "warn"
    assert "REVIEWBOT_PROMT_TOKENS in the environment" in done.stdout
    assert "GITHUB_SHA" not in done.stdout  # other tools' variables in the environment are not reviewbot's


def test_config_validate_points_at_the_line_the_value_and_the_key_meant(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "reviewbot.yml").write_text(
        "severity_threshold: Major\nignroe: ['docs/**']\nmax_comments: 500\n")
    done = run_cli(["config", "validate"], {}, tmp_path)  # the default path
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        ".github/reviewbot.yml line 2: `ignroe` is not a key (did you mean `ignore`?), given ['docs/**']",
        ".github/reviewbot.yml line 3: `max_comments`: Input should be less than or equal to 100 (got 500)"]
    (tmp_path / ".github" / "reviewbot.yml").write_text("severity_threshold: Major\nblocking_severity: CRITICAL\n")
    done = run_cli(["config", "validate"], {}, tmp_path)
    assert done.returncode == 0 and done.stdout == ".github/reviewbot.yml: valid\n"
    elsewhere = run_cli(["config", "validate"], {}, tmp_path / ".github")
    assert elsewhere.returncode == 1 and "run it in the repository's root, or name the file" in elsewhere.stderr


def test_audit_dry_run_plans_without_a_model_and_shows_its_own_usage(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "demo")
    (root / "app").mkdir()
    for name in ("db", "web", "auth"):
        (root / "app" / f"{name}.py").write_text(f"def {name}(x):\n    return x\n" * 40)
    git(root, "add", "-A")
    env = {"REVIEWBOT_MODEL": "my-model", "REVIEWBOT_PRICES": '{"my-model": [1, 0.1, 2]}'}
    done = run_cli(["audit", "--repo", str(root), "--dry-run", "--chunk-tokens", "500"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "3 file(s)" in done.stdout and "chunk(s)" in done.stdout and "estimated cost: $" in done.stdout
    plan = json.loads(run_cli(["audit", "--repo", str(root), "--dry-run", "--format", "json", "--chunk-tokens",
                               "500"], env, tmp_path).stdout)
    assert plan["files"] == ["app/auth.py", "app/db.py", "app/web.py"] and len(plan["chunks"]) >= 2
    assert plan["estimate"]["cost_usd"] > 0 and plan["estimate"]["prompt_tokens"] > 0
    wrong = run_cli(["audit", "--repo", str(root), "--dryrun"], {}, tmp_path)
    assert wrong.returncode == 2 and wrong.stderr.startswith("usage: reviewbot audit ")
    assert "unrecognized arguments: --dryrun" in wrong.stderr


def test_a_mistyped_path_starts_nothing_and_says_what_it_is_not(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {"REVIEWBOT_DATA_DIR": str(data)}
    done = run_cli(["audit", "--repo", "newcomr/demo/app"], env, tmp_path)
    assert done.returncode == 1 and "--repo newcomr/demo/app: no such directory, and not OWNER/NAME" in done.stderr
    done = run_cli(["audit", "--repo", "newcomr/demo"], env, tmp_path)  # OWNER/NAME shaped: the service's
    assert done.returncode == 1 and "there is no local directory newcomr/demo" in done.stderr
    assert "GITHUB_APP_ID" in done.stderr
    assert not data.exists() and not (tmp_path / ".reviewbot").exists()  # no Redis was started
    done = run_cli(["review", "--repo", "newcomr/demo", "--base", "main"], env, tmp_path)
    assert done.returncode == 2 and "--repo newcomr/demo: no such directory" in done.stderr


def test_version_help_and_defaults(tmp_path: Path) -> None:
    done = run_cli(["--version"], {}, tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("reviewbot ")
    review = " ".join(run_cli(["review", "--help"], {}, tmp_path).stdout.split())  # argparse wraps at 80 columns
    assert "(default: .)" in review and "(default: HEAD)" in review and "--fail-on SEVERITY" in review
    serve = " ".join(run_cli(["serve", "--help"], {}, tmp_path).stdout.split())
    assert "(default: 127.0.0.1)" in serve and "(default: 8000)" in serve
    for command in ("doctor", "worker", "action"):
        text = run_cli([command, "--help"], {}, tmp_path).stdout
        assert len(text.split("\n\n")) >= 3, text  # usage, a description, options


def test_usage_in_a_pipe_is_not_squeezed_to_80_columns(tmp_path: Path, redis_server: str) -> None:
    done = run_cli(["usage"], {"REDIS_URL": redis_server}, tmp_path)
    assert done.returncode == 0, done.stderr
    header = next(line for line in done.stdout.splitlines() if "Repository" in line)
    assert "Prompt tokens" in header and "Cache saved" in header  # one line, nothing wrapped


def test_every_command_names_every_bad_variable_at_once(tmp_path: Path) -> None:
    done = run_cli(["review", "--base", "main", "--dry-run"],
                   {"REVIEWBOT_MODEL_TIMEOUT": "soon", "REVIEWBOT_VISION": "maybe"}, tmp_path)
    assert done.returncode == 2
    assert "REVIEWBOT_MODEL_TIMEOUT must be a number, got 'soon'" in done.stderr
    assert "REVIEWBOT_VISION must be one of auto, on, off, got 'maybe'" in done.stderr


def test_serve_warns_about_a_misspelled_variable_at_start(tmp_path: Path, redis_server: str) -> None:
    (tmp_path / ".env").write_text("REVIEWBOT_PUBLC_URL=https://bot.example.com\n")
    with web({"REDIS_URL": redis_server, "REVIEWBOT_DATA_DIR": str(tmp_path / "data")}, tmp_path) as (process, _):
        pass
    assert "REVIEWBOT_PUBLC_URL in .env is not a variable reviewbot reads (did you mean REVIEWBOT_PUBLIC_URL?)" \
        in process.text()
