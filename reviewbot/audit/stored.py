"""Definitions for the audit's call graph from the persistent context index, when a review or an earlier audit
already parsed the same content (per git blob id); what is parsed now is written back for indexed blobs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reviewbot.audit.planner import Definitions
from reviewbot.review.context.store import IndexStore
from reviewbot.review.context.symbols import Definition, parse


def stored_definitions(store: IndexStore, blobs: Mapping[str, str]) -> Definitions:
    """A `definitions` source for plan_audit: `blobs` is path -> blob id of the tree being planned."""
    known = store.definitions(sorted(set(blobs.values())))

    def definitions(path: str, text: str) -> Sequence[Definition]:
        blob = blobs.get(path)
        if blob is not None and blob in known:
            return known[blob]
        found = parse(path, text).definitions
        if blob is not None:
            store.add_definitions(blob, found)  # kept only for blobs the index holds (a review indexed them)
            known[blob] = found
        return found

    return definitions
