"""Helpers shared by tests (importable; conftest.py only holds fixtures)."""

from __future__ import annotations

import errno
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

from oms.canonical import Json, JsonObject
from oms.fsio import FsioOptions, Publisher, Resolver
from oms.fsio._syscalls import Syscalls

if TYPE_CHECKING:
    import pytest

    from oms.schemas.payloads import SessionPayload, TicketPayload, WorkerPayload

REPO = Path(__file__).resolve().parent.parent

T = TypeVar("T")

# The one knob for a loaded machine: every `eventually()` deadline is its timeout times this. The
# default is sized for two cores each busy with another pytest worker or a CPU hog (the suite runs
# on two workers, .ci/test); raise it on a slower machine, never lower it below 1.
SLOWDOWN_ENV = "OMS_TEST_SLOWDOWN"
DEFAULT_SLOWDOWN = 3.0


def slowdown() -> float:
    """The factor every `eventually()` timeout is multiplied by (`OMS_TEST_SLOWDOWN`)."""
    raw = os.environ.get(SLOWDOWN_ENV, "").strip()
    if not raw:
        return DEFAULT_SLOWDOWN
    try:
        factor = float(raw)
    except ValueError:
        factor = 0.0
    if not factor >= 1.0:  # (also refuses nan)
        raise ValueError(f"{SLOWDOWN_ENV}={raw!r}: give a number of at least 1 (e.g. 3)")
    return factor


def scaled(seconds: float) -> float:
    """`seconds` times `slowdown()`: the timeout of a wait that is not a poll (an Event's, a
    process's), sized like `eventually`'s deadlines for a loaded machine."""
    return seconds * slowdown()


def read_line(fd: int, pending: bytearray, deadline: float) -> bytes | None:
    """The next whole line from pipe `fd`, without its newline; None at the pipe's end or when
    none came by `deadline` (a `time.monotonic()` value; size it with `scaled`). It reads with
    `os.read` into `pending`, which keeps what came after the line for the next call: `select` on
    a buffered file object misses a line that the object's last `readline` already took into its
    buffer, and waits out the deadline (a run beside a CPU hog did, when Codex wrote two answers
    at once)."""
    while b"\n" not in pending:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 65536)
        if not chunk:
            return None
        pending += chunk
    line, _, rest = bytes(pending).partition(b"\n")
    pending[:] = rest
    return line


def eventually(
    check: Callable[[], T | None],
    *,
    timeout: float = 10.0,
    what: str = "",
    ignoring: tuple[type[BaseException], ...] = (),
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    first_poll: float = 0.01,
    max_poll: float = 0.25,
) -> T:
    """Call `check` until it returns a truthy value, and return that value.

    A falsy return, an AssertionError or an exception of `ignoring` means "not yet". The deadline
    is `timeout` seconds (what an idle machine needs, with margin) times `slowdown()`; past it this
    fails with `what` and the last value or exception seen. Between calls it sleeps a short poll
    that doubles from `first_poll` up to `max_poll`, never past the deadline. `clock` and `sleep`
    are injectable (tests of this helper run on a fake clock); `check` is always called once more
    at the deadline, so a condition that held by then is never reported as missed."""
    factor = slowdown()
    allowed = timeout * factor
    deadline = clock() + allowed
    not_yet: tuple[type[BaseException], ...] = (AssertionError, *ignoring)
    poll, last_call = first_poll, False
    while True:
        try:
            value = check()
        except not_yet as exc:
            seen = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
        else:
            if value:
                return value
            seen = repr(value)
        left = deadline - clock()
        if last_call or left <= 0:
            label = what or getattr(check, "__name__", "the condition")
            raise AssertionError(
                f"{label}: not within {allowed:g} s ({timeout:g} s x {SLOWDOWN_ENV} {factor:g});"
                f" last seen: {seen}"
            )
        last_call = poll >= left  # sleep to the deadline, then call `check` a last time
        sleep(min(poll, left))
        poll = min(poll * 2, max_poll)


class EnosysSyscalls(Syscalls):
    """A kernel without openat2 (or with a seccomp filter on it): every openat2 call fails
    ENOSYS."""

    def openat2(self, dirfd: int, path: str, flags: int, mode: int, resolve: int) -> int:
        raise OSError(errno.ENOSYS, "injected: openat2 unavailable")


RESOLVERS = ("openat2", "walk", "auto-enosys")


def make_options(resolver: str, publisher: Publisher = Publisher.AUTO) -> FsioOptions:
    """fsio options for a resolver mode name used in parametrised tests."""
    if resolver == "auto-enosys":
        return FsioOptions(resolver=Resolver.AUTO, publisher=publisher, syscalls=EnosysSyscalls())
    return FsioOptions(resolver=Resolver(resolver), publisher=publisher)


