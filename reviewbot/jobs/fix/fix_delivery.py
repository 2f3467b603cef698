"""A checked fix delivered: one commit on a same-repository pull request's branch when pushes are on and granted,
else ```suggestion comments or a patch; never a push to a fork. The reply goes where the fix was asked for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reviewbot.errors import GitHubError
from reviewbot.fixes.render import (
    commit_message,
    declined_reply,
    patch_block,
    pushed_reply,
    suggested_reply,
    suggestions,
)
from reviewbot.fixes.target import FixTarget
from reviewbot.review.publish.markdown import neutralize_inline

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort, PullInfo
    from reviewbot.jobs.fix.fix_enqueue import FixArgs
    from reviewbot.jobs.fix.fix_plan import Planned

# No `contents: write` (403, or 404 for what the token may not see), a protected branch (403 or 422; a 422 saying
# "not a fast forward" is BranchMoved, raised before this), a ref GitHub will not move (409).
REFUSED = (403, 404, 409, 422)


@dataclass(frozen=True)
class Delivered:
    outcome: str  # pushed | suggested
    reply: str  # what the person is told, once the outcome is remembered (a retry then pushes nothing twice)
    sha: str = ""


async def deliver(port: GitHubPort, mode: str, args: FixArgs, pull: PullInfo, targets: Sequence[FixTarget],
                  planned: Planned, key: bytes) -> Delivered:
    """Push (BranchMoved when a person pushed meanwhile: the caller plans again) or suggest."""
    change, repo = planned.change, args.repo
    refused = ""
    if mode == "push" and pull.same_repository:
        try:
            sha = await port.commit_files(repo, pull.head_ref, pull.head_sha,
                                          {p: change.after[p] for p in change.paths},
                                          commit_message(targets, planned.explanation, repo=repo, key=key))
        except GitHubError as exc:
            if exc.status not in REFUSED:
                raise
            # A protected branch (or a token without `contents: write`): suggested instead, with GitHub's reason,
            # and remembered as suggested so asking again pays nothing.
            refused = refusal(exc)
        else:
            return Delivered("pushed", pushed_reply(targets, sha, planned.explanation), sha)
    made = suggestions(change, planned.commentable, targets[0].title if len(targets) == 1 else "reviewbot's fix")
    if made is None:
        return Delivered("suggested", refused + suggested_reply(targets, planned.explanation, patch_block(change)))
    comments: list[dict[str, Any]] = []
    for s in made:
        comment: dict[str, Any] = {"path": s.path, "line": s.end, "side": "RIGHT", "body": s.body}
        if s.start < s.end:
            comment |= {"start_line": s.start, "start_side": "RIGHT"}
        comments.append(comment)
    await port.create_review(repo, args.number, {"commit_id": pull.head_sha, "event": "COMMENT", "comments": comments,
                                                 "body": "Suggested fix, checked by reviewbot: commit it from here."})
    return Delivered("suggested", refused + suggested_reply(targets, planned.explanation))


def refusal(exc: GitHubError) -> str:
    """GitHub's words (a branch protection rule's, which a repository's admin wrote) on one neutralised line."""
    said = neutralize_inline(" ".join(str(exc).split())[:200])
    return f"GitHub refused the push ({exc.status}: {said}), so the fix is suggested instead.\n\n"


async def tell_declined(port: GitHubPort, args: FixArgs, targets: Sequence[FixTarget], why: str) -> None:
    await reply(port, args, declined_reply(targets, why))


async def reply(port: GitHubPort, args: FixArgs, body: str) -> None:
    """In the review thread the fix was asked in, else on the pull request."""
    if args.origin == "thread" and args.comment_id:
        await port.reply_to_review_comment(args.repo, args.number, args.comment_id, body)
    else:
        await port.create_issue_comment(args.repo, args.number, body)
