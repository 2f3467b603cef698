"""`.github/reviewbot.yml`: the repository's settings, read from the base branch, validated with clear errors."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from reviewbot.review.config_errors import problems, without
from reviewbot.review.context.options import DEFAULT_PROMPT_BUDGET, ContextOptions
from reviewbot.review.context.snapshot import Snapshot
from reviewbot.review.cronspec import check_schedule
from reviewbot.review.findings.precision import Precision
from reviewbot.review.findings.schema import Category
from reviewbot.review.findings.security import checklist
from reviewbot.review.linked.readable import ORG_ONLY_KEY, LinkedIssuesConfig
from reviewbot.review.orgtext import PUBLIC_REPOS_KEY, PublicReposConfig

CONFIG_PATH = ".github/reviewbot.yml"
Severity = Literal["critical", "major", "minor", "nit"]
ORG_ONLY_KEYS = (ORG_ONLY_KEY, PUBLIC_REPOS_KEY)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelled key is an error, never silently ignored


class AutoReview(_Strict):
    on_open: bool = Field(default=True, description="Review when a pull request is opened or reopened.")
    on_push: bool = Field(default=True, description="Review again when commits are pushed.")
    drafts: bool = Field(default=False, description="Review draft pull requests too.")


class LearningRule(_Strict):
    rule: str = Field(min_length=3, max_length=200, description="Words every held-back finding's title contains, "
                      "e.g. `divides by the item count`.")
    path: str = Field(default="", max_length=300, description="Only findings in files matching this glob (empty: "
                                                                "any file).")
    reason: str = Field(default="", max_length=200, description="Why (shown by `reviewbot learnings list`).")


class AuditConfig(_Strict):
    schedule: str | None = Field(default=None, max_length=100, description="When the service audits the default "
                                 "branch by itself: `daily`, `weekly` or a cron expression (UTC). Unset: only on "
                                 "request.")
    paths: list[str] = Field(default_factory=list, max_length=100, description="Only these folders or files "
                             "(empty: the whole repository).")
    ignore: list[str] = Field(default_factory=list, max_length=200, description="Paths audits skip (gitignore "
                              "syntax), on top of `ignore`.")
    max_usd: float | None = Field(default=None, gt=0, le=10_000, description="Most an audit may cost (estimated); "
                                  "what does not fit is left out and listed in the report.")
    on_push: bool = Field(default=False, description="Audit the default branch again after pushes to it: "
                          "incrementally (only changed files and their callers), once per "
                          "`REVIEWBOT_AUDIT_PUSH_DELAY` however many pushes land in it.")
    autofix: Literal["off", "open-prs"] = Field(default="off", description="`open-prs`: after an audit of the "
                                                "default branch, open a checked fix pull request for each new "
                                                "critical finding, once (private and internal repositories only).")
    fix_per: Literal["finding", "file"] = Field(default="finding", description="One fix pull request per finding, "
                                                "or per file (every selected finding of that file together).")

    @field_validator("schedule")
    @classmethod
    def _schedule(cls, value: str | None) -> str | None:
        return None if value is None else check_schedule(value)


class RepoConfig(_Strict):
    """Every key is optional; defaults apply to what the file does not set."""

    enabled: bool = Field(default=True, description="Set to false to turn automatic reviews off.")
    auto_review: AutoReview = Field(default_factory=AutoReview)
    ignore: list[str] = Field(default_factory=list, description="Paths not to review (gitignore syntax).")
    path_instructions: dict[str, str] = Field(default_factory=dict,
                                              description="Glob → extra instructions for matching files.")
    instructions: str = Field(default="", max_length=20_000, description="Extra instructions for every review.")
    instructions_files: Literal["auto", "off"] | list[str] = Field(
        default="auto", description="The team's rules files for coding agents, read from the base commit: auto "
        "(AGENTS.md, CLAUDE.md, GEMINI.md, .gemini/styleguide.md, .cursorrules, .cursor/rules/*.mdc, "
        ".github/copilot-instructions.md, .github/instructions/*.instructions.md, CONTRIBUTING.md), off, or a "
        "list of the files to read.")
    severity_threshold: Severity = Field(default="minor", description="The lowest severity that is posted.")
    severity_thresholds: dict[Category, Severity] = Field(
        default_factory=dict, description="Category → the lowest severity posted for findings of that category "
        "(e.g. `style: major`); a category not listed uses `severity_threshold`.")
    blocking_severity: Severity | None = Field(
        default=None, description="Findings at or above this severity make the check run fail. Unset: never fail.")
    max_comments: int = Field(default=10, ge=0, le=100, description="Most inline comments per review.")
    incremental: bool = Field(default=True, description="On new pushes, comment only on lines changed since the last "
                                                "review (the whole pull request stays in context).")
    language: str = Field(default="English", max_length=40, description="Language of the comments.")
    focus: list[Literal["security", "bugs", "performance", "tests"]] = Field(
        default_factory=list, description="Areas to look at hardest.")
    budget: int | None = Field(default=None, ge=8_000, le=200_000, description="Most prompt tokens per review "
                                                                              "(the service default is 100,000).")
    verify: Literal["off", "major", "all"] = Field(
        default="major", description="Check candidate findings with a second model request before posting them: "
        "off, major (critical and major findings only) or all. Security reviews always verify every finding.")
    passes: int = Field(default=1, ge=1, le=5, description="Independent review passes (different instructions, "
                                                           "the same cached prompt), merged before verification.")
    labels: list[str] = Field(default_factory=list, description="Pull requests with any of these labels are "
                                                               "not reviewed automatically.")
    authors: list[str] = Field(default_factory=list, description="Pull requests by these authors (e.g. bots) "
                                                                "are not reviewed automatically.")
    learnings: list[LearningRule] = Field(default_factory=list, max_length=200, description="Findings the team "
                                          "has decided to live with: reviews hold them back, as they do findings "
                                          "dismissed in a review thread.")
    learn: Literal["off", "propose"] = Field(
        default="off", description="`propose`: when people keep dismissing or ignoring one kind of finding, "
        "reviewbot opens a pull request that changes this file (a `learnings` rule, a `path_instructions` line or "
        "a category's severity threshold), with the evidence; a closed proposal is not made again.")
    audit: AuditConfig = Field(default_factory=AuditConfig, description="Security audits of the whole repository "
                               "(`@app audit`, or on a schedule).")
    linked_issues: LinkedIssuesConfig = Field(default_factory=LinkedIssuesConfig, description="Which other "
                                              "repositories' linked issues reviews may read (organisation-wide "
                                              "defaults only).")
    public_repos: PublicReposConfig = Field(default_factory=PublicReposConfig, description="Whether the "
                                            "organisation's free text applies to public repositories "
                                            "(organisation-wide defaults only).")

    @field_validator("instructions_files", mode="before")
    @classmethod
    def _files_switch(cls, value: object) -> object:
        """A bare `off` is false to YAML: the word it was. Listed paths are relative to the root, at most 50."""
        if isinstance(value, bool):
            return "auto" if value else "off"
        if isinstance(value, list):
            if len(value) > 50:
                raise ValueError("list at most 50 files")
            return [v.strip().removeprefix("./") if isinstance(v, str) else v for v in value]
        return value

    @field_validator("severity_threshold", "blocking_severity", mode="before")
    @classmethod
    def _severity_case(cls, value: object) -> object:
        """`Major` is what people write in prose: severities are words, in any case."""
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("learn", mode="before")
    @classmethod
    def _learn_switch(cls, value: object) -> object:
        return "off" if value is False else value  # a bare `off` is false to YAML

    def threshold_for(self, category: str) -> Severity:
        """The lowest severity posted for a finding of `category`."""
        return next((s for c, s in self.severity_thresholds.items() if c == category), self.severity_threshold)

    @field_validator("verify", mode="before")
    @classmethod
    def _yaml_switch(cls, value: object) -> object:
        """YAML reads a bare `off` as false (and `on` as true): take them as the words they were."""
        return {False: "off", True: "major"}.get(value, value) if isinstance(value, bool) else value


@dataclass(frozen=True)
class LoadedConfig:
    config: RepoConfig
    errors: list[str] = field(default_factory=list)
    notes: tuple[str, ...] = ()  # for the review's coverage notes: what of the configuration was left out, and why


def parse_config(text: str | None, defaults: dict[str, Any] | None = None, source: str = CONFIG_PATH, *,
                 org_file: bool = False) -> LoadedConfig:
    """Parse the file over `defaults` (org-wide); a key at fault is dropped and named (with its line, the value given
    and the key probably meant), the others apply; a file that is not YAML or not a mapping leaves the defaults.
    `linked_issues` and `public_repos` come from the defaults only unless `org_file` (the file is the
    organisation's defaults)."""
    base = dict(defaults or {})
    fallback = _validated(base) or RepoConfig()
    if text is None or not text.strip():
        return LoadedConfig(fallback)
    import yaml  # most repositories have no file: their reviews never load the YAML parser

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return LoadedConfig(fallback, [f"{source} is not valid YAML: {str(exc)[:300]}"])
    if data is None:
        return LoadedConfig(fallback)
    if not isinstance(data, dict):
        return LoadedConfig(fallback, [f"{source} must be a mapping of keys to values"])
    ignored = []
    for key in () if org_file else ORG_ONLY_KEYS:
        # Whoever writes a repository's file must not widen what its reviews quote from private repositories (other
        # repositories' issues, the organisation's text). The `.github` repository's own file is the defaults: the
        # same value there is no problem to report.
        if key in data and data[key] != base.get(key):
            ignored.append(f"{source}: `{key}` is read only from the organisation's `.github` repository "
                           "(its default branch); ignored")
        data = {k: v for k, v in data.items() if k != key}
    told: list[str] = []
    written = set(data)  # a key at fault that is not among these came from the organisation's defaults
    for _ in range(5):  # each round drops the keys at fault and tries the rest again
        try:
            config = RepoConfig.model_validate(_merge(base, data))
        except ValidationError as exc:
            found = problems(exc, text, source, RepoConfig)
            dropped = [without(data, p.loc) or (p.loc[0] in written and p.loc[0] not in data) for p in found]
            if not all(dropped):
                return LoadedConfig(fallback, [*ignored, *told, *(p.text for p in found)])
            told += [f"{p.text}; ignored, the file's other keys apply" for p in found]
        else:
            return LoadedConfig(config, [*ignored, *told])
    return LoadedConfig(fallback, [*ignored, *told])


def raw_mapping(text: str | None) -> dict[str, Any]:
    """An org-wide defaults file as a plain mapping (invalid ones count as empty)."""
    import yaml

    try:
        data = yaml.safe_load(text or "")
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and key != "path_instructions":
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _validated(data: dict[str, Any]) -> RepoConfig | None:
    try:
        return RepoConfig.model_validate(data)
    except ValidationError:
        return None


def json_schema() -> str:
    """The published JSON Schema of the file (`reviewbot config schema`)."""
    schema = RepoConfig.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "reviewbot repository configuration (.github/reviewbot.yml)"
    return json.dumps(schema, indent=2, sort_keys=True)


def guidance_text(config: RepoConfig, paths: list[str]) -> str:
    """The repository's own review instructions, for the prompt's guidance section."""
    from pathspec import GitIgnoreSpec  # a gitignore-style matcher, as for `ignore`

    parts = []
    if config.instructions.strip():
        parts.append(config.instructions.strip())
    for pattern, text in sorted(config.path_instructions.items()):
        spec = GitIgnoreSpec.from_lines([pattern])
        if any(spec.match_file(p) for p in paths):
            parts.append(f"For files matching `{pattern}`: {text.strip()}")
    if config.focus:
        parts.append("Look hardest at: " + ", ".join(config.focus) + ".")
    if "security" in config.focus:
        parts.append(checklist())
    if config.language.strip().lower() != "english":
        parts.append(f"Write titles, bodies and the summary in {config.language.strip()}.")
    return "\n\n".join(parts)


def with_security(config: RepoConfig) -> RepoConfig:
    """The configuration of a `security-review`: security in focus (the checklist joins the prompt)."""
    return config if "security" in config.focus else config.model_copy(update={"focus": [*config.focus, "security"]})


def precision(config: RepoConfig) -> Precision:
    """The precision policy the configuration asks for; security in focus means every candidate is verified."""
    return Precision(verify=config.verify, passes=config.passes, security="security" in config.focus,
                     threshold=config.severity_threshold)


def context_options(config: RepoConfig, default_budget: int, paths: list[str], *, tools: bool) -> ContextOptions:
    """What the context engine needs from the configuration: budget, ignore globs and instructions."""
    files = config.instructions_files
    return ContextOptions(budget_tokens=config.budget or default_budget, ignore=tuple(config.ignore)[:200],
                          instructions=guidance_text(config, paths), tools=tools,
                          rules_files=files if isinstance(files, str) else tuple(files))


def read_options(snapshot: Snapshot, default_budget: int = DEFAULT_PROMPT_BUDGET, tools: bool = False,
                 changed: list[str] | None = None) -> tuple[ContextOptions, tuple[str, ...]]:
    """Context options from the base commit's config file, with its problems to show (the CLI's path)."""
    loaded = parse_config(snapshot.read(CONFIG_PATH))
    return context_options(loaded.config, default_budget, changed or [], tools=tools), tuple(loaded.errors)
