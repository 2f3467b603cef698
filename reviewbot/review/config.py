"""`.github/reviewbot.yml`: the repository's settings, read from the base branch, validated with clear errors."""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

CONFIG_PATH = ".github/reviewbot.yml"


class AutoReview(BaseModel):
    model_config = ConfigDict(extra="forbid")

    on_open: bool = True
    on_push: bool = True
    drafts: bool = False


class RepoConfig(BaseModel):
    """Defaults apply to every key the file does not set."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    auto_review: AutoReview = AutoReview()


@dataclass(frozen=True)
class LoadedConfig:
    config: RepoConfig
    errors: list[str] = field(default_factory=list)


def parse_config(text: str | None) -> LoadedConfig:
    """Parse the file; on any error keep the defaults and say what was wrong (never crash the review)."""
    if text is None or not text.strip():
        return LoadedConfig(RepoConfig())
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return LoadedConfig(RepoConfig(), [f"{CONFIG_PATH} is not valid YAML: {str(exc)[:300]}"])
    if data is None:
        return LoadedConfig(RepoConfig())
    if not isinstance(data, dict):
        return LoadedConfig(RepoConfig(), [f"{CONFIG_PATH} must be a mapping of keys to values"])
    try:
        return LoadedConfig(RepoConfig.model_validate(data))
    except ValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:20]]
        return LoadedConfig(RepoConfig(), [f"{CONFIG_PATH}: {p}" for p in problems])
