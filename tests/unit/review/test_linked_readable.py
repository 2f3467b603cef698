"""Which linked issues a review may read, the organisation's allow-list, and GitHub's two visibility fields."""

from __future__ import annotations

import pytest

from reviewbot.app.port.pulls import visibility_of
from reviewbot.review.config import parse_config, raw_mapping
from reviewbot.review.linked.readable import decide

REPO = "acme/widgets"
ORG = "linked_issues:\n  readable_repos: [acme/tracker]\n"


def test_own_issues_are_read_allow_listed_ones_only_for_a_non_public_pull_request_the_rest_if_public() -> None:
    assert decide(REPO, "Acme/Widgets", pr_public=True, readable=()) == "read"
    assert decide(REPO, "acme/tracker", pr_public=False, readable=["Acme/Tracker"]) == "read"
    assert decide(REPO, "acme/tracker", pr_public=True, readable=["acme/tracker"]) == "read if public"
    assert decide(REPO, "acme/other", pr_public=False, readable=["acme/tracker"]) == "read if public"


@pytest.mark.parametrize(("repo", "expected"), [
    ({"private": False, "visibility": "public"}, "public"),
    ({"private": False}, "public"),  # an older GitHub Enterprise sends only `private`
    ({"private": True}, "private"),
    ({"private": True, "visibility": "private"}, "private"),
    ({"private": True, "visibility": "internal"}, "internal"),
    ({"private": False, "visibility": "private"}, "unknown"),  # they disagree: neither answer is trusted
    ({"private": True, "visibility": "public"}, "unknown"),
    ({"visibility": "public"}, "unknown"),
    ({}, "unknown"),
    (None, "unknown"),
])
def test_visibility_is_public_only_when_nothing_says_otherwise(repo: object, expected: str) -> None:
    assert visibility_of(repo) == expected


def test_the_allow_list_comes_from_the_organisations_defaults_only() -> None:
    assert parse_config(None, defaults=raw_mapping(ORG)).config.linked_issues.readable_repos == ["acme/tracker"]
    widened = parse_config("linked_issues:\n  readable_repos: [acme/tracker, acme/payroll]\nmax_comments: 3\n",
                           defaults=raw_mapping(ORG))
    assert widened.config.linked_issues.readable_repos == ["acme/tracker"] and widened.config.max_comments == 3
    assert widened.errors == [".github/reviewbot.yml: `linked_issues` is read only from the organisation's "
                              "`.github` repository (its default branch); ignored"]
    # The `.github` repository's own file is the defaults: repeating them there is no problem.
    assert not parse_config(ORG, defaults=raw_mapping(ORG)).errors
    assert not parse_config(ORG, org_file=True).errors  # `reviewbot config validate --org`
    assert parse_config(ORG).errors and not parse_config(ORG).config.linked_issues.readable_repos
    bad = parse_config("linked_issues:\n  readable_repos: [tracker]\n", org_file=True)
    assert "not an owner/name: tracker" in bad.errors[0]
