"""Definitions for the audit's call graph from the persistent context index, when a review or an earlier audit
already parsed the same content (per git blob id and language); what is parsed now is written back for indexed blobs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from reviewbot.audit.planner import Definitions
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.store import IndexStore
from reviewbot.review.context.symbols import Definition, parse


def stored_definitions(store: IndexStore, blobs: Mapping[str, str]) -> Definitions:
    """A `definitions` source for plan_audit: `blobs` is path -> blob id of the tree being planned."""
    by_language: defaultdict[str, set[str]] = defaultdict(set)
    for path, blob in blobs.items():
        by_language[language_for(path) or ""].add(blob)
    # The same bytes under `.py` and `.js` parse differently: the index keys definitions by blob and language.
    # Looked up on the first file of each language asked for: behind the audit's facts cache, most plans ask none.
    known: dict[str, dict[str, tuple[Definition, ...]]] = {}

    def definitions(path: str, text: str) -> Sequence[Definition]:
        blob, language = blobs.get(path), language_for(path) or ""
        if language not in known:
            known[language] = store.definitions(sorted(by_language.get(language, ())), language)
        found_before = known[language]
        if blob is not None and blob in found_before:
            return found_before[blob]
        found = tuple(parse(path, text).definitions)
        if blob is not None:
            store.add_definitions(blob, language, found)  # kept only for blobs the index holds (a review indexed them)
            found_before[blob] = found
        return found

    return definitions
