"""A local change as a review's input: the base tree's options and config, the calibration and last layout from the
file stores (the one input `reviewbot review` and `reviewbot eval --benchmark` both build)."""

from __future__ import annotations

from collections.abc import Sequence

from reviewbot.repos.index_store import SqliteIndex
from reviewbot.repos.localgit import LocalChange
from reviewbot.review.context.options import CONFIG_PATH, ContextOptions
from reviewbot.review.context.snapshot import MemorySnapshot, Snapshot
from reviewbot.review.engine import ReviewInput, affinity_id
from reviewbot.review.findings.precision import Precision
from reviewbot.review.prompt.sections import PromptInput
from reviewbot.settings import Settings
from reviewbot.state.prompt_stores import FileStores


def local_input(settings: Settings, change: LocalChange, stores: FileStores, key: str) -> ReviewInput:
    snapshot = change.snapshot or MemorySnapshot(change.base_files)
    # The base version, as for PRs.
    options, warnings, policy = configured(snapshot, settings.prompt_budget, [f.path for f in change.diff.files])
    prompt = PromptInput(title=change.title, description=change.description, diff=change.diff,
                         base_files=change.base_files, snapshot=snapshot, options=options,
                         chars_per_token=stores.calibration(settings.model).chars_per_token, notes=warnings,
                         index=SqliteIndex(settings.data_dir / "index") if change.snapshot is not None else None)
    return ReviewInput(prompt=prompt, affinity=affinity_id("local", change.identity, change.branch),
                       previous_layout=stores.load_layout(key), precision=policy)


def configured(snapshot: Snapshot, budget: int,
               changed: Sequence[str]) -> tuple[ContextOptions, tuple[str, ...], Precision]:
    """Context options, the file's problems and the precision policy from the base commit's config file, read and
    validated once. Without a file these are the defaults, and its schema (pydantic, YAML) is never loaded: most
    repositories have none, and loading it was a fifth of a one-file dry run."""
    text = snapshot.read(CONFIG_PATH)
    if text is None or not text.strip():
        return ContextOptions(budget_tokens=budget), (), Precision()
    from reviewbot.review.config import context_options, parse_config, precision

    loaded = parse_config(text)
    return (context_options(loaded.config, budget, list(changed), tools=False), tuple(loaded.errors),
            precision(loaded.config))