def stays(
    check: Callable[[], object],
    *,
    seconds: float,
    what: str = "",
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    poll: float = 0.1,
) -> None:
    """`check()` holds (truthy, no AssertionError) at every look for `seconds` times `slowdown()`:
    the window a thing that must not happen is given to show itself, as long on a loaded machine as
    it needs there. Fails at the first look that does not hold, saying what it saw."""
    factor = slowdown()
    end = clock() + seconds * factor
    while True:
        value = check()  # (an AssertionError from `check` fails at once, as it should)
        if not value:
            label = what or getattr(check, "__name__", "the condition")
            raise AssertionError(f"{label}: no longer held; last seen: {value!r}")
        left = end - clock()
        if left <= 0:
            return
        sleep(min(poll, left))


@dataclass(frozen=True)
class OmsCommand:
    """How to run oms as a real process: from source or the frozen binary (OMS_TEST_BINARY)."""

    argv: tuple[str, ...]
    frozen: bool

    def run(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        stdin: bytes | None = None,
        timeout: float = 120,
        unset: tuple[str, ...] = (),
    ) -> subprocess.CompletedProcess[str]:
        """Run `oms *args` and capture text output (`unset`: variables it does not get)."""
        full_env = {k: v for k, v in os.environ.items() if k not in unset}
        if env:
            full_env.update(env)
        return subprocess.run(
            [*self.argv, *args],
            capture_output=True,
            text=True,
            env=full_env,
            cwd=cwd,
            input=stdin.decode() if stdin is not None else None,
            timeout=timeout,
            check=False,
        )


# What tells git who commits besides its config (the suite pins them: `isolate_home`).
GIT_IDENTITY_ENV = (
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "EMAIL",
)


def oms_command() -> OmsCommand:
    """The oms under test."""
    binary = os.environ.get("OMS_TEST_BINARY")
    if binary:
        return OmsCommand((os.path.abspath(binary),), True)
    return OmsCommand((sys.executable, "-m", "oms"), False)


def git(*args: str, cwd: str | Path) -> str:
    """Run git with the pinned test environment; return stdout."""
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


SESSION = "0b8f4c7e-7a52-4b7e-9a43-3c1f0d6c2a11"
T0 = "2026-01-01T00:00:00.000Z"


def payload(kind: str, **overrides: Json) -> JsonObject:
    """A schema-valid payload for a record of `kind`."""
    base: dict[str, JsonObject] = {
        "ticket": {
            "title": "Fix the flaky test",
            "source": "local",
            "repository": None,
            "content_sha256": "a" * 64,
            "attempt": 1,
            "lease_token": None,
            "worker_id": None,
            "session_id": None,
            "lease_expires_at": None,
            "created_at": T0,
            "reason": None,
            "prior_failure_evidence": None,
        },
        "worker": {
            "dispatch_id": "dsp-1",
            "ticket_id": "tkt-1",
            "session_id": SESSION,
            "role_id": "oms.ticket-executor",
            "provider_mode": "command",
            "worktree_id": "wt-1",
            "health": "healthy",
            "updated_at": T0,
            "end_reason": None,
            "end_detail": None,
            "health_reason": None,
        },
        "session": {
            "dispatch_id": "dsp-1",
            "ticket_id": "tkt-1",
            "role_id": "oms.ticket-executor",
            "engine": "command",
            "mode": "command",
            "native_session_ref": SESSION,
            "tmux_pane_id": "%3",
            "source_event_id": "evt-1",
            "last_observed_at": T0,
            "heartbeat_deadline_at": T0,
            "parked_until": None,
            "stop_reason": None,
            "stop_blocks": 0,
        },
        "dispatch": {
            "ticket_id": "tkt-1",
            "ticket_version": 1,
            "ticket_content_sha256": "a" * 64,
            "advisor_verdict": None,
            "attempt": 1,
            "worker_id": "wkr-1",
            "worker_record_id": "dsp-1",
            "lease_token": "b" * 64,
            "session_id": SESSION,
            "role_id": "oms.ticket-executor",
            "model_id": "gpt-5-codex",
            "model_endpoint": None,
            "provider_mode": "command",
            "engine": "command",
            "capabilities": ["repository-read", "ticket-worktree-write"],
            "policy_digest": "c" * 64,
            "worktree_id": "wt-1",
            "worktree_path": "/srv/wt/tkt-1",
            "worktree_branch": "oms/tkt-1",
            "worktree_base_commit": "d" * 40,
            "worktree_start_commit": "d" * 40,
            "dispatch_intent_sha256": "e" * 64,
            "role_sandbox": "ticket-worktree-write",
            "role_argv": ["true"],
            "role_tools": [],
            "role_programs": ["/usr/bin/true dev=1 ino=2 size=3 mtime_ns=4 ctime_ns=5"],
            "instructions_sha256": "f" * 64,
            "advisor_evidence": None,
            "approval_evidence": None,
            "prior_failure_evidence": None,
            "result_evidence": None,
            "delivery_event_id": None,
            "accepted_at": None,
            "created_at": T0,
            "reason": None,
        },
    }
    out = dict(base[kind])
    out.update(overrides)
    return out


