"""Attack on `oms result verify`'s sandbox (issue 14, ADR 0021: checks run with "no credentials"):
the check sandbox has no seccomp filter (the worker sandbox's refuses keyrings, ptrace,
perf_event_open...), and bubblewrap keeps the caller's *session keyring*. Agent-written code run as
a check (here a `probe.py` the result commits, run by a committed `python3 probe.py` check) reads —
and could update or revoke — the keys of the session that runs `oms result verify` (Kerberos
tickets, ecryptfs or other keys a login keeps there).

Found from outside (issue 14, round 1); it failed before its fix."""

from __future__ import annotations

import ctypes
import platform

import pytest

from oms.services.finishing import verify
from tests.agent_side import BoundTools, bind
from tests.chain import Chain
from tests.helpers import git

NR = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}  # add_key, request_key, keyctl
SECRET = b"the-users-kerberos-ticket"

PROBE = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
ADD, REQ, KEYCTL = {nr}
kid = libc.syscall(REQ, b"user", b"oms-atk14", None, ctypes.c_int(0))
buf = ctypes.create_string_buffer(200)
n = libc.syscall(KEYCTL, 11, ctypes.c_int(kid), buf, 200) if kid > 0 else -1  # KEYCTL_READ
print("key", kid, buf.raw[: max(n, 0)])
sys.exit(0 if n > 0 else 1)
"""

CHECKS = """
[verify]
commands = [["python3", "probe.py"]]
timeout_seconds = 30
"""


def test_checks_cannot_read_the_session_keyring_of_whoever_runs_verify(chain: Chain) -> None:
    nr = NR.get(platform.machine())
    if nr is None:
        pytest.skip("syscall numbers known for x86_64 and aarch64 only")
    libc = ctypes.CDLL(None, use_errno=True)
    add_key, _, keyctl = nr
    if (
        libc.syscall(keyctl, 1, None) < 0
    ):  # KEYCTL_JOIN_SESSION_KEYRING: a fresh anonymous session keyring
        pytest.skip("keyrings unavailable here")
    if (
        libc.syscall(add_key, b"user", b"oms-atk14", SECRET, len(SECRET), ctypes.c_int(-3)) < 0
    ):  # @s
        pytest.skip("cannot add a key")
    chain.edit_config(lambda s: s + CHECKS, commit=True)
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        tools.call("acknowledge_dispatch", {})
        (bound.worktree / "probe.py").write_text(PROBE.format(nr=nr))
        git("add", "-A", cwd=bound.worktree)
        git(
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "-m",
            "tests",
            cwd=bound.worktree,
        )
        commit = git("rev-parse", "HEAD", cwd=bound.worktree).strip()
        tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "Done.", "result_commit": commit},
        )
    finally:
        tools.close()
    with chain.workspace() as ws:
        done = verify.verify(ws, bound.dispatch_id)
    (probe,) = done.ran
    assert b"key " in probe.output, probe.output  # the probe ran
    assert SECRET not in probe.output
    assert probe.exit_code != 0
