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


@pytest.mark.parametrize("base_url", [None, "https://api.cloudflare.com/client/v4/accounts/a/ai/v1"])
def test_workers_ai_gets_max_completion_tokens_alone(base_url: str | None) -> None:
    from reviewbot.inference.factory import model_client
    from reviewbot.settings import Settings

    settings = Settings.from_mapping({"CLOUDFLARE_ACCOUNT_ID": "acc", "REVIEWBOT_MAX_COMPLETION_TOKENS": "512",
                                      **({"REVIEWBOT_MODEL_BASE_URL": base_url} if base_url else {})})
    body = model_client(settings, httpx.AsyncClient()).body(MESSAGES, RESPONSE_FORMATS[0])
    assert body["max_completion_tokens"] == 512 and "max_tokens" not in body


def test_another_server_gets_the_limit_as_max_tokens_too_and_it_still_fits_the_contracts() -> None:
    """llama.cpp's Python server and Ollama read only `max_tokens`: without it they write until the context is
    full (hours on a CPU), whatever `max_completion_tokens` says."""
    from reviewbot.inference.factory import model_client
    from reviewbot.settings import Settings

    settings = Settings.from_mapping({"REVIEWBOT_MODEL_BASE_URL": "http://127.0.0.1:8000/v1",
                                      "REVIEWBOT_MAX_COMPLETION_TOKENS": "512"})
    body = model_client(settings, httpx.AsyncClient()).body(MESSAGES, RESPONSE_FORMATS[2], max_completion_tokens=900)
    assert body["max_completion_tokens"] == body["max_tokens"] == 900
    for model, contract in CONTRACTS.items():
        assert contract.request_errors({**body, "model": model}) == []
