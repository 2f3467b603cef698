"""The capability table agrees with the pinned model JSONs, and unknown models get safe defaults and a warning."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from reviewbot.cli.doctor import catalogue_check
from reviewbot.settings import Settings
from reviewbot.settings.catalogue import CATALOGUE, DEFAULT_PRICES, capabilities, capabilities_from_spec, model_warnings
from reviewbot.settings.table import DEFAULT_MODEL

SPECS = Path(__file__).resolve().parents[3] / "specs" / "workers-ai"
PINNED = {spec["name"]: spec for spec in (json.loads(p.read_text()) for p in sorted(SPECS.glob("*.json")))}


def test_every_catalogued_model_is_pinned_and_the_table_is_what_its_json_says() -> None:
    assert set(PINNED) == set(CATALOGUE)
    for model, spec in PINNED.items():
        derived = capabilities_from_spec(spec)
        assert dataclasses.replace(CATALOGUE[model], successor=None) == derived, model


def test_the_default_is_the_successor_k25_is_aliased_to_and_every_model_stays_priced() -> None:
    assert DEFAULT_MODEL == "@cf/moonshotai/kimi-k2.6"
    assert capabilities("@cf/moonshotai/kimi-k2.5").successor == DEFAULT_MODEL
    assert capabilities(DEFAULT_MODEL).deprecated_on is None
    assert set(DEFAULT_PRICES) == set(CATALOGUE)


@pytest.mark.parametrize(("model", "queue"), [("@cf/moonshotai/kimi-k2.5", False), ("@cf/moonshotai/kimi-k2.6", True),
                                              ("@cf/moonshotai/kimi-k2.7-code", False)])
def test_the_async_queue_is_what_each_model_publishes(model: str, queue: bool) -> None:
    assert capabilities(model).async_queue is queue


def test_an_unknown_model_gets_safe_defaults_and_a_warning() -> None:
    caps = capabilities("@cf/acme/mystery-1")
    assert not caps.known and not caps.async_queue and caps.thinking_parameter is None and caps.price is None
    [warning] = model_warnings("@cf/acme/mystery-1", None)
    assert "not in reviewbot's catalogue" in warning
    check = catalogue_check(Settings.from_mapping({"REVIEWBOT_MODEL": "@cf/acme/mystery-1"}))
    assert check.status == "warn" and "mystery-1" in check.detail


def test_doctor_names_the_deprecation_and_the_always_thinking_model() -> None:
    assert "deprecated since 2026-05-30" in model_warnings("@cf/moonshotai/kimi-k2.5", None)[0]
    assert "always thinks" in model_warnings("@cf/moonshotai/kimi-k2.7-code", False)[0]
    assert model_warnings(DEFAULT_MODEL, False) == []
    assert catalogue_check(Settings.from_mapping({})).status == "ok"
