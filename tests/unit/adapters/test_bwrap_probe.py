"""The sandbox probe a launch runs first (`bwrap.probe`): one that ran out of time on a busy
machine is asked once more, given longer, before the launch is refused; a refusal for time says
the machine was slow, never that it cannot make a sandbox. Real processes stand in for bubblewrap
(a script that is slow the first time), with the probe's bounds made short."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from oms.adapters import bwrap
from oms.errors import SandboxUnavailableError
from oms.limits import LIMITS


@pytest.fixture
def short(monkeypatch: pytest.MonkeyPatch) -> None:
    bounds = LIMITS._replace(probe_timeout_s=0.5, probe_busy_timeout_s=5.0)
    monkeypatch.setattr(bwrap, "LIMITS", bounds)


def _bwrap(tmp_path: Path, body: str) -> str:
    script = tmp_path / "bwrap"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_a_probe_slow_once_is_asked_again_and_the_launch_goes_on(
    tmp_path: Path, short: None
) -> None:
    seen = tmp_path / "asked"
    path = _bwrap(tmp_path, f"[ -e {seen} ] && exit 0\ntouch {seen}\nexec sleep 30")
    assert bwrap.probe(path) == path
    assert seen.exists()


def test_a_probe_slow_twice_says_the_machine_was_slow(tmp_path: Path, short: None) -> None:
    path = _bwrap(tmp_path, "exec sleep 30")
    with pytest.raises(SandboxUnavailableError) as caught:
        bwrap.probe(path)
    assert "did not start a sandbox within 0.5s, nor within 5s" in caught.value.message
    assert "cannot make a sandbox" not in caught.value.message
    assert "too busy" in caught.value.remedy


def test_a_probe_that_fails_is_not_asked_again(tmp_path: Path, short: None) -> None:
    seen = tmp_path / "asked"
    path = _bwrap(tmp_path, f'echo "no user namespaces" >&2\necho x >> {seen}\nexit 1')
    with pytest.raises(SandboxUnavailableError, match="cannot make a sandbox here"):
        bwrap.probe(path)
    assert seen.read_text() == "x\n"  # asked once: a failure is an answer


def test_the_real_bubblewrap_answers_the_probe() -> None:
    assert bwrap.probe() == bwrap.locate()
