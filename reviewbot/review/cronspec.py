"""An audit schedule (`daily`, `weekly` or a five-field cron expression, UTC) and the period a moment falls in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

NAMED = ("daily", "weekly")
# (lowest, highest) of minute, hour, day of month, month, day of week (0 and 7 are Sunday)
RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))


@dataclass(frozen=True)
class Cron:
    fields: tuple[frozenset[int], ...]
    any_day: bool  # day of month is `*`
    any_weekday: bool  # day of week is `*`

    def matches(self, moment: datetime) -> bool:
        minute, hour, day, month, weekday = self.fields
        if moment.minute not in minute or moment.hour not in hour or moment.month not in month:
            return False
        in_day = moment.day in day
        in_weekday = (moment.isoweekday() % 7) in weekday or (moment.isoweekday() == 7 and 7 in weekday)
        if self.any_day or self.any_weekday:  # cron: when both are restricted, either one matching is enough
            return in_day and in_weekday
        return in_day or in_weekday


def parse_cron(text: str) -> Cron:
    """Five fields of numbers, `*`, ranges `a-b`, steps `/n` and lists `,`; ValueError saying what is wrong."""
    parts = text.split()
    if len(parts) != 5:
        raise ValueError("a cron expression has five fields: minute hour day-of-month month day-of-week")
    fields = tuple(_field(part, low, high) for part, (low, high) in zip(parts, RANGES, strict=True))
    return Cron(fields, parts[2] == "*", parts[4] == "*")


def _field(text: str, low: int, high: int) -> frozenset[int]:
    values: set[int] = set()
    for item in text.split(","):
        body, _, step_text = item.partition("/")
        step = _number(step_text, 1, high) if step_text else 1
        if body == "*":
            first, last = low, high
        elif "-" in body:
            start, _, end = body.partition("-")
            first, last = _number(start, low, high), _number(end, low, high)
        else:
            first = _number(body, low, high)
            last = high if step_text else first
        if first > last:
            raise ValueError(f"range {body!r} runs backwards")
        values.update(range(first, last + 1, step))
    return frozenset(values)


def _number(text: str, low: int, high: int) -> int:
    if not text.isascii() or not text.isdigit() or not low <= int(text) <= high:
        raise ValueError(f"{text!r} is not a number from {low} to {high}")
    return int(text)


def check_schedule(text: str) -> str:
    """The schedule as written, or ValueError (for the configuration's validation)."""
    if text.strip().lower() not in NAMED:
        parse_cron(text)
    return text.strip()


def due_period(schedule: str, now: datetime, window: timedelta) -> str | None:
    """The period the scan at `now` starts, if the schedule has one in (now - window, now]: the UTC day for
    `daily`, the ISO week for `weekly`, the matching minute for a cron expression. The caller runs an audit once
    per period (a key in Redis), so several scans in one period, by any number of workers, start one audit."""
    name = schedule.strip().lower()
    if name == "daily":
        return now.strftime("day-%Y-%m-%d")
    if name == "weekly":
        year, week, _ = now.isocalendar()
        return f"week-{year}-{week:02d}"
    cron = parse_cron(schedule)
    moment = now.replace(second=0, microsecond=0)
    while moment > now - window:
        if cron.matches(moment):
            return moment.strftime("cron-%Y-%m-%dT%H:%M")
        moment -= timedelta(minutes=1)
    return None
