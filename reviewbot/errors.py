"""One exception hierarchy: retryable failures (tried again later) versus permanent ones (told to the user)."""

from __future__ import annotations

from reviewbot.model import Usage


class ReviewbotError(Exception):
    """Base of every error reviewbot raises on purpose."""


class RetryableError(ReviewbotError):
    """A transient failure (rate limit, 5xx, capacity): the job is retried later."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class PermanentError(ReviewbotError):
    """A failure that retrying cannot fix; the check run tells the user what to do."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ConfigError(PermanentError):
    """Missing or invalid configuration, naming the variables to fix."""


class GitHubError(PermanentError):
    """GitHub refused a request in a way retrying will not fix (404, 422, 401 after refresh)."""


class GitHubRetryable(RetryableError):
    """GitHub is rate-limiting or unavailable."""


class ModelPermanent(PermanentError):
    """The model provider refused: credentials, quota, plan, context length, bad request. `usage` is what the
    conversation had already been billed when it failed, so a failed step still counts what it cost."""

    def __init__(self, message: str, *, status: int | None = None, context_length: bool = False,
                 usage: Usage | None = None, invalid_input: bool = False) -> None:
        super().__init__(message, status=status)
        self.context_length = context_length
        self.usage = usage or Usage()
        self.invalid_input = invalid_input  # the body did not fit the model's input schema (another form may)


class ModelRetryable(RetryableError):
    """Capacity, rate limit, timeout or 5xx from the model provider."""


class ModelUnreachable(ModelRetryable):
    """No answer at all: the connection failed or timed out (the server is down, the URL or the network is wrong)."""


class ModelBusy(ModelRetryable):
    """The provider is out of capacity (Workers AI code 3040)."""


class Waiting(RetryableError):
    """Not a failure: the work waits (provider queue, our own rate limit) and comes back after retry_after."""


class ModelQueued(Waiting):
    """The request sits in the provider's asynchronous queue; poll it later without holding a worker slot."""


class RateLimited(Waiting):
    """Our own per-account request budget is spent for now; requests queue instead of drawing 429s."""


class CpuBusy(Waiting):
    """This worker's core is taken by CPU-bound work: the job goes back to the queue for a worker with a free one."""


class ModelOutputError(ModelPermanent):
    """The model's answer could not be validated, even after a repair turn."""


class DiffError(PermanentError):
    """A diff that could not be parsed."""


class OverBudget(ModelPermanent):
    """A request was not sent: the review's token budget or a daily budget cannot cover it. A model failure as far
    as the review is concerned: an extra pass is skipped, a verification batch posts its candidates unverified."""


class LeaseLost(ReviewbotError):
    """This job's lease lapsed and another worker may be running it: stop before paying or posting anything more.
    Neither retried nor told to the user; the lease's new holder finishes the job."""


class AdvisoriesUnavailable(GitHubError):
    """No draft security advisory can be written here: the installation has not been granted
    `repository_advisories: write` (403), or advisories are not available to it on this repository (404)."""


class CodeScanningUnavailable(GitHubError):
    """Code scanning takes no upload here: a private repository without GitHub Code Security / Advanced Security,
    an archived one, or an installation that has not granted `security_events`. The audit falls back to its
    tracking issue."""


class SarifRejected(GitHubError):
    """GitHub refused or failed to process a SARIF upload (400 invalid, 413 too large, processing `failed`)."""

    def __init__(self, message: str, *, status: int | None = None, errors: tuple[str, ...] = ()) -> None:
        super().__init__(message, status=status)
        self.errors = errors


class AlreadySettled(ReviewbotError):
    """Another try of this job stored its result while this one built its request: stop before paying again."""
