"""A provider plan wrapped in its sandbox: the launch spec delivery writes (ADR 0012).

`build` reads the host facts the sandbox plan needs (bubblewrap, the system directories, the
worktree's git layout, where oms and the agent CLI are installed, the repository config the sandbox
shows) and returns the document `services/delivery/spec.py` publishes. It touches nothing. Whatever
it would show the agent from under the state root, whatever would show the state root itself, and
any path shown that spells the state root's path (`/proc/self/mountinfo` names each bind's source)
is refused (ADR 0026).
"""

from __future__ import annotations

import os

from oms.adapters import bwrap, git, seccomp
from oms.adapters.providers.base import LaunchPlan
from oms.adapters.sandbox import (
    GIT_SHOWN,
    HOME_VIEW,
    Layout,
    bwrap_args,
    environment,
    placeholder_paths,
)
from oms.canonical import Json, JsonObject, now
from oms.errors import SandboxUnavailableError


def git_layout(worktree: str, repository: str) -> tuple[str, str]:
    """(the worktree's gitdir, the repository's common dir), real paths, as the main repository
    records them (`git.linked_worktree`: never asked of git inside the worktree, docs/adr/0024)."""
    linked = git.linked_worktree(repository, worktree)
    return linked.gitdir, linked.common


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
    sandbox_dir: str,
) -> JsonObject:
    """The launch spec of a provider plan (reads host facts; touches nothing)."""
    path = bwrap.locate()
    try:
        seccomp.program(os.uname().machine)
    except ValueError as exc:
        raise SandboxUnavailableError(
            f"{exc}: oms cannot keep an agent from its sandbox's init here"
        ) from exc
    worktree = os.path.realpath(plan.cwd)
    gitdir, common = git_layout(worktree, config_root)
    program, tool_dirs, path_dirs = _program(plan.argv[0])
    files = list(plan.ro_files)
    if provider == "command":  # a command's own files, named on its argv, are shown read-only
        files += [(os.path.realpath(word), word) for word in plan.argv if _outside_file(word)]
    states = tuple(dict.fromkeys((os.path.realpath(state_root), os.path.abspath(state_root))))
    home = os.path.realpath(home_abs)
    shown = [worktree, common, gitdir, home, sandbox_dir, *(source for source, _view in files)]
    if plan.model_relay is not None:
        shown.append(plan.model_relay[0])
    for source in shown:
        _refuse_state(source, states)
    layout = Layout(
        worktree=worktree,
        common_dir=common,
        gitdir=gitdir,
        home=home,
        home_readonly=tuple(f.name for f in plan.files if f.readonly),
        files=tuple(dict.fromkeys(files)),
        runtime=_roots(bwrap.runtime_roots(executable), tool_dirs, states),
        git_shown=tuple(name for name in GIT_SHOWN if os.path.lexists(os.path.join(common, name))),
        host_network=plan.host_network,
    )
    command: list[Json] = [program, *plan.argv[1:]]
    relay: JsonObject = {}
    if plan.model_relay is not None and not plan.host_network:  # behind the relay to its door
        socket_path, port = plan.model_relay
        command = [executable, "worker", "netrelay", "--port", str(port), "--", *command]
        relay = {"model_relay": {"socket": socket_path, "port": port}}
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
        "sandbox_dir": sandbox_dir,
        "bwrap": path,
        "sandbox": list(bwrap_args(layout, bwrap.host())),
        "command": command,
        "env": dict(environment({}, {**plan.env, "HOME": HOME_VIEW}, path_dirs)),
        "placeholders": list(placeholder_paths(worktree)),
        "git_config_path": os.path.join(common, "config"),
        "git_config": git.sandbox_config(git.repository_config(config_root, gitdir)),
        "created_at": now(),
        **relay,
    }


def _outside_file(word: str) -> bool:
    """An absolute path naming a file outside the system directories (which the sandbox shows
    anyway)."""
    return (
        word.startswith("/") and os.path.isfile(word) and not word.startswith(bwrap.SYSTEM_PREFIXES)
    )


def _program(name: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(the program to run, read-only roots, PATH dirs) for the agent's argv[0]: an absolute path as
    given (`/bin/sh` stays `sh`), a bare name found on PATH."""
    if name.startswith("/"):
        if not os.path.isfile(name):
            raise SandboxUnavailableError(f"{name} is not a program on this machine")
        return name, (), ()
    return bwrap.tool_roots(name)


def _refuse_state(path: str, states: tuple[str, ...]) -> None:
    """A path a sandbox is shown (a bind's source: `/proc/self/mountinfo` names it) may neither lie
    under the state root nor spell its path."""
    for state in states:
        if state in path:
            why = "is under or names the state root; a worker may not see it"
            raise SandboxUnavailableError(f"{path} {why}")


def _roots(
    runtime: tuple[str, ...],
    tools: tuple[str, ...],
    states: tuple[str, ...],
) -> tuple[str, ...]:
    out = tuple(dict.fromkeys((*runtime, *tools)))
    for path in out:
        _refuse_state(path, states)
        if any(state.startswith(path + "/") for state in states):
            raise SandboxUnavailableError(
                f"{path} would show the state root inside the sandbox; refusing"
            )
    return out
