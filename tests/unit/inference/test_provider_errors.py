"""Provider errors are classified by Cloudflare's published codes, not by HTTP status alone."""

from __future__ import annotations

import httpx
import pytest

from reviewbot.errors import ModelBusy, ModelPermanent
from reviewbot.inference.provider_errors import classify


def answer(status: int, code: int | None, message: str = "") -> httpx.Response:
    errors = [{"code": code, "message": message}] if code is not None else []
    return httpx.Response(status, json={"result": None, "success": False, "errors": errors, "messages": []})


@pytest.mark.parametrize(("code", "says"), [(5007, "no such model"), (3003, "incomplete"), (5004, "data"),
                                            (3039, "HTTP 400")])
def test_a_400_that_is_not_about_the_schema_is_not_an_invalid_input(code: int, says: str) -> None:
    error = classify(answer(400, code))
    assert isinstance(error, ModelPermanent) and not error.invalid_input and says in str(error)


@pytest.mark.parametrize("code", [8001, 5006, None])
def test_a_schema_complaint_is_an_invalid_input(code: int | None) -> None:
    error = classify(answer(400, code, "Invalid input"))
    assert isinstance(error, ModelPermanent) and error.invalid_input


@pytest.mark.parametrize(("code", "says"), [(5018, "not allowed to access this model"),
                                            (3041, "not allowed to access this model"),
                                            (3023, "blocked the account"), (5035, "Workers Paid")])
def test_a_403_about_access_or_the_account_is_not_called_a_credentials_problem(code: int, says: str) -> None:
    error = str(classify(answer(403, code)))
    assert says in error and "credentials" not in error


def test_a_403_without_a_known_code_is_the_credentials() -> None:
    assert "CLOUDFLARE_API_TOKEN" in str(classify(answer(403, 10000, "Authentication error")))


def test_capacity_is_busy_and_retryable() -> None:
    assert isinstance(classify(answer(429, 3040)), ModelBusy)


def test_a_server_that_refuses_json_schema_with_a_500_is_told_apart_from_a_busy_one() -> None:
    """llama.cpp's server (llama-cpp-python 0.3.36) answers a json_schema response_format with this 500."""
    message = ("1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
               "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}")
    error = classify(httpx.Response(500, json={"error": {"message": message, "type": "internal_server_error",
                                                         "param": None, "code": None}}))
    assert isinstance(error, ModelPermanent) and error.invalid_input
    assert "the server refused json_schema (HTTP 500)" in str(error) and "busy" not in str(error)


def test_a_500_about_something_else_is_still_busy() -> None:
    assert "busy" in str(classify(httpx.Response(500, json={"error": {"message": "out of memory"}})))
