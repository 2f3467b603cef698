"""A local change as a review's input: the base tree's options and config, the calibration and last layout from the
file stores (the one input `reviewbot review` and `reviewbot eval --benchmark` both build)."""

from __future__ import annotations

from reviewbot.repos.index_store import SqliteIndex
from reviewbot.repos.localgit import LocalChange
from reviewbot.review.config import CONFIG_PATH, parse_config, precision, read_options
from reviewbot.review.context.snapshot import MemorySnapshot
from reviewbot.review.engine import ReviewInput, affinity_id
from reviewbot.review.prompt.sections import PromptInput
from reviewbot.settings import Settings
from reviewbot.state.prompt_stores import FileStores


def local_input(settings: Settings, change: LocalChange, stores: FileStores, key: str) -> ReviewInput:
    snapshot = change.snapshot or MemorySnapshot(change.base_files)
    options, warnings = read_options(snapshot, settings.prompt_budget,  # the base version, as for PRs
                                     changed=[f.path for f in change.diff.files])
    prompt = PromptInput(title=change.title, description=change.description, diff=change.diff,
                         base_files=change.base_files, snapshot=snapshot, options=options,
                         chars_per_token=stores.calibration(settings.model).chars_per_token, notes=warnings,
                         index=SqliteIndex(settings.data_dir / "index") if change.snapshot is not None else None)
    return ReviewInput(prompt=prompt, affinity=affinity_id("local", change.identity, change.branch),
                       previous_layout=stores.load_layout(key),
                       precision=precision(parse_config(snapshot.read(CONFIG_PATH)).config))
