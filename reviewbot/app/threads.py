"""Review threads over GraphQL, the only API that lists their state and resolves them."""

from __future__ import annotations

from typing import Any, TypedDict

from reviewbot.app.requester import Requester

MAX_PAGES = 20  # 2,000 threads: more than any pull request a review bot should touch

THREADS_QUERY = """
query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        nodes {
          id isResolved isOutdated path line resolvedBy { login }
          comments(first: 100) { nodes { fullDatabaseId author { login } body } }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}"""

RESOLVE_MUTATION = """
mutation($threadId: ID!) {
  resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } }
}"""


class ThreadComment(TypedDict):
    database_id: int
    author: str
    body: str


class ReviewThread(TypedDict):
    id: str
    is_resolved: bool
    is_outdated: bool
    path: str
    line: int | None  # None once the thread is outdated
    comments: list[ThreadComment]
    resolved_by: str  # who resolved it (a person, or the App's bot login); empty while unresolved


async def review_threads(requester: Requester, repo: str, number: int) -> list[ReviewThread]:
    owner, _, name = repo.partition("/")
    threads: list[ReviewThread] = []
    after: str | None = None
    for _ in range(MAX_PAGES):
        data = await requester.graphql(THREADS_QUERY, {"owner": owner, "name": name, "number": int(number),
                                                       "after": after}, what=f"review threads {repo}#{number}")
        page = (((data.get("repository") or {}).get("pullRequest") or {}).get("reviewThreads") or {})
        threads.extend(_thread(node) for node in page.get("nodes") or [] if isinstance(node, dict))
        info = page.get("pageInfo") or {}
        if not info.get("hasNextPage") or not info.get("endCursor"):
            break
        after = str(info["endCursor"])
    return threads


async def resolve_thread(requester: Requester, thread_id: str) -> bool:
    """Resolve one thread; returns whether GitHub now reports it resolved."""
    data = await requester.graphql(RESOLVE_MUTATION, {"threadId": thread_id}, what=f"resolve thread {thread_id}",
                                   mutation=True)
    thread = (data.get("resolveReviewThread") or {}).get("thread") or {}
    return bool(thread.get("isResolved"))


def _thread(node: dict[str, Any]) -> ReviewThread:
    comments = ((node.get("comments") or {}).get("nodes")) or []
    line = node.get("line")
    return ReviewThread(
        id=str(node.get("id") or ""), is_resolved=bool(node.get("isResolved")),
        is_outdated=bool(node.get("isOutdated")), path=str(node.get("path") or ""),
        line=int(line) if isinstance(line, int) else None,
        resolved_by=str((node.get("resolvedBy") or {}).get("login") or ""),
        comments=[ThreadComment(database_id=_big_int(c.get("fullDatabaseId")),
                                author=str((c.get("author") or {}).get("login") or ""), body=str(c.get("body") or ""))
                  for c in comments if isinstance(c, dict)])


def _big_int(value: Any) -> int:
    """GraphQL's BigInt arrives as a string: comment ids outgrew the 32 bits of the deprecated `databaseId`."""
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0
