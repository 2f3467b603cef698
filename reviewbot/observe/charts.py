"""Server-side SVG charts for the dashboard (cost, cache, outcomes): no script, no external library, nothing for
the CSP to block."""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup, escape

from reviewbot.observe.ledger import Day
from reviewbot.outcomes.records import Rate

WIDTH, HEIGHT = 600, 220
LEFT, RIGHT, TOP, BOTTOM = 60, 44, 14, 30
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM


def _svg(label: str, css: str, body: list[str], height: int = HEIGHT) -> Markup:
    head = (f'<svg class="chart {css}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
            f'width="{WIDTH}" height="{height}" role="img" aria-label="{escape(label)}">'
            f"<title>{escape(label)}</title>")
    return Markup(head + "".join(body) + "</svg>")  # noqa: S704 - every piece of text is escaped above or below


def _x(index: int, count: int) -> float:
    return LEFT + PLOT_W * (index + 0.5) / max(count, 1)


def _y(value: float, top: float) -> float:
    return TOP + PLOT_H * (1 - (value / top if top else 0.0))


def _nice(value: float) -> float:
    """A round axis maximum at or above `value` (1, 2 or 5 times a power of ten)."""
    if value <= 0:
        return 1.0
    scale = 10.0 ** math.floor(math.log10(value))
    return next(step * scale for step in (1, 2, 5, 10) if value <= step * scale * (1 + 1e-9))


def _frame(days: Sequence[Day], left_labels: list[str], right_labels: list[str] | None = None) -> list[str]:
    parts = [f'<line class="axis" x1="{LEFT}" y1="{TOP + PLOT_H}" x2="{LEFT + PLOT_W}" y2="{TOP + PLOT_H}" '
             'stroke="#888"/>']
    for i, text in enumerate(left_labels):
        y = TOP + PLOT_H * (1 - i / (len(left_labels) - 1))
        parts.append(f'<line class="grid" x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + PLOT_W}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text class="tick" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">'
                     f"{escape(text)}</text>")
    for i, text in enumerate(right_labels or []):
        y = TOP + PLOT_H * (1 - i / (len(right_labels or []) - 1))
        parts.append(f'<text class="tick right" x="{LEFT + PLOT_W + 6}" y="{y + 4:.1f}" font-size="11">'
                     f"{escape(text)}</text>")
    step = max(1, len(days) // 6)
    for i in range(len(days) - 1, -1, -step):  # label the newest day and every `step` days before it
        parts.append(f'<text class="tick" x="{_x(i, len(days)):.1f}" y="{HEIGHT - 10}" text-anchor="middle" '
                     f'font-size="11">{escape(days[i].date[5:])}</text>')
    return parts


def cost_chart(days: Sequence[Day]) -> Markup:
    """Bars: dollars per day (left axis); dots and line: reviews per day (right axis)."""
    top_cost = _nice(max((d.cost_usd for d in days), default=0.0))
    top_reviews = _nice(max((d.reviews for d in days), default=0))
    body = _frame(days, [f"${top_cost * i / 2:.2f}" for i in range(3)],
                  [f"{top_reviews * i / 2:g}" for i in range(3)])
    band = PLOT_W / max(len(days), 1)
    points = []
    for i, day in enumerate(days):
        x, y = _x(i, len(days)), _y(day.cost_usd, top_cost)
        tip = escape(f"{day.date}: ${day.cost_usd:.2f}, {day.reviews} review(s), {day.failures} failed")
        body.append(f'<rect class="bar" x="{x - band * 0.35:.1f}" y="{y:.1f}" width="{band * 0.7:.1f}" '
                    f'height="{TOP + PLOT_H - y:.1f}" fill="#6c8ebf"><title>{tip}</title></rect>')
        points.append((x, _y(day.reviews, top_reviews)))
    body.append('<polyline class="reviews" fill="none" stroke="#d79b00" stroke-width="2" points="'
                + " ".join(f"{x:.1f},{y:.1f}" for x, y in points) + '"/>')
    body += [f'<circle class="reviews" cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#d79b00"/>' for x, y in points]
    return _svg("Cost (bars, left axis) and reviews (line, right axis) per day", "cost-chart", body)


def cache_chart(days: Sequence[Day]) -> Markup:
    """The share of prompt tokens served from the provider's cache, per day (days without reviews are gaps)."""
    body = _frame(days, ["0%", "50%", "100%"])
    segment: list[str] = []
    segments = [segment]
    for i, day in enumerate(days):
        if not day.prompt_tokens:
            segment = []
            segments.append(segment)
            continue
        x, y = _x(i, len(days)), _y(day.cache_ratio, 1.0)
        segment.append(f"{x:.1f},{y:.1f}")
        tip = escape(f"{day.date}: {day.cache_ratio:.0%} of {day.prompt_tokens:,} prompt tokens cached")
        body.append(f'<circle class="ratio" cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#82b366"><title>{tip}</title>'
                    "</circle>")
    body += [f'<polyline class="ratio" fill="none" stroke="#82b366" stroke-width="2" points="{" ".join(s)}"/>'
             for s in segments if len(s) > 1]
    return _svg("Cache hit ratio per day", "cache-chart", body)


OUTCOME_PARTS = (("fixed", "#82b366"), ("dismissed", "#d79b00"), ("resolved", "#6c8ebf"),
                 ("open", "#b85450"), ("pending", "#cccccc"))
ROW = 24


def outcome_chart(repo: str, rows: Sequence[Rate]) -> Markup:
    """One repository's findings per category as stacked bars (fixed, dismissed, resolved by a person, left
    open, still pending), the resolution rate at the end of each bar, and a legend."""
    height = TOP + ROW * len(rows) + 34
    top = max((r.posted for r in rows), default=1)
    width = WIDTH - LEFT - 46 - 72  # room for the rate after the longest bar
    body: list[str] = []
    for i, rate in enumerate(rows):
        y = TOP + i * ROW
        body.append(f'<text class="tick" x="{LEFT + 40}" y="{y + 15}" text-anchor="end" font-size="11">'
                    f"{escape(rate.key)}</text>")
        x = float(LEFT + 46)
        counts = (rate.fixed, rate.dismissed, rate.resolved, rate.open_at_merge + rate.open_at_close, rate.pending)
        for (name, color), n in zip(OUTCOME_PARTS, counts, strict=True):
            if n:
                w = width * n / top
                tip = escape(f"{rate.key}: {n} {name} of {rate.posted}")
                body.append(f'<rect class="{name}" x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{ROW - 6}" '
                            f'fill="{color}"><title>{tip}</title></rect>')
                x += w
        body.append(f'<text class="rate" x="{x + 6:.1f}" y="{y + 15}" font-size="11">'
                    f"{rate.resolution_rate:.0%} fixed</text>")
    for i, (name, color) in enumerate(OUTCOME_PARTS):
        lx = LEFT + 46 + i * 90
        body.append(f'<rect x="{lx}" y="{height - 22}" width="10" height="10" fill="{color}"/>'
                    f'<text x="{lx + 14}" y="{height - 13}" font-size="11">{name}</text>')
    label = f"Findings posted in {repo} by category and outcome"
    return _svg(label, "outcome-chart", body, height)
