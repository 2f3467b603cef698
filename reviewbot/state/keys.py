"""The Redis keys and job ids of reviews, commands and questions; audit_keys.py and shared_keys.py hold the rest."""

from __future__ import annotations

PREFIX = "reviewbot"  # `redis-cli --scan --pattern 'reviewbot*'` lists everything the service keeps
# GitHub keeps deliveries, and lets them be redelivered, for 7 days: ids and reviewed SHAs are kept a day longer.
DELIVERY_TTL = 8 * 86_400
STATE_TTL = 30 * 86_400
MEMO_TTL = 86_400
LAYOUT_TTL = 30 * 86_400  # a PR untouched for a month starts fresh
OUTCOME_TTL = 180 * 86_400  # a posted finding's record and outcome, from its posting
PROPOSAL_TTL = 3 * 365 * 86_400  # a rule proposed once is not proposed again for three years, whatever became of it

# -- job ids (arq keeps each as `arq:job:<id>` while queued): derived from the job's arguments, so enqueueing twice
# stores one job.


def review_job_id(repo: str, number: int, head_sha: str) -> str:
    """One job per (repository, PR, head SHA): a second trigger while it is queued or running is a no-op."""
    return f"{PREFIX}:review:{repo}#{number}@{head_sha}"


def command_job_id(repo: str, comment_id: int) -> str:
    return f"{PREFIX}:command:{repo}:{comment_id}"


def conversation_job_id(repo: str, comment_id: int) -> str:
    return f"{PREFIX}:conversation:{repo}:{comment_id}"


def suite_job_id(repo: str, suite_id: int) -> str:
    return f"{PREFIX}:suite:{repo}:{suite_id}"


def fix_job_id(repo: str, number: int, head_sha: str, target: str) -> str:
    """One fix per (repository, PR, head SHA, finding fingerprint or "all"): a second command or click while it is
    queued or running stores nothing."""
    return f"{PREFIX}:fix:{repo}#{number}@{head_sha}:{target}"


def outcomes_job_id(repo: str, number: int, head_sha: str) -> str:
    """One outcomes job per closed pull request and head: a redelivered `closed` stores nothing more."""
    return f"{PREFIX}:closed:{repo}#{number}@{head_sha}"


def alert_job_id(repo: str, number: int, delivery: str) -> str:
    """One job per delivery of a code-scanning alert's dismissal or reopening (a redelivery stores nothing)."""
    return f"{PREFIX}:alert:{repo}#{number}:{delivery}"


def learn_job_id(repo: str, pattern_hash: str) -> str:
    """One rule proposal per repository and pattern: a second dismissal while it is queued stores nothing."""
    return f"{PREFIX}:learn:{repo.lower()}:{pattern_hash}"


def push_audit_job_id(repo: str, branch: str) -> str:
    """One job per repository and branch: pushes while it waits (the debounce window) store nothing more."""
    return f"{PREFIX}:push-audit:{repo.lower()}@{branch}"



# -- webhooks and reviews (STATE_TTL unless said)


def delivery_key(guid: str) -> str:
    """A delivery seen (DELIVERY_TTL): a redelivery answers `duplicate`."""
    return f"{PREFIX}:delivery:{guid}"


def reviewed_key(repo: str, number: int, head_sha: str, config_digest: str) -> str:
    """Set once a SHA was reviewed under a configuration (DELIVERY_TTL): automatic triggers of it cost nothing."""
    return f"{PREFIX}:reviewed:{repo}#{number}@{head_sha}:{config_digest}"


def full_key(job_id: str) -> str:
    """Set when a `full review` arrives while a normal review of the same SHA is queued: upgrades it."""
    return f"{PREFIX}:full:{job_id}"


def security_key(job_id: str) -> str:
    """Set when a `security-review` arrives while a review of the same SHA is queued: upgrades it."""
    return f"{PREFIX}:security:{job_id}"


def paused_key(repo: str, number: int) -> str:
    return f"{PREFIX}:paused:{repo}#{number}"


def polite_key(repo: str, number: int, person: str = "") -> str:
    """Marks that someone without write access was already told, once per PR and person, that they cannot trigger
    reviews (as the Action does); without a person, the PR's one notice that its question limit is reached."""
    return f"{PREFIX}:polite:{repo}#{number}" + (f":{person.lower()}" if person else "")


def check_run_key(repo: str, head_sha: str) -> str:
    """Where the check run of a review lives, so a retried job updates it instead of opening another."""
    return f"{PREFIX}:check:{repo}@{head_sha}"


def check_result_key(repo: str, head_sha: str) -> str:
    return f"{PREFIX}:check-result:{repo}@{head_sha}"


def layout_key(key: str) -> str:
    """A PR's (or local branch's) remembered prompt layout (LAYOUT_TTL): the cached prefix stays stable."""
    return f"{PREFIX}:layout:{key}"


