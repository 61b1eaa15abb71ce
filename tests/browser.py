"""A real headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
it reads commands on fd 3 and writes answers on fd 4, each a JSON message ended by a NUL), with
nothing but the standard library: open a page, evaluate an expression in it, take a screenshot."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.helpers import eventually

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _high(fd: int) -> int:
    """`fd` moved to a free number above 9 (inheritable)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    os.set_inheritable(moved, True)
    return moved


class Browser:
    """One headless Chromium (`with Browser() as b:`), one page at a time."""

    def __init__(self, width: int = 1280, height: int = 900) -> None:
        assert CHROMIUM is not None, "no chromium (.ci/setup installs it)"
        self._profile = tempfile.TemporaryDirectory(prefix="oms-chromium-")
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()
        # above fd 4, so that wiring one end to 3 cannot close the other
        to_child, from_child = _high(to_child), _high(from_child)

        def wire() -> None:  # the child's fd 3 reads our commands, its fd 4 writes its answers
            os.dup2(to_child, 3)
            os.dup2(from_child, 4)

        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--remote-debugging-pipe",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-extensions",
                f"--user-data-dir={self._profile.name}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,  # noqa: PLW1509 - two dup2s before exec
            pass_fds=(3, 4),  # what `wire` made of them, kept open across the exec
        )
        os.close(to_child)
        os.close(from_child)
        self._buf = b""
        self._next = 0
        self.session = ""

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.call("Browser.close", session=False)
        except (OSError, AssertionError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._write)
        os.close(self._read)
        self._profile.cleanup()

    def call(self, method: str, session: bool = True, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer (events in between are dropped)."""
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._write, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self._buf:
                chunk = os.read(self._read, 1 << 16)
                assert chunk, "chromium closed its pipe"
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._next:
                assert "error" not in answer, answer
                result: dict[str, Any] = answer["result"]
                return result

    def open(self, url: str) -> None:
        """Open `url` in a new page and talk to that page from now on."""
        target = self.call("Target.createTarget", session=False, url=url)["targetId"]
        attached = self.call("Target.attachToTarget", session=False, targetId=target, flatten=True)
        self.session = attached["sessionId"]

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        got = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return got["result"].get("value")

    def wait_for(self, expression: str, timeout: float) -> float:
        """Wait until `expression` is truthy in the page (`eventually`); how long it took (s)."""
        start = time.monotonic()
        eventually(lambda: self.eval(expression), timeout=timeout, what=expression)
        return time.monotonic() - start

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
