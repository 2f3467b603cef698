"""Every request body the client builds fits the pinned input schema of its model (specs/workers-ai/)."""

from __future__ import annotations

import httpx
import pytest

from reviewbot.inference.client import ModelClient
from reviewbot.inference.structured import RESPONSE_FORMATS
from reviewbot.inference.tools import tool_definitions
from reviewbot.inference.verify_request import VERIFY_FORMATS
from tests.fakes.contract import CONTRACTS

MESSAGES = [{"role": "system", "content": "You review code."}, {"role": "user", "content": "The diff."}]


def client(model: str, thinking: bool | None) -> ModelClient:
    return ModelClient(http=httpx.AsyncClient(), base_url="http://127.0.0.1:9/v1", model=model, api_token="t",
                       thinking=thinking, max_completion_tokens=16_000)


@pytest.mark.parametrize("model", sorted(CONTRACTS))
@pytest.mark.parametrize("thinking", [None, True, False])
@pytest.mark.parametrize("form", [*RESPONSE_FORMATS, *VERIFY_FORMATS])
def test_every_response_format_and_thinking_switch_fits_every_model(
        model: str, thinking: bool | None, form: dict[str, object]) -> None:
    body = client(model, thinking).body(MESSAGES, form, tool_definitions(), "auto", max_completion_tokens=32_768)
    assert CONTRACTS[model].request_errors(body) == []


def test_the_thinking_switch_is_the_one_each_model_names() -> None:
    assert client("@cf/moonshotai/kimi-k2.6", False).body(MESSAGES)["chat_template_kwargs"] == {
        "enable_thinking": False}
    assert "chat_template_kwargs" not in client("@cf/moonshotai/kimi-k2.7-code", False).body(MESSAGES)
    assert "chat_template_kwargs" not in client("@cf/acme/unknown", True).body(MESSAGES)


def test_a_model_without_an_async_queue_never_gets_a_run_url() -> None:
    k27 = ModelClient(http=httpx.AsyncClient(), base_url="b", model="@cf/moonshotai/kimi-k2.7-code", api_token=None,
                      run_url="http://127.0.0.1:9/ai/run/x")
    k26 = ModelClient(http=httpx.AsyncClient(), base_url="b", model="@cf/moonshotai/kimi-k2.6", api_token=None,
                      run_url="http://127.0.0.1:9/ai/run/x")
    assert k27.run_url is None and k26.run_url is not None
