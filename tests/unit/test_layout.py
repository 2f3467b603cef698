"""The layout keeps its promises: a pure review core, no import cycle between packages, a light web process."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import reviewbot

PACKAGE = Path(reviewbot.__file__).parent
# What the pure core may import: itself, the neutral model types and the error hierarchy.
REVIEW_MAY_IMPORT = {"review", "model", "errors"}


def _unit(module: str) -> str:
    """`reviewbot.queue.enqueue` → `queue`; `reviewbot.settings` → `settings`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _imports() -> dict[str, set[str]]:
    """Each module's reviewbot imports, wherever they stand (inside functions and TYPE_CHECKING blocks too)."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(("reviewbot", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
        targets = found.setdefault(module, set())
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.startswith("reviewbot."))
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "reviewbot":
                # `from reviewbot.state import keys` imports the module reviewbot.state.keys, not the package
                for alias in node.names:
                    name = f"{node.module}.{alias.name}"
                    targets.add(name if _is_module(name) else node.module)
    return found


def _is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, targets in _imports().items():
        graph.setdefault(_unit(module), set()).update(_unit(t) for t in targets if _unit(t) != _unit(module))
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_review_core_imports_no_io_package() -> None:
    offending = {module: sorted(t for t in targets if _unit(t) not in REVIEW_MAY_IMPORT)
                 for module, targets in _imports().items() if _unit(module) == "review"}
    assert {m: t for m, t in offending.items() if t} == {}


def test_no_import_cycle_between_packages() -> None:
    assert _cycles(_package_graph()) == []


def test_no_import_cycle_between_modules() -> None:
    graph = {module: {t for t in targets if t != module} for module, targets in _imports().items()}
    assert _cycles(graph) == []


def test_only_the_cli_and_the_web_lifespan_assemble_the_worker() -> None:
    assemblers = sorted(module for module, targets in _imports().items() if "reviewbot.jobs.registry" in targets)
    assert assemblers == ["reviewbot.cli.service", "reviewbot.webhooks.server"]
    importers = sorted(module for module, targets in _imports().items() if "reviewbot.queue.worker" in targets)
    assert importers == ["reviewbot.jobs.registry"]


def test_the_queue_imports_no_job_and_no_review_logic() -> None:
    offending = {module: sorted(t for t in targets if _unit(t) in ("jobs", "review", "audit", "action", "webhooks"))
                 for module, targets in _imports().items() if _unit(module) == "queue"}
    assert {m: t for m, t in offending.items() if t} == {}


def test_only_the_neutral_contract_stands_at_the_package_root() -> None:
    loose = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "errors.py", "model.py"]


def test_every_redis_key_is_named_in_the_state_tables() -> None:
    """A reader finds every key the service writes in reviewbot/state/*keys.py (docs/operations.md lists them)."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "state" and path.name.endswith("keys.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            text = node.value if isinstance(node, ast.Constant) else (
                node.values[0].value if isinstance(node, ast.JoinedStr) and node.values
                and isinstance(node.values[0], ast.Constant) else None)
            if isinstance(text, str) and re.match(r"reviewbot:\S", text):  # "reviewbot: …" is a message
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []


def test_the_queue_holds_only_queue_plumbing() -> None:
    queue = sorted(path.stem for path in (PACKAGE / "queue").glob("*.py") if path.stem != "__init__")
    assert queue == ["cpu", "embedded", "enqueue", "functions", "observed", "request", "retries", "shutdown", "slots",
                     "steady", "tries", "worker"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_web_app_does_not_import_the_worker_or_the_pipeline() -> None:
    code = ("import json, sys, reviewbot.webhooks.server; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('reviewbot'))))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                       timeout=60).stdout)
    assert "reviewbot.queue.worker" not in loaded
    assert not [m for m in loaded if m.startswith(("reviewbot.inference.", "reviewbot.review.prompt"))]


def test_every_package_says_its_place_in_the_flow() -> None:
    for init in PACKAGE.rglob("__init__.py"):
        assert ast.get_docstring(ast.parse(init.read_text())), f"{init} has no docstring"


def test_no_two_modules_share_a_name() -> None:
    names: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name not in ("__init__.py", "__main__.py"):
            names.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}


def test_the_package_map_names_every_module() -> None:
    """docs/architecture.md is where a newcomer looks for a module: a new one is named there, or this fails."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    unnamed = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                     if path.name not in ("__init__.py", "__main__.py") and path.name not in text)
    assert unnamed == []
