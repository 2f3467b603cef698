"""Per-repository context options (budget, ignore globs, instructions) and the repository's own guidance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reviewbot.review.context.rulesapply import RulesReport, select_rules
from reviewbot.review.context.snapshot import Snapshot

DEFAULT_PROMPT_BUDGET = 100_000
MAX_PROMPT_BUDGET = 200_000  # Kimi's window is 256k; the rest is for the answer and the tool turns
MIN_PROMPT_BUDGET = 8_000
CONFIG_PATH = ".github/reviewbot.yml"
MAX_INSTRUCTIONS_CHARS = 24_000


@dataclass(frozen=True)
class ContextOptions:
    budget_tokens: int = DEFAULT_PROMPT_BUDGET
    ignore: tuple[str, ...] = ()
    instructions: str = ""
    tools: bool = False  # the model can call read_file / search_code / list_files (the inference loop's switch)
    rules_files: str | tuple[str, ...] = "auto"  # the team's rules files: auto (every known place), off, or a list


@dataclass(frozen=True)
class Guidance:
    text: str
    sources: tuple[str, ...]
    rules: RulesReport


def guidance(snapshot: Snapshot, options: ContextOptions, changed: Sequence[str] = ()) -> Guidance:
    """The repository's own review guidance, in a fixed order and bounded size, and where it came from: the
    configuration's instructions, then the rules files that apply to the changed files (rulesapply.py)."""
    parts: list[str] = []
    sources: list[str] = []
    if options.instructions.strip():
        parts.append(f"### Instructions from {CONFIG_PATH}\n\n{options.instructions.strip()[:MAX_INSTRUCTIONS_CHARS]}")
        sources.append(CONFIG_PATH)
    rules = select_rules(snapshot, changed, options.rules_files)
    if rules.text:
        parts.append(rules.text)
        sources += rules.sources
    return Guidance("\n\n".join(parts), tuple(sources), rules)
