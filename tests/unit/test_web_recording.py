"""docs/recordings/web.png is the board as its page is now: beside it,
docs/recordings/web.png.assets holds the digest of the page's assets (oms/services/web/assets/*)
it was drawn by, written with it (`OMS_RECORD=1`,
tests/integration/test_web_browser.py::test_the_board_with_workers_and_a_result); a change to the
page's assets fails here until the screenshot is taken again."""

from __future__ import annotations

import hashlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ASSETS = REPO / "oms" / "services" / "web" / "assets"
SHOT = REPO / "docs" / "recordings" / "web.png"
DRAWN_BY = REPO / "docs" / "recordings" / "web.png.assets"
RECORD = (
    "OMS_RECORD=1 .venv/bin/pytest -q "
    "tests/integration/test_web_browser.py::test_the_board_with_workers_and_a_result"
)


def assets_digest() -> str:
    """sha256 of the page's assets: each file's name and sha256, one a line, in name order."""
    lines = "".join(
        f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.name}\n"
        for path in sorted(ASSETS.iterdir())
        if path.is_file()
    )
    return hashlib.sha256(lines.encode()).hexdigest()


def test_the_screenshot_is_of_the_page_as_it_is() -> None:
    assert SHOT.read_bytes().startswith(b"\x89PNG")
    recorded = DRAWN_BY.read_text().split()[0] if DRAWN_BY.exists() else "(none)"
    assert recorded == assets_digest(), (
        f"the page's assets changed since {SHOT.relative_to(REPO)} was taken (drawn by "
        f"{recorded[:16]}, the assets are {assets_digest()[:16]} now): take it again, `{RECORD}`, "
        "look at it, and commit both files"
    )
