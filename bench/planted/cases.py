"""The corpora of planted flaws (corpus.yaml and the held-out heldout.yaml beside this file): typed records, read
and checked once."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

HERE = Path(__file__).parent
CORPUS = HERE / "corpus.yaml"
# Written blind to the planner after its flow rules were tuned on CORPUS's results (see README.md here).
HELDOUT = HERE / "heldout.yaml"

PieceKind = Literal["source", "intermediate", "sink"]


class CorpusError(ValueError):
    """A corpus file is malformed: a missing field, a wrong type or a patch file that is not there."""


class Location(BaseModel):
    """One line of the patched release: where the flaw's data is read, passed on or used."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str  # relative to the release's root, with forward slashes
    line: int  # 1-based, in the tree after the patch
    text: str  # the line without its indentation

    @field_validator("text")
    @classmethod
    def _stripped(cls, text: str) -> str:
        if not text or text != text.strip():
            raise ValueError("a line's text is stored stripped and non-empty")
        return text


class Case(BaseModel):
    """One planted flaw: a patch to a release from PyPI, and the source, intermediates and sink it creates."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    package: str
    version: str
    audited: str  # the release's subdirectory an audit covers
    language: str
    cwe: str
    # How far the sink is from the source: another package directory, or (where a release keeps all of one
    # language's sources in one folder) another module of that folder.
    apart: Literal["directory", "module"] = "directory"
    title: str
    flow: str
    via: tuple[str, ...] = ()
    source: Location
    sink: Location
    intermediates: tuple[Location, ...] = ()
    patch: str  # a unified diff against the release (paths a/… b/…): relative to corpus.yaml there, absolute here

    @property
    def release(self) -> tuple[str, str]:
        return (self.package, self.version)

    @property
    def pieces(self) -> tuple[tuple[PieceKind, Location], ...]:
        """What one request must hold for an ideal model to see the whole flow, in the flow's order."""
        middle: tuple[tuple[PieceKind, Location], ...] = tuple(("intermediate", i) for i in self.intermediates)
        return (("source", self.source), *middle, ("sink", self.sink))

    def patch_text(self) -> str:
        return Path(self.patch).read_text(encoding="utf-8")

    def patched_files(self) -> list[str]:
        """The release's files the patch changes or creates (from its `+++ b/…` headers)."""
        return [line.removeprefix("+++ b/") for line in self.patch_text().splitlines() if line.startswith("+++ b/")]

    def far_apart(self) -> bool:
        """The flow reaches the sink as far from the source as `apart` says."""
        if self.apart == "module":
            return self.sink.path != self.source.path
        here = PurePosixPath(self.source.path).parent
        return self.sink.path != self.source.path and any(
            PurePosixPath(where.path).parent != here for _, where in self.pieces)


def load_corpus(path: Path = CORPUS) -> list[Case]:
    """Every case of a corpus file, checked: unique ids and patch files that exist."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        cases = [Case.model_validate(entry) for entry in raw["cases"]]
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValidationError) as error:
        raise CorpusError(f"{path}: {error}") from error
    ids = [case.id for case in cases]
    if len(set(ids)) != len(ids):
        raise CorpusError(f"{path}: duplicate case ids {sorted({i for i in ids if ids.count(i) > 1})}")
    cases = [case.model_copy(update={"patch": str(path.resolve().parent / case.patch)}) for case in cases]
    missing = [case.patch for case in cases if not Path(case.patch).is_file()]
    if missing:
        raise CorpusError(f"{path}: missing patch files {missing}")
    return cases


def by_release(cases: Iterable[Case]) -> dict[tuple[str, str], list[Case]]:
    """The cases grouped by the release they patch: each group is materialised as one tree."""
    groups: dict[tuple[str, str], list[Case]] = {}
    for case in cases:
        groups.setdefault(case.release, []).append(case)
    return groups
