"""`push` deliveries: GitHub's published examples decided without any GitHub call (the payload names the default
branch); only commits landing on the default branch become work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reviewbot.webhooks.events import Ignored, PayloadError, decide
from reviewbot.webhooks.pushes import DefaultBranchPush

PUBLISHED = Path(__file__).resolve().parents[2] / "fixtures" / "webhooks" / "published" / "push.jsonl"


def examples() -> list[dict[str, Any]]:
    return [json.loads(line) for line in PUBLISHED.read_text().splitlines() if line.strip()]


def test_githubs_push_examples_become_an_audit_only_for_the_default_branch() -> None:
    decided = [decide("push", e) for e in examples() if "installation" in e]
    pushes = [d for d in decided if isinstance(d, DefaultBranchPush)]
    assert pushes and {(p.repo, p.branch) for p in pushes} == {("Codertocat/Hello-World", "master")}
    assert {d.reason for d in decided if isinstance(d, Ignored)} == {"push of a tag, not a branch"}


def test_deleted_branches_and_other_branches_are_ignored() -> None:
    [example] = [e for e in examples() if e["ref"] == "refs/heads/master" and "installation" in e][:1]
    assert decide("push", example | {"deleted": True}) == Ignored("branch deleted")
    assert decide("push", example | {"ref": "refs/heads/feature"}) == Ignored(
        "push to a branch other than the default branch")
    # A branch named like the default one elsewhere in the ref is not the default branch.
    assert isinstance(decide("push", example | {"ref": "refs/heads/x/master"}), Ignored)


def test_a_push_to_the_default_branch_without_an_installation_is_a_400() -> None:
    [example] = [e for e in examples() if e["ref"] == "refs/heads/master" and "installation" in e][:1]
    with pytest.raises(PayloadError, match="'installation'"):
        decide("push", {k: v for k, v in example.items() if k != "installation"})
