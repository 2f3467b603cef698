"""Daily limits on thread questions: per pull request and per person over the installation, one count per question."""

from __future__ import annotations

import time
from typing import Any

from reviewbot.state import keys

# KEYS: the question's mark, the PR's counter, the person's counter. ARGV: TTL s, PR limit, person limit.
# 0: counted now or before (a job tries again after a busy model or a queued request: the same question);
# 1 / 2: the PR's / the person's limit is reached, and the question is not counted.
COUNT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[2]) then return 1 end
if tonumber(redis.call('GET', KEYS[3]) or '0') >= tonumber(ARGV[3]) then return 2 end
redis.call('SET', KEYS[1], '1', 'EX', ARGV[1])
for i = 2, 3 do
  redis.call('INCR', KEYS[i])
  redis.call('EXPIRE', KEYS[i], ARGV[1])
end
return 0
"""
TTL_S = 2 * 86_400


async def count_question(redis: Any, installation_id: int, repo: str, number: int, author: str, comment_id: int,
                         pr_limit: int, person_limit: int) -> bool:
    """Count this question once against the PR's and the person's daily limits (the person's over every
    repository of the installation); False, and not counted, when either is reached."""
    day = time.strftime("%Y-%m-%d", time.gmtime())
    pr = keys.conversation_count_key(f"{repo}#{number}", day)
    person = keys.conversation_count_key(f"user:{installation_id}:{author.lower()}", day)
    hit = await redis.eval(COUNT, 3, keys.question_mark_key(installation_id, comment_id), pr, person, TTL_S, pr_limit,
                           person_limit)
    return int(hit) == 0
