"""oms/process: argv only, allow-listed env, timeouts, output caps, loader variables."""

from __future__ import annotations

import os
import time

import pytest

from oms.errors import ProcessFailedError, ProcessTimeoutError, ToolNotFoundError
from oms.process import child_env, run
from oms.process.runner import start


def test_run_captures_output_and_status() -> None:
    done = run(["sh", "-c", "echo out; echo err >&2"])
    assert (done.returncode, done.stdout, done.stderr) == (0, b"out\n", b"err\n")
    assert run(["sh", "-c", "exit 4"], check=False).returncode == 4


def test_failure_names_the_tool_and_stderr() -> None:
    with pytest.raises(ProcessFailedError, match="sh exited 3: boom") as info:
        run(["sh", "-c", "echo boom >&2; exit 3"])
    assert info.value.returncode == 3


def test_timeout_kills_the_whole_group() -> None:
    start = time.monotonic()
    with pytest.raises(ProcessTimeoutError):
        run(["sh", "-c", "sleep 30 & sleep 30"], timeout=0.3)
    assert time.monotonic() - start < 5


def test_output_cap() -> None:
    with pytest.raises(ProcessFailedError, match="more than 1000 bytes"):
        run(["yes"], max_output=1000)


def test_missing_tool_and_bad_argv() -> None:
    with pytest.raises(ToolNotFoundError):
        run(["definitely-not-a-tool-oms"])
    with pytest.raises(ValueError, match="NUL"):
        run(["echo", "a\x00b"])
    with pytest.raises(ValueError, match="non-empty"):
        run([])


def test_stdin_is_fed() -> None:
    assert run(["cat"], stdin=b"hello").stdout == b"hello"


def test_no_shell_interpretation() -> None:
    assert run(["echo", "$HOME;", "`id`"]).stdout == b"$HOME; `id`\n"


def test_child_env_is_an_allow_list() -> None:
    env = child_env(
        source={"PATH": "/bin", "SECRET_TOKEN": "x", "LD_PRELOAD": "/evil.so", "HOME": "/h"},
        frozen=False,
    )
    assert env == {"PATH": "/bin", "HOME": "/h"}
    assert child_env({"EXTRA": "1"}, source={}, frozen=False) == {"EXTRA": "1"}
    with pytest.raises(ValueError, match="LD_PRELOAD"):
        child_env({"LD_PRELOAD": "/x.so"}, source={})


def test_oms_children_anchor_where_the_user_said() -> None:
    """ADR 0027: a command oms starts (a proxy, a deliverer) that writes moves the ledger's anchor,
    in the folder the user chose, not the default one beside their configuration."""
    env = child_env(source={"OMS_ANCHOR_DIR": "/elsewhere/anchors", "HOME": "/h", "OMS_OTHER": "x"})
    assert env["OMS_ANCHOR_DIR"] == "/elsewhere/anchors"
    assert "OMS_OTHER" not in env


def test_oms_children_run_as_the_host_the_user_named() -> None:
    """ADR 0043, amendment `hosts`: a worker's supervisor and broker (started in its pane) and the
    deliverers oms starts act as the host that launched them, so a park or stop they ask for is not
    refused as another host's."""
    env = child_env(source={"OMS_HOST": "host-b", "HOME": "/h"})
    assert env["OMS_HOST"] == "host-b"


def test_child_env_restores_library_path_when_frozen() -> None:
    bundle = {
        "LD_LIBRARY_PATH": "/opt/oms/_internal",
        "LD_LIBRARY_PATH_ORIG": "/usr/local/lib",
        "PATH": "/bin",
    }
    assert child_env(source=bundle, frozen=True)["LD_LIBRARY_PATH"] == "/usr/local/lib"
    assert "LD_LIBRARY_PATH" not in child_env(
        source={"LD_LIBRARY_PATH": "/opt/oms/_internal"}, frozen=True
    )
    assert (
        child_env(source={"LD_LIBRARY_PATH": "/mine"}, frozen=False)["LD_LIBRARY_PATH"] == "/mine"
    )


def test_real_child_sees_only_the_allow_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMS_TEST_SECRET", "leak")
    out = run(["env"]).stdout.decode()
    assert "OMS_TEST_SECRET" not in out
    assert f"PATH={os.environ['PATH']}" in out


def test_a_child_that_ended_before_reading_its_stdin_is_no_broken_pipe() -> None:
    """`git cat-file --batch` outside a repository ends at once; feeding it then raised
    BrokenPipeError from the close's flush (issue 26: `oms doctor` exited 1, silently, 3 runs in
    6)."""
    started = start(["true"], stdin=True)
    os.waitid(os.P_PID, started.proc.pid, os.WEXITED | os.WNOWAIT)  # it has ended, not yet reaped
    done = started.finish(stdin=b"HEAD\n" * 10, check=False)
    assert done.returncode == 0
    with pytest.raises(ProcessFailedError, match="exited 3"):  # its own exit says what happened
        failing = start(["sh", "-c", "exec 0<&-; exit 3"], stdin=True)
        os.waitid(os.P_PID, failing.proc.pid, os.WEXITED | os.WNOWAIT)
        failing.finish(stdin=b"x")
