"""Layout for the prefix cache: fixed section order, remembered block order on re-review, bounded prompts."""

from __future__ import annotations

from reviewbot.review.prompt.layout import Layout
from reviewbot.review.prompt.plan import Plan
from reviewbot.review.prompt.sections import estimate_tokens
from tests.context_helpers import plan_for, prompt_text

CORE = ("def fetch(url):\n    return url\n\n\ndef parse(text):\n    return text.split()\n")
BASE = {
    "app/core.py": CORE,
    "app/jobs.py": "from app.core import fetch\n\n\ndef nightly():\n    return fetch('https://example.com')\n",
    "app/cli.py": "from app.core import parse\n\n\ndef main(argv):\n    return parse(' '.join(argv))\n",
}


def test_sections_come_in_cache_order_and_system_is_the_same_for_every_pr() -> None:
    one = plan_for(BASE, {**BASE, "app/core.py": CORE.replace("return url", "return url.strip()")})
    two = plan_for({"x.py": "A = 1\n"}, {"x.py": "A = 2\n"}, title="Other", description="Another PR")
    names = [s.name for s in one.prompt.sections]
    assert names == ["system", "guidance", "context files", "diff", "more context files",
                     "diff, changed by the newest push", "pull request", "notes"]
    assert one.prompt.messages[0] == two.prompt.messages[0]  # byte-identical: no dates, ids or counts
    user = one.prompt.messages[1]["content"]
    # What changes least first: base context, the diff, then the pull request's own text (title, description).
    assert user.index("## Files as they were before") < user.index("## The diff") < user.index("## Pull request")


def test_a_re_review_keeps_the_earlier_blocks_in_place_and_adds_new_context_after_the_unchanged_diff() -> None:
    base = {**BASE, "app/alpha.py": "def hello():\n    return 'hi'\n"}
    first_head = {**base, "app/core.py": CORE.replace("def fetch(url)", "def fetch(url, timeout)"),
                  "app/alpha.py": "def hello():\n    return 'hello'\n"}
    first = plan_for(base, first_head)
    assert [p for p, _, _ in first.coverage.context] == ["app/jobs.py", "app/alpha.py", "app/core.py"]
    # The follow-up push changes parse()'s signature too: a new caller, app/cli.py, joins the context.
    second_head = {**first_head, "app/core.py": first_head["app/core.py"].replace("def parse(text)",
                                                                                  "def parse(text, sep)")}
    stored = Layout.from_json(first.layout.as_json())  # through JSON, as Redis or the CLI file store keeps it
    again = plan_for(base, second_head, previous=stored)
    assert [p for p, _, _ in again.coverage.context] == ["app/jobs.py", "app/alpha.py", "app/core.py",
                                                       "app/cli.py"]
    old_user, new_user = first.prompt.messages[1]["content"], again.prompt.messages[1]["content"]
    # Byte-identical through the earlier context and the diff of the file the push left alone (notes.py) ...
    unchanged_end = old_user.index("--- app/alpha.py") + len(diff_of(first, "app/alpha.py"))
    assert new_user[:unchanged_end] == old_user[:unchanged_end]
    # ... then the new caller, then the diff the push changed, then the pull request's text.
    order = [new_user.index(s) for s in ("--- app/alpha.py", "### app/cli.py", "--- app/core.py", "## Pull request")]
    assert order == sorted(order)
    assert again.reuse_tokens >= estimate_tokens(old_user[:unchanged_end]) - 10  # (per-block rounding)
    # A third review keeps the added block where it was: the prefix now runs through it.
    third_head = {**second_head, "app/core.py": second_head["app/core.py"] + "\n\ndef extra():\n    return 1\n"}
    third = plan_for(base, third_head, previous=Layout.from_json(again.layout.as_json()))
    late_end = new_user.index("--- app/core.py")
    assert third.prompt.messages[1]["content"][:late_end] == new_user[:late_end]


