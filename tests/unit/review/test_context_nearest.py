"""The nearest-files choice found by bisection picks exactly the files a sort by folder closeness would."""

from __future__ import annotations

import heapq
import itertools

from reviewbot.review.context.index import RepoIndex, shared_prefix
from reviewbot.review.context.snapshot import MemorySnapshot

# Folder names that sort around "/" ("a.b", "a0") and nest in each other ("a", "ab"): the edges of a prefix run.
_PARTS = ("a", "ab", "a0", "a.b", "b")


def _paths() -> list[str]:
    out = {"top.py"}
    for depth in (1, 2, 3):
        for folders in itertools.product(_PARTS, repeat=depth):
            out.add("/".join(folders) + "/m.py")
            out.add("/".join(folders) + ".py")
    return sorted(out)


def test_nearest_is_the_top_k_by_shared_folders_then_path() -> None:
    index = RepoIndex(MemorySnapshot({}), lambda _: False)
    paths = _paths()
    for near in ("top.py", "a/m.py", "a/ab/x.py", "a/ab/a0/x.py", "a.b/a/x.py", "c/d/x.py", "ab/a/b/c/x.py"):
        for count in (1, 5, 40, len(paths) + 1):
            for sample in (paths, paths[::3], paths[1::7], []):
                expected = heapq.nsmallest(count, sample, key=lambda p: (-shared_prefix(p, near), p))
                assert index.nearest(sample, near, count) == expected, (near, count)
