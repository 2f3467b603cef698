"""What `reviewbot review --dry-run` loads: only what it runs, within the module budget the README states."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.integration.test_cli_review import git, new_repo

ROOT = Path(__file__).resolve().parents[2]
# Never needed to plan a local review: Redis and the JWT library it pulls in, the HTTP client, the queue, the web
# server, the terminal UI, PyGithub. Each was once imported by every command through the CLI's families. Nor, for a
# repository without .github/reviewbot.yml (this one), the config file's schema and parser (pydantic, YAML), the
# model answer's schema, asyncio (nothing runs concurrently) or the Markdown parser (only published text needs it).
NOT_NEEDED = ("redis", "jwt", "httpx", "arq", "starlette", "uvicorn", "rich", "github", "pydantic", "yaml",
              "reviewbot.review.findings.schema", "asyncio", "markdown_it")
COUNT = ("import io, json, sys, contextlib\n"
         "from reviewbot.cli.main import main\n"
         "with contextlib.redirect_stdout(io.StringIO()):\n"
         "    rc = main(['review', '--repo', sys.argv[1], '--base', 'main', '--dry-run'])\n"
         "print(json.dumps({'rc': rc, 'modules': sorted(sys.modules)}))\n")


def readme_budget() -> int:
    found = re.search(r"imports at most ([\d,]+) modules", (ROOT / "README.md").read_text())
    assert found, "the README states the dry run's module budget"
    return int(found.group(1).replace(",", ""))


def test_a_one_file_dry_run_imports_only_what_it_runs(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "project")
    (repo / "m.py").write_text("def f(a, b):\n    return a + b\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "feature")
    (repo / "m.py").write_text("def f(a, b):\n    return a - b\n")
    git(repo, "commit", "-qam", "Subtract")
    done = subprocess.run([sys.executable, "-c", COUNT, str(repo)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                            "REVIEWBOT_DATA_DIR": str(tmp_path / "data"),
                                            # this checkout's code, not whichever one the venv installed
                                            "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    modules = result["modules"]
    assert result["rc"] == 0
    assert [m for m in NOT_NEEDED if m in modules] == []
    assert len(modules) <= readme_budget(), f"{len(modules)} modules imported"


def test_the_web_process_loads_neither_the_worker_nor_github_clients(tmp_path: Path) -> None:
    """`reviewbot serve` with an external worker: intake, health and metrics only. The jobs, the pipeline, the
    model client, tree-sitter and PyGithub load with the embedded worker or a job, never for the web app alone."""
    code = ("import json, sys\nfrom reviewbot.webhooks.server import create_app\n"
            "print(json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    modules = json.loads(done.stdout.strip().splitlines()[-1])
    worker_only = ("github", "tree_sitter", "reviewbot.jobs.registry", "reviewbot.review.engine",
                   "reviewbot.inference.client")
    assert [m for m in worker_only if m in modules] == []
