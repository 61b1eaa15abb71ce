"""Codex CLI, one-shot and non-interactive (`codex exec`; ADR 0009, ADR 0011). Pure plan.

The same Codex as `codex.py` — the same private home (`homes/codex-<session>`, `/oms/home` inside
the sandbox) with the same read-only `hooks.json` and `config.toml`, the same bridge as the only MCP
server, the same one credential, the same hook contract (its hooks' payloads are Codex's, so it is
the provider `codex` to hooks, launch specs and homes) — but nothing is typed into its pane: the
executor instructions are the prompt on its command line, and it runs turn after turn until the
model stops and the Stop gate lets it (`domain/gate.py`), then exits, and its pane ends. Like a
command worker it needs no activation (`prompt` None), has no park keys and no quit keys (a stop
ends its sandbox). What it cannot do it declares (ADR 0045 amendment `ends`): a one-shot run cannot
be paused (`parkable`: a person's park is refused; oms's own park — a quota's rest, a pool's
drain — parks it and then ends its run, which its resume relaunches on its own thread), reads
nothing typed (`takes_messages`: `oms worker send` is refused), and once let stop takes no turn
again (`stop_is_final`: the gate's release parks it `no_result` before it exits). A run
that exits before its thread exists ends the attempt (`exit`); a pane that dies under it is
relaunched on its own thread by `oms worker resume`.

`codex exec` takes no `--ask-for-approval`: `-a never` comes before `exec`, as the advisor passes it
(`adapters/advisor.py`), and `codex exec resume` takes no `--sandbox`, so the sandbox is the
`sandbox_mode` setting in both. A relaunch runs `codex -a never exec resume <flags> <id> <CONTINUE>`
(its thread is in the same home).
"""

from __future__ import annotations

from oms.adapters.providers import codex
from oms.adapters.providers.base import (
    CODEX_LOGIN,
    CONTINUE,
    HomeFile,
    LaunchPlan,
    LaunchRequest,
    Provider,
    base_env,
)
from oms.adapters.quoting import check_arg
from oms.adapters.sandbox import HOME_VIEW


def plan(req: LaunchRequest) -> LaunchPlan:
    """The launch plan."""
    check_arg(req.worktree, "worktree path")
    check_arg(req.model, "model")
    head = (
        ("codex", "-a", "never", "exec")
        if req.resume is None
        else ("codex", "-a", "never", "exec", "resume")
    )
    argv = (
        *head,
        *codex.SHARED_FEATURE_FLAGS,
        "--strict-config",
        "--dangerously-bypass-hook-trust",
        "--model",
        req.model,
        "--config",
        'sandbox_mode="workspace-write"',
        "--config",
        codex.mcp_override(req),
        "--config",
        "sandbox_workspace_write.exclude_slash_tmp=true",
        "--config",
        "sandbox_workspace_write.exclude_tmpdir_env_var=true",
        "--",  # the prompt (and the session id) are never read as flags
    )
    if req.resume is None:
        argv += (check_arg(req.instructions, "executor instructions"),)
    else:
        argv += (check_arg(req.resume, "native session id"), CONTINUE)
    env = {**base_env(req), **req.passthrough, "CODEX_HOME": HOME_VIEW}
    files = [
        HomeFile("hooks.json", codex.hooks_json(req), readonly=True),
        HomeFile("config.toml", codex.config_toml(req), regenerate=True, readonly=True),
    ]
    ro_files: tuple[tuple[str, str], ...] = ()
    if req.codex_auth is not None:  # an empty placeholder the real file is shown over, read-only
        files.append(HomeFile("auth.json", b"", regenerate=True))
        ro_files = ((req.codex_auth, f"{HOME_VIEW}/auth.json"),)
    return LaunchPlan(
        native_action="exec",
        argv=argv,
        cwd=req.worktree,
        env=env,
        home=codex.home(req.session_id),
        files=tuple(files),
        ro_files=ro_files,
    )


PROVIDER = Provider(
    transport="codex_exec",
    name="codex",
    session_mode="exec",
    native_action="exec",
    surface="codex-exec",
    hook_contract="codex-0.171",
    plan=plan,
    compatible=("codex", "0.171."),
    token_variable="OPENAI_API_KEY",  # noqa: S106 - a variable's name, not a key
    raw_key="OPENAI_API_KEY",
    family="openai",
    login=CODEX_LOGIN,
    stop_is_final=True,  # let stop, `codex exec` exits: nothing of it can take another turn
    takes_messages=False,  # its prompt is its command line: it reads nothing from its terminal
    parkable=False,  # it has no keys that pause it: parked, it would run on to its end
)
