"""What an Actions job gives `reviewbot action`: the event, the repository, the token and the action's inputs."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reviewbot.errors import ConfigError
from reviewbot.settings import Settings

# input name (as action.yml declares it) → the reviewbot variable it sets; GitHub passes each input as
# `INPUT_<NAME>`, upper-cased with its hyphens kept (`INPUT_BLOCKING-SEVERITY`).
INPUTS = {"model": "REVIEWBOT_MODEL", "api-token": "CLOUDFLARE_API_TOKEN",
          "cloudflare-account-id": "CLOUDFLARE_ACCOUNT_ID", "model-base-url": "REVIEWBOT_MODEL_BASE_URL",
          "marker-secret": "REVIEWBOT_MARKER_SECRET", "github-token": "GITHUB_TOKEN",
          "review-token-budget": "REVIEWBOT_REVIEW_TOKEN_BUDGET"}
# Inputs the command reads itself rather than as settings.
OWN_INPUTS = ("blocking-severity", "author-associations", "mode", "sarif-path")
# Whose pull requests are reviewed without anyone asking: people the repository already trusts. A fork's author
# is usually CONTRIBUTOR or NONE, and under pull_request_target their pull request would spend the team's key.
DEFAULT_AUTHORS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
PASSED_ON = ("GITHUB_API_URL", "GITHUB_SERVER_URL", "RUNNER_TEMP")


@dataclass(frozen=True)
class ActionEnv:
    event_name: str
    event: dict[str, Any]
    repo: str
    run_id: str  # names this run's review: a re-run attempt is a new request
    settings: Settings
    blocking_severity: str | None = None
    summary_path: Path | None = None
    inputs: dict[str, str] = field(default_factory=dict)
    authors: frozenset[str] = DEFAULT_AUTHORS  # author associations reviewed automatically; "*": everyone
    output_path: Path | None = None  # GITHUB_OUTPUT: the step's outputs for later steps
    workspace: Path | None = None  # GITHUB_WORKSPACE: what an audit reads (never a pull request's head)


def read_input(environ: Mapping[str, str], name: str) -> str:
    value = environ.get(f"INPUT_{name.upper()}") or environ.get(f"INPUT_{name.upper().replace('-', '_')}") or ""
    return value.strip()


def from_environ(environ: Mapping[str, str]) -> ActionEnv:
    """The job's environment; the workspace's `.env` is never read (it may hold the pull request's files)."""
    for name in ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY"):
        if not environ.get(name):
            raise ConfigError(f"{name} is not set: `reviewbot action` runs inside a GitHub Actions job")
    try:
        event = json.loads(Path(environ["GITHUB_EVENT_PATH"]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the event payload at GITHUB_EVENT_PATH: {exc}") from None
    inputs = {name: value for name in (*INPUTS, *OWN_INPUTS) if (value := read_input(environ, name))}
    mapping = {k: v for k, v in environ.items() if k.startswith("REVIEWBOT_") or k in PASSED_ON}
    mapping["GITHUB_TOKEN"] = environ.get("GITHUB_TOKEN", "")
    mapping.update({INPUTS[name]: value for name, value in inputs.items() if name in INPUTS})
    if "RUNNER_TEMP" in environ and "REVIEWBOT_DATA_DIR" not in mapping:
        mapping["REVIEWBOT_DATA_DIR"] = str(Path(environ["RUNNER_TEMP"]) / "reviewbot")
    if not mapping.get("REVIEWBOT_MARKER_SECRET") and mapping.get("CLOUDFLARE_API_TOKEN"):
        # The workflow's token changes every run, so it cannot sign markers a later run must believe: the model's
        # key is the stable secret every run of this workflow has.
        digest = hashlib.sha256(b"reviewbot action markers\0" + mapping["CLOUDFLARE_API_TOKEN"].encode())
        mapping["REVIEWBOT_MARKER_SECRET"] = digest.hexdigest()
    settings = Settings.load(mapping, env_file=None)
    if not settings.github_token:
        raise ConfigError("no GitHub token: pass `github-token: ${{ github.token }}` (the default) or set "
                          "GITHUB_TOKEN")
    run = f"action-{environ.get('GITHUB_RUN_ID', '0')}-{environ.get('GITHUB_RUN_ATTEMPT', '1')}"
    return ActionEnv(environ["GITHUB_EVENT_NAME"], event if isinstance(event, dict) else {},
                     environ["GITHUB_REPOSITORY"], run, settings, inputs.get("blocking-severity") or None,
                     _path(environ, "GITHUB_STEP_SUMMARY"), inputs, authors(inputs.get("author-associations")),
                     _path(environ, "GITHUB_OUTPUT"), _path(environ, "GITHUB_WORKSPACE"))


def authors(text: str | None) -> frozenset[str]:
    """`OWNER, member` → {OWNER, MEMBER}; empty → the default."""
    names = frozenset(part.strip().upper() for part in (text or "").replace("\n", ",").split(",") if part.strip())
    return names or DEFAULT_AUTHORS


def _path(environ: Mapping[str, str], name: str) -> Path | None:
    value = environ.get(name)
    return Path(value) if value else None
