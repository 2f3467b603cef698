"""`reviewbot review` reads the base commit's config file once; without one it uses the schema's very defaults."""

from __future__ import annotations

from reviewbot.repos.localinput import configured
from reviewbot.review.config import RepoConfig, context_options, parse_config, precision
from reviewbot.review.context.options import CONFIG_PATH
from reviewbot.review.context.snapshot import MemorySnapshot

CHANGED = ["app/calc.py", "docs/index.md"]


def test_without_a_config_file_the_options_and_policy_are_the_schemas_defaults() -> None:
    for files in ({}, {CONFIG_PATH: ""}, {CONFIG_PATH: "  \n"}):
        options, problems, policy = configured(MemorySnapshot(files), 42_000, CHANGED)
        assert options == context_options(RepoConfig(), 42_000, CHANGED, tools=False)
        assert policy == precision(RepoConfig()) and problems == ()


def test_a_config_file_sets_options_policy_and_problems_as_the_service_reads_it() -> None:
    text = ("budget: 9000\nignore: ['docs/**']\nfocus: [security]\npasses: 2\nverify: off\n"
            "path_instructions: {'app/**': 'Check rounding.'}\n")
    options, problems, policy = configured(MemorySnapshot({CONFIG_PATH: text}), 42_000, CHANGED)
    loaded = parse_config(text)
    assert options == context_options(loaded.config, 42_000, CHANGED, tools=False)
    assert options.budget_tokens == 9000 and options.ignore == ("docs/**",)
    assert "Check rounding." in options.instructions
    assert policy == precision(loaded.config) and policy.security and policy.passes == 2 and problems == ()
    _, problems, _ = configured(MemorySnapshot({CONFIG_PATH: "max_comments: many\n"}), 42_000, CHANGED)
    assert problems and "max_comments" in problems[0]
