"""GitHubPort: the operations the bot needs, over PyGithub, called from async code through a thread.

One seam assembled from one mixin per GitHub resource (pulls, contents, checks, reviews, issues, linked issues;
code scanning, the issues themselves, draft security advisories, what audits read, the Git Data API, the pull
requests reviewbot opens itself, and a commit's check runs) over PortBase.
"""

from __future__ import annotations

from reviewbot.app.port.advisories import AdvisoriesAPI
from reviewbot.app.port.audits import AuditsAPI
from reviewbot.app.port.base import DIFF_MEDIA_TYPE, MAX_LISTED
from reviewbot.app.port.checks import ChecksAPI
from reviewbot.app.port.code_scanning import CodeScanning
from reviewbot.app.port.commit_checks import CommitChecksAPI
from reviewbot.app.port.contents import ContentsAPI
from reviewbot.app.port.issues import IssuesAPI
from reviewbot.app.port.linked_issues import LinkedIssuesAPI
from reviewbot.app.port.own_pulls import OwnPullsAPI
from reviewbot.app.port.pulls import PullInfo, PullsAPI
from reviewbot.app.port.repo_issues import RepoIssues
from reviewbot.app.port.reviews import ReviewsAPI
from reviewbot.app.requester import new_github

__all__ = ["DIFF_MEDIA_TYPE", "MAX_LISTED", "GitHubPort", "PullInfo", "new_github"]


class GitHubPort(PullsAPI, ContentsAPI, ChecksAPI, ReviewsAPI, IssuesAPI, AuditsAPI, LinkedIssuesAPI, CodeScanning,
                 RepoIssues, AdvisoriesAPI, OwnPullsAPI, CommitChecksAPI):
    """Everything reviewbot asks of GitHub for one installation; no PyGithub type leaks out."""
