"""Per-repository context options (budget, ignore globs, instructions) and the repository's own guidance."""

from __future__ import annotations

from dataclasses import dataclass

from reviewbot.review.context.snapshot import Snapshot

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
