"""A plain command worker: the role's argv, in the same pane and sandbox, through the same doors.
Pure plan.

The command learns how to reach oms from its environment: `OMS_EXECUTABLE` (whose `hook provider`
and `worker bridge` are relays to the pane's broker) plus the dispatch and session it works on. Its
home (`homes/command-<session>` in the sandbox directory, `/oms/home` inside) is private and
read-write: the only place besides its worktree where it can leave anything.
"""

from __future__ import annotations

from oms.adapters.providers.base import LaunchPlan, LaunchRequest, Provider, base_env
from oms.adapters.quoting import check_arg
from oms.store.sandboxes import home_rel


def home(session_id: str) -> str:
    """The private home of a command worker's session, relative to the sandbox directory (ADR
    0026)."""
    return home_rel(f"command-{session_id}")


def plan(req: LaunchRequest) -> LaunchPlan:
    """The launch plan."""
    if not req.role_argv:
        raise ValueError("a command worker needs an argv")
    for word in req.role_argv:
        check_arg(word, "worker argv")
    env = {**base_env(req), "OMS_EXECUTABLE": req.executable}
    for key, value in env.items():
        check_arg(value, key)
    return LaunchPlan(
        native_action="command",
        argv=req.role_argv,
        cwd=req.worktree,
        env=env,
        home=home(req.session_id),
    )


PROVIDER = Provider(
    transport="command",
    name="command",
    session_mode="command",
    native_action="command",
    surface="command",
    hook_contract="command-1",
    plan=plan,
)
