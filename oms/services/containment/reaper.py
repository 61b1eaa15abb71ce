"""Ending a worker's sandbox for sure: its PID namespace's init, killed from outside by its exact
identity.

The sandbox dies when its init dies: the kernel then kills every process of the namespace, however
detached. Normally the init dies by itself — bubblewrap gives it a parent-death signal, so the
broker's death reaches it — but the agent runs as the same user in that namespace and can `ptrace`
the init (or write its `/proc/1/mem`) to clear that signal; the escape suite does. So the supervisor
records the init (`panes/<dispatch>.init.json`: pid, start ticks, boot id, as bubblewrap reports it
on a descriptor the agent never holds) and kills it when the sandbox ends, and `oms worker stop` and
`observe` kill it too when the supervisor could not (it was killed itself). A signal from outside
the namespace reaches its init whatever the agent did; the identity check means a recycled pid is
never signalled.

One init no record names: bubblewrap's `--die-with-parent` races its own start
(containers/bubblewrap #633). A supervisor killed in the first milliseconds of bubblewrap kills the
outer bubblewrap, whose child — the namespace's would-be init — had not yet asked for its own
parent-death signal: it is left reparented, holding the agent's environment, and the supervisor
died before bubblewrap reported it. It never runs the agent (the exec gate waits for a `go` only a
live supervisor that recorded the init sends), but it stays: `oms worker stop` ends it by that
environment (`end_strays`).

A supervisor killed outright leaves its sandbox's cgroup too (ADR 0025): `end_sandbox` removes what
is left of it (its processes killed first) when it sits beneath the caller's own cgroup.
"""

from __future__ import annotations

import contextlib

from oms.adapters import cgroups
from oms.canonical import JsonObject, access, now
from oms.domain.cgroups import identity
from oms.errors import AlreadyExistsError, NotFoundError, OmsError
from oms.fsio import ProcessIdentity, Root
from oms.fsio.procinfo import carrying
from oms.limits import LIMITS
from oms.process import kill_exact
from oms.store.documents import encode_document, read_document_optional
from oms.store.panefiles import PANES_DIR, init_path


def record_init(root: Root, dispatch_id: str, who: ProcessIdentity) -> None:
    """Record the init of `dispatch_id`'s sandbox (replacing an earlier launch's)."""
    rel = init_path(dispatch_id)
    doc: JsonObject = {
        "format": "oms-sandbox-init-v1",
        "dispatch_id": dispatch_id,
        "pid": who.pid,
        "start_ticks": who.start_ticks,
        "boot_id": who.boot_id,
        "started_at": now(),
    }
    root.mkdirs(PANES_DIR)
    with contextlib.suppress(NotFoundError):
        root.unlink(rel)
    with contextlib.suppress(AlreadyExistsError):
        root.publish(rel, encode_document(doc, "sandbox-init", rel, 4096))


def end_sandbox(root: Root, dispatch_id: str) -> bool:
    """Kill the recorded init of `dispatch_id`'s sandbox if that exact process still runs, and
    forget it, then remove what is left of its cgroup; True if the init had to be killed. A record
    that cannot be read is kept and ends nothing."""
    killed = _end_init(root, dispatch_id)
    cgroups.remove_left(identity("worker", dispatch_id), LIMITS.left_cgroup_s)
    return killed


def _end_init(root: Root, dispatch_id: str) -> bool:
    rel = init_path(dispatch_id)
    try:
        doc = read_document_optional(root, rel, "sandbox-init", 4096)
    except OmsError:
        return False
    if doc is None:
        return False
    who = ProcessIdentity(
        access.text(doc, "boot_id"), access.integer(doc, "pid"), access.integer(doc, "start_ticks")
    )
    killed = kill_exact(who)
    with contextlib.suppress(NotFoundError):
        root.unlink(rel)
    return killed


def end_strays(dispatch_id: str, session_id: str) -> int:
    """SIGKILL, by exact identity, every bubblewrap process still carrying the environment of
    `dispatch_id`'s sandbox (its dispatch and session ids, which only that sandbox is given); how
    many. Only for a caller that has ended every pane of the worker (`stop`): a live sandbox carries
    it too."""
    entries = (f"OMS_DISPATCH_ID={dispatch_id}".encode(), f"OMS_SESSION_ID={session_id}".encode())
    return sum(kill_exact(who) for who in carrying(b"bwrap", entries))