def calibration_key(model: str) -> str:
    """Tokens per character measured for a model (no expiry)."""
    return f"{PREFIX}:calibration:{model}"


def learnings_key(repo: str) -> str:
    """The repository's remembered dismissals: code key (or rule) → JSON; each entry lapses by its own date."""
    return f"{LEARNINGS_PREFIX}{repo}"


LEARNINGS_PREFIX = f"{PREFIX}:learnings:"
OUTCOMES_PREFIX = f"{PREFIX}:outcomes:"


def outcomes_key(installation_id: int, repo: str) -> str:
    """The findings posted in a repository and their outcomes, under its installation: `PR:fingerprint` → JSON
    (OUTCOME_TTL from the last posting; each record is dropped when read 180 days after it was posted)."""
    return f"{OUTCOMES_PREFIX}{int(installation_id)}:{repo.lower()}"


def proposal_key(repo: str, pattern_hash: str) -> str:
    """A rule proposed as a pull request (PROPOSAL_TTL): its number and state; never proposed again while kept."""
    return f"{PREFIX}:proposal:{repo.lower()}:{pattern_hash}"


# -- commands and thread questions


def command_count_key(scope: str, window: int) -> str:
    """Review commands counted in one fixed window, per PR (`repo#n`) or per user (`user:login`)."""
    return f"{PREFIX}:commands:{scope}:{window}"


def conversation_count_key(scope: str, day: str) -> str:
    """Questions answered per day (2 days), per PR (`acme/widgets#7`) or per user (`acme/widgets@alice`)."""
    return f"{PREFIX}:conversations:{scope}:{day}"


def question_mark_key(installation_id: int, comment_id: int) -> str:
    """Set once a question (a review comment, by id) is counted (2 days): later tries do not count it again."""
    return f"{PREFIX}:conversations:counted:{installation_id}:{comment_id}"


# -- jobs' progress (STATE_TTL)


def slots_key(installation_id: int) -> str:
    """Reviews running per installation: job id scored by lease expiry (a killed worker's lapse by themselves)."""
    return f"{PREFIX}:slots:{installation_id}"


def attempts_key(job_id: str) -> str:
    return f"{PREFIX}:attempts:{job_id}"


def tries_key(job_id: str) -> str:
    """What earlier tries of a job spent, taken back by the try that ends it."""
    return f"{PREFIX}:tries:{job_id}"


def memo_prefix(scope: str) -> str:
    """A job's model answers and queued requests (MEMO_TTL): `:done:<request>`, `:pending:<request>`, `:waiting`."""
    return f"{PREFIX}:memo:{scope}"


# -- fixes (STATE_TTL)


def fix_done_key(repo: str, number: int, head_sha: str, target: str) -> str:
    """How the fix of a finding (fingerprint, or "all") on a head ended, as JSON: asking again costs nothing."""
    return f"{PREFIX}:fix-done:{repo}#{number}@{head_sha}:{target}"


def fix_replan_key(repo: str, number: int, head_sha: str, target: str) -> str:
    """Set when a fix whose ref update lost to a push was planned again on that new head: once per head."""
    return f"{PREFIX}:fix-replan:{repo}#{number}@{head_sha}:{target}"


# -- audit fixes and the CI report (FIX_PR_TTL unless said)

FIX_PR_TTL = 90 * 86_400  # an audit finding's fix pull request is opened once in three months, whatever asks again


def audit_fix_job_id(audit_id: str, selectors: str) -> str:
    """One audit-fix job per audit and selection ("all", "CWE-89 #12", "autofix"): a re-delivered command or a
    re-run of the audit's finish stores nothing more."""
    return f"{PREFIX}:audit-fix:{audit_id}:{selectors}"


def audit_fix_once_key(repo: str, branch: str, fingerprint: str) -> str:
    """Set when a fix pull request for an audit finding (or a file's findings) of `branch` was opened or declined
    (FIX_PR_TTL): the value says which, and asking again opens nothing."""
    return f"{PREFIX}:audit-fix-once:{repo.lower()}@{branch}:{fingerprint}"


def fix_ci_key(repo: str, sha: str) -> str:
    """A fix commit (pushed to a pull request, or the head of a fix pull request) → where its CI result is told,
    as JSON (STATE_TTL): the check_suite webhook finds the fix by its commit."""
    return f"{PREFIX}:fix-ci:{repo.lower()}@{sha}"


def fix_ci_reported_key(repo: str, sha: str) -> str:
    """Set once a fix commit's CI result was told (STATE_TTL): later suites and redeliveries tell nothing more."""
    return f"{PREFIX}:fix-ci-told:{repo.lower()}@{sha}"


def fix_ci_job_id(repo: str, sha: str, suite_id: int) -> str:
    """One CI-report job per completed check suite of a fix commit."""
    return f"{PREFIX}:fix-ci:{repo.lower()}@{sha}:{suite_id}"
