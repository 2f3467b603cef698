"""Which description images may be fetched, and the Pillow checks every downloaded one passes."""

from __future__ import annotations

import io

from PIL import Image

from reviewbot.catalogue import supports_vision
from reviewbot.review.prompt.images import find_images
from reviewbot.review.prompt.pixels import check_image


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height)).save(out, format="PNG")
    return out.getvalue()


def test_only_github_attachments_of_this_repository_are_fetched() -> None:
    body = ("![a](https://github.com/user-attachments/assets/1f2e) ![b](https://github.com/acme/widgets/assets/9/x)"
            " ![c](https://private-user-images.githubusercontent.com/1/x.png?jwt=t)"
            " ![d](https://github.com/other/repo/assets/9/x) ![e](https://evil.example.com/x.png)"
            " ![f](https://github.com/user-attachments/assets/logo.svg) ![g](http://github.com/user-attachments/"
            "assets/1) ![h](javascript:alert(1))")
    found = {r.alt: r.reason for r in find_images(body, "acme/widgets")}
    assert {k for k, v in found.items() if not v} == {"a", "b", "c"}
    assert found["d"] == "not a GitHub attachment of this repository"
    assert found["e"].startswith("hosted outside GitHub") and found["f"] == "SVG images are never fetched"
    assert found["g"] == found["h"] == "not an https URL"


def test_the_pillow_checks() -> None:
    assert check_image(png(100, 50), "image/png", 10**6, 10**6).size == (100, 50)
    assert "content type image/svg+xml" in check_image(b"<svg/>", "image/svg+xml", 10**6, 10**6).reason
    assert "over REVIEWBOT_MAX_IMAGE_BYTES" in check_image(png(100, 50), "image/png", 10, 10**6).reason
    assert "over REVIEWBOT_MAX_IMAGE_PIXELS" in check_image(png(100, 50), "image/png", 10**6, 4_999).reason
    assert "not a readable image" in check_image(b"\x89PNG not really", "image/png", 10**6, 10**6).reason
    assert check_image(png(4000, 1000), "image/png", 10**7, 10**8).size == (1568, 392)


def test_vision_by_model_and_by_override() -> None:
    assert supports_vision("@cf/moonshotai/kimi-k2.6") and not supports_vision("@cf/meta/llama-3.1-8b-instruct")
    assert supports_vision("@cf/meta/llama-3.1-8b-instruct", "on") and not supports_vision(
        "@cf/moonshotai/kimi-k2.6", "off")
