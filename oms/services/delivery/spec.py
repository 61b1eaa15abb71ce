"""The launch spec: what delivery decided a worker's supervisor starts and serves (ADR 0012).

Delivery writes `panes/<dispatch>.launch.json` (0600, schema `launch-spec`) just before it makes the
pane; the pane's first process, `oms worker supervise`, reads it once and removes it. It holds the
sandbox plan (bubblewrap's options, from `adapters/sandbox.py`), what bounds the sandbox (its
approved `limits`, the trees its disk bound covers: ADR 0025), the agent's argv and its environment
— the environment carries the one credential the agent CLI needs, which is why it travels in a
private file and never on a command line (`tmux -e` and `bwrap --setenv` are readable in
`/proc/*/cmdline`) — and the broker's binding: dispatch, session, provider, hook contract, tool
allow-list, delivery nonce.

Beside it lives the broker's log (`panes/<dispatch>.log`; every name in `panes/` comes from
`store/panefiles.py`); the broker's socket is in the sandbox directory (`brokers/<dispatch>.sock`,
`store/sandboxes.py`: a sandbox is shown nothing from under the state root, ADR 0026). This module
is what the supervisor loads (the spec's file, nothing else); `services/containment/sandboxing.py`
builds the spec for delivery.
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

from oms.canonical import JsonObject, access
from oms.domain import sandbox_limits
from oms.domain.sandbox_limits import SandboxLimits
from oms.errors import CheckoutChangedError, NotFoundError
from oms.fsio import Root
from oms.limits import LIMITS
from oms.store.documents import encode_document, parse_document
from oms.store.panefiles import PANES_DIR, spec_path


class LaunchSpec(NamedTuple):
    """A validated launch spec."""

    dispatch_id: str
    session_id: str
    provider: str
    provider_version: str
    allowed_tools: tuple[str, ...]
    nonce: str
    config_root: str
    worktree: str
    bwrap: str
    sandbox: tuple[str, ...]
    command: tuple[str, ...]
    env: dict[str, str]
    placeholders: tuple[str, ...]
    git_config_path: str
    git_config: str
    model_socket: str | None = None  # the dispatch's door into the model proxy (a directory)
    sandbox_dir: str = ""  # the sandbox directory: the broker's socket is made there (ADR 0026)
    limits: SandboxLimits = SandboxLimits()  # its cgroup, largest file and disk bound (ADR 0025)
    disk_trees: tuple[str, ...] = ()  # what the disk watchdog measures (worktree, private home)
    relaunch: bool = False  # `oms worker resume` on the native session: the session moves to it
    store: JsonObject | None = None  # the store backend the launch wrote through (None: files)


def write(root: Root, spec: JsonObject) -> None:
    """Publish the spec (replacing an unconsumed one from an earlier attempt)."""
    rel = spec_path(access.text(spec, "dispatch_id"))
    root.mkdirs(PANES_DIR)
    with contextlib.suppress(NotFoundError):
        root.unlink(rel)
    root.publish(
        rel, encode_document(spec, "launch-spec", rel, LIMITS.launch_spec_bytes), mode=0o600
    )


def discard(root: Root, dispatch_id: str) -> None:
    """Remove an unconsumed spec (its pane already existed, or the launch was abandoned)."""
    with contextlib.suppress(NotFoundError):
        root.unlink(spec_path(dispatch_id))


def consume(root: Root, dispatch_id: str) -> LaunchSpec:
    """Read, validate and remove the spec of `dispatch_id` (it holds a credential: read once).
    Taken once: of two readers (two panes of one launch: a `new-session` run again after its
    server died unanswered), the one whose removal finds it gone fails (`NotFoundError`)."""
    rel = spec_path(dispatch_id)
    doc = parse_document(root.read_bytes(rel, LIMITS.launch_spec_bytes), "launch-spec", rel)
    if not root.unlink(rel):
        raise NotFoundError(f"{rel}: taken by another supervisor of {dispatch_id}")
    if doc["dispatch_id"] != dispatch_id:
        raise CheckoutChangedError(f"{rel} names another dispatch")
    env = access.obj(doc, "env")
    return LaunchSpec(
        dispatch_id=dispatch_id,
        session_id=access.text(doc, "session_id"),
        provider=access.text(doc, "provider"),
        provider_version=access.text(doc, "provider_version"),
        allowed_tools=tuple(str(t) for t in access.array(doc, "allowed_tools")),
        nonce=access.text(doc, "nonce"),
        config_root=access.text(doc, "config_root"),
        worktree=access.text(doc, "worktree"),
        bwrap=access.text(doc, "bwrap"),
        sandbox=tuple(str(a) for a in access.array(doc, "sandbox")),
        command=tuple(str(a) for a in access.array(doc, "command")),
        env={str(k): str(v) for k, v in env.items()},
        placeholders=tuple(str(p) for p in access.array(doc, "placeholders")),
        git_config_path=access.text(doc, "git_config_path"),
        git_config=access.text(doc, "git_config"),
        model_socket=access.text(access.obj(doc, "model_relay"), "socket")
        if "model_relay" in doc
        else None,
        sandbox_dir=access.text(doc, "sandbox_dir"),
        limits=sandbox_limits.from_json(access.obj(doc, "limits")),
        disk_trees=tuple(str(p) for p in access.array(doc, "disk_trees")),
        relaunch=doc.get("relaunch") is True,
        store=access.obj(doc, "store") if "store" in doc else None,
    )
