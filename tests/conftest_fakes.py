"""Pytest fixtures for the fake GitHub and model servers (imported by tests/conftest.py with `import *`).

The servers are session-scoped: starting them once keeps the suite fast, and every test sees the same
`base_url`/`url`. Isolation comes from the autouse `_reset_fakes` fixture, which resets a fake before
each test *that uses it* (directly or through another fixture). It looks at `request.fixturenames`
rather than offering function-scoped wrapper fixtures named `github`/`model`, because a fixture
parameter named `github` would shadow the PyGithub module in test files. Tests that never touch the
fakes pay nothing: the servers are not even started for them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel
from tests.fakes.server import ServedApp

__all__ = ["APP_ID", "_reset_fakes", "app_keypair", "fake_github", "fake_model"]

APP_ID = 4242


@pytest.fixture(scope="session")
def app_keypair() -> tuple[bytes, bytes]:
    """(private PEM, public PEM) of the GitHub App's RSA key."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private_pem, public_pem


@pytest.fixture(scope="session")
def fake_github(app_keypair: tuple[bytes, bytes]) -> Iterator[FakeGitHub]:
    fake = FakeGitHub(app_id=APP_ID, public_key_pem=app_keypair[1])
    with ServedApp(fake.app) as served:
        fake.base_url = served.url
        yield fake


@pytest.fixture(scope="session")
def fake_model() -> Iterator[FakeModel]:
    fake = FakeModel()
    with ServedApp(fake.app) as served:
        fake.url = served.url
        yield fake


@pytest.fixture(autouse=True)
def _reset_fakes(request: pytest.FixtureRequest) -> Iterator[None]:
    # `fixturenames` is the transitive closure, so fakes used through other fixtures are reset too.
    # Being autouse, this runs before the test's other function-scoped fixtures add their own state.
    if "fake_github" in request.fixturenames:
        request.getfixturevalue("fake_github").reset()
    model: FakeModel | None = None
    if "fake_model" in request.fixturenames:
        model = request.getfixturevalue("fake_model")
        model.reset()
    yield
    # Contract: whatever the test asserted, a request outside the model's published schema fails it.
    if model is not None and model.violations:
        pytest.fail("the fake model saw breaches of the pinned Workers AI schema:\n" + "\n".join(model.violations))
    if "fake_github" in request.fixturenames:
        # Anything the bot sent, or the fake answered, that GitHub's published description does not allow.
        violations = request.getfixturevalue("fake_github").take_violations()
        assert not violations, "GitHub contract violations:\n" + "\n".join(dict.fromkeys(violations))
