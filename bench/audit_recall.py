"""Real-caller and callee recall of an audit, found independently of the planner: Python's own `ast` lists every
top-level function defined in exactly one file and every other file that calls it (by name or as an attribute).
A caller counts as arriving when it is in the function's chunk or shown in that chunk's prompt; a callee (the
definition a calling file uses) when it is in the caller's chunk or its `def` line is shown in that chunk's prompt
under its file's header."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Mapping

MAX_CALLERS = 15  # a function called from more files is infrastructure; the review's cap is the same


def defined_and_called(texts: Mapping[str, str]) -> tuple[dict[str, str], dict[str, set[str]]]:
    definers: defaultdict[str, set[str]] = defaultdict(set)
    called: dict[str, set[str]] = {}
    for path, text in texts.items():
        if not path.endswith(".py"):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and len(node.name) >= 5 \
                    and not node.name.startswith("__"):
                definers[node.name].add(path)
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                names.add(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute)
                          else "")
        called[path] = names
    return {n: next(iter(p)) for n, p in definers.items() if len(p) == 1}, called


def called_pairs(texts: Mapping[str, str]) -> set[tuple[str, str, str]]:
    """(defining file, calling file, function) for every function defined in one file and called from others."""
    once, called = defined_and_called(texts)
    callers: defaultdict[str, set[str]] = defaultdict(set)
    for path, names in called.items():
        for name in names & once.keys():
            if once[name] != path:
                callers[name].add(path)
    return {(once[n], c, n) for n, cs in callers.items() if len(cs) <= MAX_CALLERS for c in cs}


def callee_recall(texts: Mapping[str, str], prompts: Mapping[int, str], home: Mapping[str, int]) -> tuple[int, int]:
    """(definitions that arrive, definitions) over every (calling file, function) pair."""
    pairs = {(d, c, n) for d, c, n in called_pairs(texts) if d in home and c in home}
    hit = 0
    for defining, caller, name in pairs:
        prompt = prompts.get(home[caller], "")
        hit += home[defining] == home[caller] or any(f"def {name}(" in block for block in _blocks(prompt, defining))
    return hit, len(pairs)


def _blocks(prompt: str, path: str) -> list[str]:
    """The parts of a prompt shown under `path`'s header, each up to the next header."""
    out = []
    for header in (f"### {path}\n", f"### {path} ("):
        at = prompt.find(header)
        while at >= 0:
            end = prompt.find("\n### ", at + len(header))
            out.append(prompt[at:end if end >= 0 else len(prompt)])
            at = prompt.find(header, at + len(header))
    return out


def caller_recall(texts: Mapping[str, str], prompts: Mapping[int, str], home: Mapping[str, int]) -> tuple[int, int]:
    """(callers that arrive, callers) over every (defining file, calling file) pair."""
    pairs = {(d, c) for d, c, _ in called_pairs(texts)}
    hit = 0
    for defining, caller in pairs:
        chunk = home.get(defining)
        if chunk is None or caller not in home:
            continue
        prompt = prompts.get(chunk, "")
        hit += home[caller] == chunk or any(h in prompt for h in (f"### {caller}\n", f"### {caller} (",
                                                                   f"+++ {caller}\n"))
    return hit, sum(1 for d, c in pairs if d in home and c in home)
