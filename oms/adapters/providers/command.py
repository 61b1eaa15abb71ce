"""A plain command worker: the role's argv, in the same pane, with the same environment. Pure plan.

The command learns how to reach oms from its environment: `OMS_EXECUTABLE` plus the dispatch, session,
roots and delivery nonce, so it can start `oms worker bridge` and call `oms hook provider` itself.
"""

from __future__ import annotations

from oms.adapters.providers.base import LaunchPlan, LaunchRequest, base_env
from oms.adapters.quoting import check_arg


def plan(req: LaunchRequest) -> LaunchPlan:
    """The launch plan."""
    if not req.role_argv:
        raise ValueError("a command worker needs an argv")
    for word in req.role_argv:
        check_arg(word, "worker argv")
    env = {
        **base_env(req),
        "OMS_EXECUTABLE": req.executable,
        "OMS_STATE_ROOT": req.state_root,
        "OMS_WORKSPACE_ROOT": req.workspace_root,
        "OMS_CONFIG_ROOT": req.config_root,
    }
    for key, value in env.items():
        check_arg(value, key)
    return LaunchPlan(native_action="command", argv=req.role_argv, cwd=req.worktree, env=env)
