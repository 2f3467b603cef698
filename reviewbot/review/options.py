"""Per-repository context options (budget, ignore globs, instructions) and the repository's own guidance."""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from reviewbot.review.snapshot import Snapshot

DEFAULT_PROMPT_BUDGET = 100_000
MAX_PROMPT_BUDGET = 200_000  # Kimi's window is 256k; the rest is for the answer and the tool turns
MIN_PROMPT_BUDGET = 8_000
CONFIG_PATH = ".github/reviewbot.yml"
GUIDANCE_FILES = ("AGENTS.md", "CONTRIBUTING.md", ".github/CONTRIBUTING.md", "docs/CONTRIBUTING.md",
                  ".github/copilot-instructions.md", "REVIEWING.md")
MAX_GUIDANCE_DOC_CHARS = 12_000
MAX_GUIDANCE_CHARS = 24_000


@dataclass(frozen=True)
class ContextOptions:
    budget_tokens: int = DEFAULT_PROMPT_BUDGET
    ignore: tuple[str, ...] = ()
    instructions: str = ""
    tools: bool = False  # the model can call read_file / search_code / list_files (the inference loop's switch)


def read_options(snapshot: Snapshot, default_budget: int = DEFAULT_PROMPT_BUDGET,
                 tools: bool = False) -> tuple[ContextOptions, tuple[str, ...]]:
    """Options from `.github/reviewbot.yml` at the base commit (never the PR's copy), with warnings to show."""
    text = snapshot.read(CONFIG_PATH)
    base = ContextOptions(budget_tokens=default_budget, tools=tools)
    if text is None:
        return base, ()
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return base, (f"{CONFIG_PATH} is not valid YAML ({str(exc).splitlines()[0]}); defaults used",)
    if not isinstance(data, dict):
        return base, ()
    warnings: list[str] = []
    ignore = data.get("ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(g, str) for g in ignore):
        warnings.append(f"{CONFIG_PATH}: `ignore` must be a list of globs; ignored")
        ignore = []
    instructions = data.get("instructions", "")
    if not isinstance(instructions, str):
        warnings.append(f"{CONFIG_PATH}: `instructions` must be text; ignored")
        instructions = ""
    budget = data.get("max_prompt_tokens", default_budget)
    if not isinstance(budget, int) or not MIN_PROMPT_BUDGET <= budget <= MAX_PROMPT_BUDGET:
        warnings.append(f"{CONFIG_PATH}: `max_prompt_tokens` must be an integer from {MIN_PROMPT_BUDGET:,} to "
                        f"{MAX_PROMPT_BUDGET:,}; {default_budget:,} used")
        budget = default_budget
    return ContextOptions(budget_tokens=budget, ignore=tuple(ignore)[:200],
                          instructions=instructions[:MAX_GUIDANCE_DOC_CHARS], tools=tools), tuple(warnings)


def guidance(snapshot: Snapshot, options: ContextOptions) -> tuple[str, tuple[str, ...]]:
    """The repository's own review guidance, in a fixed order and bounded size, and where it came from."""
    parts: list[str] = []
    sources: list[str] = []
    if options.instructions.strip():
        parts.append(f"### Instructions from {CONFIG_PATH}\n\n{options.instructions.strip()}")
        sources.append(CONFIG_PATH)
    listed = set(snapshot.paths())
    for path in GUIDANCE_FILES:
        if path in listed and (text := snapshot.read(path)):
            cut = text[:MAX_GUIDANCE_DOC_CHARS]
            note = "\n\n(truncated)" if len(text) > len(cut) else ""
            parts.append(f"### {path}\n\n{cut.strip()}{note}")
            sources.append(path)
    text = "\n\n".join(parts)
    return text[:MAX_GUIDANCE_CHARS], tuple(sources)
