"""The pages a browser can reach: no secret in any of them, reflected input escaped, security headers on every
setup answer (errors included), and a callback that only a state issued with the form can complete."""

from __future__ import annotations

import httpx

from reviewbot.app.setup.pages import SetupPages
from tests.conftest import MODEL_TOKEN, WEBHOOK_SECRET
from tests.fakes.github import FakeGitHub
from tests.integration.test_app_setup import bare_env, form_of, pages, site  # noqa: F401  (fixtures)

HEADERS = {"x-frame-options": "DENY", "referrer-policy": "no-referrer", "x-content-type-options": "nosniff",
           "cache-control": "no-store"}


def test_every_setup_answer_carries_the_security_headers_and_no_secret(
        site: httpx.Client, pages: SetupPages, env: dict[str, str]) -> None:  # noqa: F811
    answers = [site.get("/setup"), site.get("/setup?key=wrong"), site.get(f"/setup?key={pages.key}"),
               site.get("/setup/callback?code=x&state=forged"), site.get("/setup/callback"),
               site.get(f"/setup?key={pages.key}&org=%3Cscript%3Ealert(1)%3C/script%3E"),
               site.get(f"/setup?key={pages.key}&name=%22%3E%3Cimg%20src=x%3E%3Cscript%3Ealert(1)%3C/script%3E")]
    assert [a.status_code for a in answers] == [403, 403, 200, 400, 400, 400, 200]
    for answer in answers:
        assert {k: answer.headers.get(k) for k in HEADERS} == HEADERS
        assert "default-src 'self'" in answer.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        for secret in (WEBHOOK_SECRET, MODEL_TOKEN, env["GITHUB_PRIVATE_KEY"].splitlines()[1], "PRIVATE KEY"):
            assert secret not in answer.text
    for reflected in (answers[-2].text, answers[-1].text):
        assert "<script>alert(1)" not in reflected and "&lt;script&gt;" in reflected and '"><img' not in reflected


def test_the_callback_needs_the_state_of_a_form_this_server_issued(
        site: httpx.Client, pages: SetupPages, fake_github: FakeGitHub,  # noqa: F811
        app_keypair: tuple[bytes, bytes]) -> None:
    fake_github.add_manifest_code("code-9", app_keypair[0])
    _, state, _ = form_of(site.get(f"/setup?key={pages.key}"))
    for forged in ("", state[:-1], state + "x", state.upper(), "../" + state):
        assert site.get("/setup/callback", params={"code": "code-9", "state": forged}).status_code == 400
    assert "code-9" in fake_github.manifest_codes  # none of them was exchanged
    assert site.get("/setup/callback", params={"code": "code-9", "state": state}).status_code == 200


def test_the_service_pages_say_nothing_about_its_configuration(web: httpx.Client) -> None:
    for path in ("/", "/healthz", "/setup", "/setup/callback", "/.env", "/../.env"):
        answer = web.get(path)
        assert answer.status_code in (200, 404), path
        assert WEBHOOK_SECRET not in answer.text and MODEL_TOKEN not in answer.text
