"""The launch spec: what delivery decided a worker's supervisor starts and serves (ADR 0012).

Delivery writes `panes/<dispatch>.launch.json` (0600, schema `launch-spec`) just before it makes the
pane; the pane's first process, `oms worker supervise`, reads it once and removes it. It holds the
sandbox plan (bubblewrap's options, from `adapters/sandbox.py`), the agent's argv and its environment —
the environment carries the one credential the agent CLI needs, which is why it travels in a private
file and never on a command line (`tmux -e` and `bwrap --setenv` are readable in `/proc/*/cmdline`) —
and the broker's binding: dispatch, session, provider, hook contract, tool allow-list, delivery nonce.

Beside it live the broker's socket (`panes/<dispatch>.sock`) and its log (`panes/<dispatch>.log`).
"""

from __future__ import annotations

import contextlib
import os
from typing import NamedTuple

from oms.adapters import bwrap, git, seccomp
from oms.adapters.providers.base import LaunchPlan
from oms.adapters.sandbox import HOME_VIEW, Layout, bwrap_args, environment, placeholder_paths
from oms.canonical import JsonObject, access, check, now
from oms.errors import CheckoutChangedError, NotFoundError, SandboxUnavailableError
from oms.fsio import Root
from oms.store.documents import encode_document, parse_document

SPEC_CAP = 512 * 1024


def spec_path(dispatch_id: str) -> str:
    """The launch spec of `dispatch_id`, relative to the state root."""
    return f"panes/{check(dispatch_id, 'dispatch id')}.launch.json"


def socket_path(dispatch_id: str) -> str:
    """The broker's socket of `dispatch_id`, relative to the state root."""
    return f"panes/{check(dispatch_id, 'dispatch id')}.sock"


def log_path(dispatch_id: str) -> str:
    """The broker's log of `dispatch_id`, relative to the state root."""
    return f"panes/{check(dispatch_id, 'dispatch id')}.log"


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


def git_layout(worktree: str) -> tuple[str, str]:
    """(the worktree's gitdir, the repository's common dir), real paths, checked to belong together."""
    gitdir, common = (os.path.realpath(p) for p in git.git_dirs(worktree))
    if os.path.dirname(gitdir) != os.path.join(common, "worktrees"):
        raise CheckoutChangedError(f"worktree {worktree} has its git dir outside {common}/worktrees")
    return gitdir, common


def build(
    plan: LaunchPlan,
    *,
    dispatch_id: str,
    session_id: str,
    provider: str,
    provider_version: str,
    allowed_tools: tuple[str, ...],
    nonce: str,
    config_root: str,
    home_abs: str,
    executable: str,
    state_root: str,
) -> JsonObject:
    """The launch spec of a provider plan (reads host facts; touches nothing)."""
    path = bwrap.locate()
    try:
        seccomp.program(os.uname().machine)
    except ValueError as exc:
        raise SandboxUnavailableError(f"{exc}: oms cannot keep an agent from its sandbox's init here") from exc
    worktree = os.path.realpath(plan.cwd)
    gitdir, common = git_layout(worktree)
    program, tool_dirs, path_dirs = _program(plan.argv[0])
    files = list(plan.ro_files)
    if provider == "command":  # a command's own files, named on its argv, are shown read-only
        files += [(os.path.realpath(word), word) for word in plan.argv if _outside_file(word)]
    state_real = os.path.realpath(state_root)
    for source, _view in files:
        if source == state_real or source.startswith(state_real + "/"):
            raise SandboxUnavailableError(f"{source} is under the state root; a worker may not see it")
    layout = Layout(
        worktree=worktree,
        common_dir=common,
        gitdir=gitdir,
        home=os.path.realpath(home_abs),
        home_readonly=tuple(f.name for f in plan.files if f.readonly),
        files=tuple(dict.fromkeys(files)),
        runtime=_roots(bwrap.runtime_roots(executable), tool_dirs, state_real),
        hidden_git=("hooks",) if os.path.isdir(os.path.join(common, "hooks")) else (),
    )
    return {
        "format": "oms-launch-v1",
        "dispatch_id": dispatch_id,
        "session_id": session_id,
        "provider": provider,
        "provider_version": provider_version,
        "allowed_tools": list(allowed_tools),
        "nonce": nonce,
        "config_root": config_root,
        "worktree": worktree,
        "bwrap": path,
        "sandbox": list(bwrap_args(layout, bwrap.host())),
        "command": [program, *plan.argv[1:]],
        "env": dict(environment({}, {**plan.env, "HOME": HOME_VIEW}, path_dirs)),
        "placeholders": list(placeholder_paths(worktree)),
        "git_config_path": os.path.join(common, "config"),
        "git_config": git.sandbox_config(git.repository_config(worktree)),
        "created_at": now(),
    }


def _outside_file(word: str) -> bool:
    """An absolute path naming a file outside the system directories (which the sandbox shows anyway)."""
    return word.startswith("/") and os.path.isfile(word) and not word.startswith(bwrap.SYSTEM_PREFIXES)


def _program(name: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(the program to run, read-only roots, PATH dirs) for the agent's argv[0]: an absolute path as given
    (`/bin/sh` stays `sh`), a bare name found on PATH."""
    if name.startswith("/"):
        if not os.path.isfile(name):
            raise SandboxUnavailableError(f"{name} is not a program on this machine")
        return name, (), ()
    return bwrap.tool_roots(name)


def _roots(runtime: tuple[str, ...], tools: tuple[str, ...], state_real: str) -> tuple[str, ...]:
    out = tuple(dict.fromkeys((*runtime, *tools)))
    for path in out:
        if path == state_real or path.startswith(state_real + "/") or state_real.startswith(path + "/"):
            raise SandboxUnavailableError(f"{path} would show the state root inside the sandbox; refusing")
    return out


def write(root: Root, spec: JsonObject) -> None:
    """Publish the spec (replacing an unconsumed one from an earlier attempt)."""
    rel = spec_path(access.text(spec, "dispatch_id"))
    root.mkdirs("panes")
    with contextlib.suppress(NotFoundError):
        root.unlink(rel)
    root.publish(rel, encode_document(spec, "launch-spec", rel, SPEC_CAP), mode=0o600)


def discard(root: Root, dispatch_id: str) -> None:
    """Remove an unconsumed spec (its pane already existed, or the launch was abandoned)."""
    with contextlib.suppress(NotFoundError):
        root.unlink(spec_path(dispatch_id))


def consume(root: Root, dispatch_id: str) -> LaunchSpec:
    """Read, validate and remove the spec of `dispatch_id` (it holds a credential: read once)."""
    rel = spec_path(dispatch_id)
    doc = parse_document(root.read_bytes(rel, SPEC_CAP), "launch-spec", rel)
    root.unlink(rel)
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
    )
