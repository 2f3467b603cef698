"""Loading the held-out corpora (tests/corpus/*_heldout.yaml) and naming what the code under test returns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

CORPUS = Path(__file__).parent / "corpus"


def cases(file: str) -> list[Any]:
    """The corpus's cases as pytest parameters, each named by its `name` or its position and text."""
    data: list[dict[str, Any]] = yaml.safe_load((CORPUS / file).read_text(encoding="utf-8"))
    return [pytest.param(case, id=case.get("name") or f"{i}-{case.get('where', '')}-{case['text'][:40]!r}")
            for i, case in enumerate(data)]


def label(value: object) -> str | None:
    """A verb, reason or outcome as the corpus spells it, whether the code returns an enum or a string.

    The corpus was written without reading the code, so spelling differences that mean the same thing ("won't fix",
    "wont_fix", "WONT-FIX") must not fail a case."""
    if value is None:
        return None
    text = str(getattr(value, "value", value)).lower()
    for quote in ("'", "’"):
        text = text.replace(quote, "")
    return text.replace("_", "-").replace(" ", "-")
