"""`oms web` as the binary runs it (in the frozen set: `.ci/test` runs tests/cli against
dist/oms/oms too): it serves the page, its script and its style byte for byte as they are in
oms/services/web/assets/ (the frozen binary carries them, ADR 0041), the board, and the live
stream; SIGTERM ends it with exit 0."""

from __future__ import annotations

import http.client
import subprocess
from pathlib import Path

import pytest

from tests.chain import Chain
from tests.helpers import REPO, oms_command

ASSETS = REPO / "oms" / "services" / "web" / "assets"


def _get(port: int, path: str) -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}"})
    answer = conn.getresponse()
    if answer.getheader("Content-Type") == "text/event-stream":
        body = answer.readline()  # the first event's data line: the stream stays open
    else:
        body = answer.read()
    conn.close()
    return answer.status, answer.getheader("Content-Type") or "", body


@pytest.mark.parametrize(
    ("path", "name", "ctype"),
    [
        ("/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/app.css", "app.css", "text/css; charset=utf-8"),
    ],
)
def test_the_binary_serves_the_page_and_its_assets(
    chain: Chain, path: str, name: str, ctype: str
) -> None:
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    oms = oms_command()
    proc = subprocess.Popen(
        [*oms.argv, "web", *roots], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("oms web: open http://127.0.0.1:"), line
        url = line.split("open ", 1)[1].strip()
        port = int(url.split(":")[2].split("/")[0])
        query = url.split("?", 1)[1]
        status, kind, page = _get(port, f"/?{query}")
        assert (status, kind) == (200, "text/html; charset=utf-8")
        source = (ASSETS / "index.html").read_bytes()
        assert page.startswith(source[: source.index(b"@CSRF@")])  # the page, its tokens filled
        assert b"@TOKEN@" not in page
        assert _get(port, f"{path}?{query}") == (200, ctype, (ASSETS / name).read_bytes())
        status, _, board = _get(port, f"/api/board?{query}")
        assert status == 200
        assert b'"ok": true' in board
        status, kind, first = _get(port, f"/api/events?{query}")
        assert (status, kind) == (200, "text/event-stream")
        assert first.startswith(b'data: {"ok": true')
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert err == ""


def test_the_assets_are_files_in_the_package() -> None:
    """What build/oms.spec copies into the binary: every file the page names is there."""
    page = (ASSETS / "index.html").read_text()
    for name in ("app.js", "app.css"):
        assert f"{name}?t=@TOKEN@" in page
        assert Path(ASSETS / name).is_file()