def ticket_sample(**overrides: Json) -> TicketPayload:
    """`payload("ticket", ...)` typed as its kind's TypedDict, for a rule that takes one."""
    return cast("TicketPayload", payload("ticket", **overrides))


def session_sample(**overrides: Json) -> SessionPayload:
    """`payload("session", ...)` typed as its kind's TypedDict, for a rule that takes one."""
    return cast("SessionPayload", payload("session", **overrides))


def worker_sample(**overrides: Json) -> WorkerPayload:
    """`payload("worker", ...)` typed as its kind's TypedDict, for a rule that takes one."""
    return cast("WorkerPayload", payload("worker", **overrides))


def evidence_body(**overrides: Json) -> JsonObject:
    """A schema-valid evidence body (lease-expiry)."""
    body: JsonObject = {
        "format": "oms-evidence-v1",
        "evidence_kind": "lease-expiry",
        "ticket_id": "tkt-1",
        "producer": "oms",
        "producer_role": None,
        "created_at": T0,
        "payload": {"attempt": 1, "lease_expired_at": T0, "worktree_start_commit": None},
    }
    body.update(overrides)
    return body


def ts(n: int) -> str:
    """The n-th millisecond after T0 (strictly increasing timestamps for transitions)."""
    from oms.canonical import add_ms

    return add_ms(T0, n)


def contact_entry(n: int = 0) -> JsonObject:
    """A schema-valid live-contact journal entry (`n` varies the subject)."""
    return {
        "authorization_id": "live-1",
        "authorization_version": 0,
        "repository": "octo/repo",
        "operation": "worker-session",
        "contact_surface": "command",
        "subject_id": f"s-{n}",
        "request": {
            "dispatch_id": "dsp-1",
            "ticket_id": "tkt-1",
            "role_id": "oms.ticket-executor",
            "model_id": "m",
            "provider_mode": "command",
            "worktree_id": "wt-1",
        },
        "disclosed_at": T0,
    }


USERNS_FLAG = "OMS_TEST_IN_USER_NAMESPACE"


def in_user_namespace() -> bool:
    """Whether this test process is conftest's re-run of a `foreign_owner` test in a user
    namespace."""
    return os.environ.get(USERNS_FLAG) == "1"


def make_foreign(path: Path) -> int:
    """Give existing `path` an owner other than this process's user; returns the uid it now shows.

    As root: chown it to 4242. In conftest's user namespace (a `foreign_owner` test run by anyone
    else): bind-mount over it a host object that real root owns, which shows there as the overflow
    uid."""
    if in_user_namespace():
        source = "/usr/share" if path.is_dir() else "/etc/passwd"
        subprocess.run(["mount", "--bind", source, str(path)], check=True, capture_output=True)
        uid = path.lstat().st_uid
        assert uid != os.geteuid()
        return uid
    os.chown(path, 4242, 4242)
    return 4242


# State roots whose workers a fixture wider than one test holds across its tests: their model
# proxies are that fixture's to end (`stray_proxies`, and the autouse fixture ending a test's).
HELD_STATE_ROOTS: set[bytes] = set()


def stray_proxies(base: bytes) -> list[int]:
    """The pids of the model proxies serving a state root under `base` (`oms proxy serve
    --state-root ...`), but those of a held state root (`HELD_STATE_ROOTS`) when `base` is not one
    itself."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        ours = any(a.startswith(base) for a in argv)
        if b"proxy" not in argv or b"serve" not in argv or not ours:
            continue
        held = [root for root in HELD_STATE_ROOTS if not base.startswith(root)]
        if not any(a.startswith(root) for a in argv for root in held):
            found.append(int(entry.name))
    return found


def isolate_home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Any write to the real home fails: HOME and XDG dirs point at a regular file (ENOTDIR beneath
    it); the ledger's anchors go to a folder of the test's own; git has a pinned identity and no
    global or system config. (The autouse fixture, and fixtures of a wider scope, which run before
    it.)"""
    blocker = tmp_path_factory.getbasetemp() / "home-is-a-file"
    if not blocker.exists():
        blocker.write_text("tests must not write to a home directory\n")
    for var in ("HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(var, str(blocker))
    for var in (
        "OMS_STATE_ROOT",
        "OMS_CONFIG_ROOT",
        "OMS_FSIO_RESOLVER",
        "OMS_FSIO_PUBLISH",
        "OMS_VERBOSE",
    ):
        monkeypatch.delenv(var, raising=False)
    # the ledger's anchor outside the state root (ADR 0027): a folder of the test's own
    monkeypatch.setenv("OMS_ANCHOR_DIR", str(tmp_path_factory.mktemp("anchors")))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    for var, value in (
        ("GIT_AUTHOR_NAME", "oms test"),
        ("GIT_AUTHOR_EMAIL", "test@oms.invalid"),
        ("GIT_COMMITTER_NAME", "oms test"),
        ("GIT_COMMITTER_EMAIL", "test@oms.invalid"),
    ):
        monkeypatch.setenv(var, value)
