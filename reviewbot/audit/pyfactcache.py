"""Flow listing's facts of each Python module (pyfacts.py) and C or C++ file (cfacts.py, the same record) for one
tree: kept in memory, read from the facts cache by blob id, parsed only for content no earlier plan or verification
saw, and written back in one go."""

from __future__ import annotations

from reviewbot.audit.cfacts import c_module_facts, is_c
from reviewbot.audit.factcache import FactCache
from reviewbot.audit.pyfacts import PyModule, module_facts
from reviewbot.review.context.store import git_blob_id


class PythonFacts:
    """(path, text) -> the module's facts. One per tree (an audit's plan, a verification): a path's text is the
    same for its whole life, so it is hashed once."""

    def __init__(self, cache: FactCache | None = None) -> None:
        self.cache = cache
        self.parsed = 0  # modules parsed (the rest came from memory or the cache): logs, benchmarks
        self._by_path: dict[str, PyModule | None] = {}
        self._fresh: dict[str, PyModule | None] = {}  # by blob id, not yet written

    def __call__(self, path: str, text: str) -> PyModule | None:
        if path in self._by_path:
            return self._by_path[path]
        blob = git_blob_id(text.encode("utf-8", errors="replace"))
        if is_c(path):  # the same text as C and as Python (an empty file) has two records
            blob = f"c:{blob}"
        if blob in self._fresh:
            found = self._fresh[blob]
        elif self.cache is not None and blob in (known := self.cache.get_python([blob])):
            found = known[blob]
        else:
            found = self._fresh[blob] = c_module_facts(path, text) if is_c(path) else module_facts(text)
            self.parsed += 1
        self._by_path[path] = found
        return found

    def save(self) -> None:
        """Write what was parsed since the last save to the cache (one transaction)."""
        if self.cache is not None and self._fresh:
            self.cache.put_python(self._fresh)
        self._fresh = {}

    def forget(self) -> None:
        """Let the facts kept in memory go (memory, between audits); the cache keeps them."""
        self.save()
        self._by_path = {}
