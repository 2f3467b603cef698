"""Which description images may be fetched, and the Pillow checks every downloaded one passes."""

from __future__ import annotations

import io

from PIL import Image

from reviewbot.review.prompt.images import find_images
from reviewbot.review.prompt.pixels import check_image
from reviewbot.settings.catalogue import supports_vision


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


def test_dot_segments_encoded_slashes_and_backslashes_are_refused_before_matching() -> None:
    base = "https://github.com/user-attachments/assets"
    tricks = {"a": f"{base}/../../repos/acme/widgets/contents/.env", "b": f"{base}/%2e%2e/%2E%2E/settings",
              "c": f"{base}/..%2F..%2Fsettings", "d": "https://github.com/acme/widgets/assets/../../other/x/assets/1",
              "e": f"{base}/..\\..\\settings", "f": f"{base}/./1f2e", "g": f"{base}/1f2e%5C..%5Cx",
              "h": "https://private-user-images.githubusercontent.com/1/../../x.png"}
    body = " ".join(f"![{alt}]({url})" for alt, url in tricks.items())
    found = {r.alt: r.reason for r in find_images(body, "acme/widgets")}
    assert set(found) == set(tricks) and all(found.values()), found
    assert found["a"] == "a dot segment in the path" and "encoded slash" in found["c"]


def test_on_an_enterprise_server_githubusercontent_urls_are_not_attachments() -> None:
    body = ("![a](https://ghes.example.com/user-attachments/assets/1f2e)"
            " ![c](https://private-user-images.githubusercontent.com/1/x.png?jwt=t)"
            " ![d](https://user-images.githubusercontent.com/1/x.png)")
    found = {r.alt: r.reason for r in find_images(body, "acme/widgets", "https://ghes.example.com")}
    assert found == {"a": "", "c": "hosted outside this GitHub Enterprise Server",
                     "d": "hosted outside this GitHub Enterprise Server"}


def test_pillow_parses_only_the_four_formats_so_a_tiff_labelled_png_is_refused_unread() -> None:
    out = io.BytesIO()
    Image.new("RGB", (40, 20)).save(out, format="TIFF")
    checked = check_image(out.getvalue(), "image/png", 10**6, 10**6)
    assert checked.reason == "not a readable image (UnidentifiedImageError)"  # no TIFF parser ran


def test_a_photo_is_turned_upright_by_its_exif_orientation() -> None:
    out = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: the camera was turned; rotate 90° clockwise to view
    Image.new("RGB", (200, 100), (10, 200, 10)).save(out, format="JPEG", exif=exif)
    assert check_image(out.getvalue(), "image/jpeg", 10**6, 10**6).size == (100, 200)