def test_follow_up_pushes_keep_unchanged_diff_files_in_front() -> None:
    head = {**BASE, "app/core.py": CORE.replace("return url", "return url.strip()"),
            "app/cli.py": BASE["app/cli.py"] + "\n\ndef version():\n    return 1\n"}
    first = plan_for(BASE, head)
    assert first.layout.diff_order == ("app/cli.py", "app/core.py")
    pushes = [first]
    for n in range(2):
        head = {**head, "app/cli.py": head["app/cli.py"] + f"\n\ndef extra_{n}():\n    return {n}\n"}
        pushes.append(plan_for(BASE, head, previous=pushes[-1].layout))
    second, third = pushes[1], pushes[2]
    # The file whose diff did not change keeps its place; the one that keeps changing goes last.
    assert second.layout.diff_order == third.layout.diff_order == ("app/core.py", "app/cli.py")
    core_end = prompt_text(third).index("--- app/cli.py")
    assert prompt_text(third)[:core_end] == prompt_text(second)[:core_end]  # through core.py's diff
    assert third.reuse_tokens > second.reuse_tokens and third.reuse_tokens / third.prompt.tokens > 0.8


def test_a_diff_with_5000_files_stays_within_the_budget_and_says_what_was_left_out() -> None:
    count = 5_000
    base = {f"pkg{i % 50}/mod_{i}.py": f"def f_{i}(x):\n    return x + {i}\n" for i in range(count)}
    text = "".join(f"diff --git a/pkg{i % 50}/mod_{i}.py b/pkg{i % 50}/mod_{i}.py\nindex 1..2 100644\n"
                   f"--- a/pkg{i % 50}/mod_{i}.py\n+++ b/pkg{i % 50}/mod_{i}.py\n@@ -1,2 +1,2 @@\n"
                   f" def f_{i}(x):\n-    return x + {i}\n+    return x - {i}\n" for i in range(count))
    plan = plan_for(base, base, diff_text=text)
    cov = plan.coverage
    assert plan.prompt.tokens <= 100_000
    assert len(cov.reviewed) + len(cov.partial) + len(cov.skipped) == count
    assert len(cov.reviewed) > 500 and cov.skipped[0][1].startswith("over the prompt's token budget")
    assert "… and" in prompt_text(plan)  # the list of left-out files is bounded too


def test_a_50_mb_file_is_named_not_read() -> None:
    huge = "INSERT INTO t VALUES (1);\n" * 2_000_000  # 52 MB
    base = {"app/x.py": "X = 1\n", "data/dump.sql": huge}
    text = ("diff --git a/data/dump.sql b/data/dump.sql\nnew file mode 100644\nindex 0000000..1111111\n"
            "--- /dev/null\n+++ b/data/dump.sql\n@@ -0,0 +1,2000000 @@\n" + "+INSERT INTO t VALUES (1);\n" * 2_000_000
            + "diff --git a/app/x.py b/app/x.py\nindex 1..2 100644\n--- a/app/x.py\n+++ b/app/x.py\n"
              "@@ -1 +1 @@\n-X = 1\n+X = 2\n")
    plan = plan_for(base, base, diff_text=text)
    assert plan.prompt.tokens <= 100_000
    assert dict(plan.coverage.skipped)["data/dump.sql"] == "too large (54.0 MB diff)"
    assert plan.coverage.reviewed == ("app/x.py",)


def diff_of(plan: Plan, path: str) -> str:
    """The rendered diff of one file as the prompt holds it."""
    user = plan.prompt.messages[1]["content"]
    start = user.index(f"--- {path}")
    end = user.find("\n\n", start)
    return user[start:end if end >= 0 else len(user)]


def test_a_first_review_puts_the_files_a_push_most_likely_changes_last() -> None:
    base = {**BASE, "docs/guide.md": "# Guide\n", "tests/test_core.py": "def test_fetch():\n    assert True\n"}
    head = {**base, "app/core.py": CORE.replace("return url", "return url.strip()"),
            "docs/guide.md": "# Guide\n\nFetch strips.\n",
            "tests/test_core.py": "def test_fetch():\n    assert fetch(' a ') == 'a'\n"}
    # Prose first, then tests, then code: follow-up pushes answer findings, which are about code.
    assert plan_for(base, head).layout.diff_order == ("docs/guide.md", "tests/test_core.py", "app/core.py")
