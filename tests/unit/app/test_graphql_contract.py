"""The bot's GraphQL documents against GitHub's published schema (specs/github/graphql-subset.graphql)."""

from __future__ import annotations

import pytest

from reviewbot.app.threads import RESOLVE_MUTATION, THREADS_QUERY
from tests.fakes.github_contract import check_graphql


@pytest.mark.parametrize(("document", "variables"), [
    (THREADS_QUERY, {"owner": "octo", "name": "repo", "number": 7, "after": None}),
    (THREADS_QUERY, {"owner": "octo", "name": "repo", "number": 7, "after": "Y3Vyc29yOjEwMA=="}),
    (RESOLVE_MUTATION, {"threadId": "PRRT_kwDOA"}),
])
def test_documents_validate_against_githubs_schema_without_deprecated_fields(
        document: str, variables: dict[str, object]) -> None:
    # `databaseId` on review comments is deprecated (32 bits); the check refuses deprecated fields.
    assert check_graphql(document, variables) == []


def test_the_check_catches_an_unknown_field_a_deprecated_one_and_a_bad_variable() -> None:
    assert "Cannot query field 'paths'" in check_graphql(THREADS_QUERY.replace(" path ", " paths "),
                                                          {"owner": "o", "name": "n", "number": 1})[0]
    deprecated = "query { repository(owner: \"o\", name: \"n\") { pullRequest(number: 1) { reviewThreads(first: 1) {" \
                 " nodes { comments(first: 1) { nodes { databaseId } } } } } } }"
    assert any("Cannot query field 'databaseId'" in e or "deprecated" in e for e in check_graphql(deprecated, {}))
    assert "ID!" in check_graphql(RESOLVE_MUTATION, {"threadId": None})[0]
