"""The `codex_exec` provider's plan (pure): Codex's home and hooks, the instructions as the prompt
on its command line, nothing typed into its pane. What the real CLI makes of the flags is
tests/e2e/test_provider_configs.py's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from oms.adapters.providers import REGISTRY, codex, codex_exec
from oms.adapters.providers.base import CONTINUE, LaunchRequest
from oms.adapters.quoting import QuotingError
from oms.adapters.sandbox import HOME_VIEW
from oms.provider_names import ENGINES, FAMILIES
from tests.helpers import SESSION

THREAD = "019a0000-1111-7222-8333-444455556666"


def _request(**changes: object) -> LaunchRequest:
    req = LaunchRequest(
        dispatch_id="dsp-1",
        session_id=SESSION,
        role_id="oms.exec-executor",
        model="gpt-5-codex",
        worktree="/work/wt with 'quotes'",
        executable="/opt/oms/oms",
        instructions="Work the dispatch; -- report with oms_result.",
        passthrough={"OPENAI_API_KEY": "oms-proxy-token"},
        endpoint="http://127.0.0.1:4100/v1",
    )
    return replace(req, **changes)  # type: ignore[arg-type]


def test_the_instructions_are_the_prompt_on_the_command_line_and_nothing_is_typed() -> None:
    plan = codex_exec.plan(_request())
    assert plan.argv[:4] == ("codex", "-a", "never", "exec")
    assert plan.argv[-2:] == ("--", "Work the dispatch; -- report with oms_result.")
    assert plan.prompt is None  # activation skips it, as a command worker's
    assert (plan.ready_marks, plan.busy_mark, plan.goal_mark) == ((), None, None)
    assert (plan.park_keys, plan.quit_keys) == ((), ())
    assert "--trust" not in plan.argv
    assert "--ask-for-approval" not in plan.argv  # `codex exec` has none: `-a` precedes `exec`
    assert "goals" not in plan.argv
    assert plan.argv[plan.argv.index("--model") + 1] == "gpt-5-codex"
    assert "--dangerously-bypass-hook-trust" in plan.argv
    assert 'sandbox_mode="workspace-write"' in plan.argv
    assert plan.native_action == "exec"


def test_it_is_codex_to_hooks_homes_and_the_proxy() -> None:
    req = _request()
    plan, goal = codex_exec.plan(req), codex.plan(req)
    assert (plan.home, plan.files, plan.env) == (goal.home, goal.files, goal.env)
    assert plan.env["CODEX_HOME"] == HOME_VIEW
    assert plan.env["OPENAI_API_KEY"] == "oms-proxy-token"
    assert codex.mcp_override(req) in plan.argv
    provider = REGISTRY["codex_exec"]
    assert provider is codex_exec.PROVIDER
    assert (provider.name, provider.hook_contract) == ("codex", codex.PROVIDER.hook_contract)
    assert provider.compatible == codex.PROVIDER.compatible
    assert (ENGINES["codex_exec"], FAMILIES["codex_exec"]) == ("codex", "openai")
    assert provider.surface != codex.PROVIDER.surface  # the journal tells the two apart


def test_a_login_file_is_shown_read_only_over_a_placeholder() -> None:
    plan = codex_exec.plan(_request(codex_auth="/home/u/.codex/auth.json", passthrough={}))
    assert plan.ro_files == (("/home/u/.codex/auth.json", f"{HOME_VIEW}/auth.json"),)
    assert [f.data for f in plan.files if f.name == "auth.json"] == [b""]
    assert "OPENAI_API_KEY" not in plan.env


def test_a_relaunch_resumes_its_own_thread_and_is_told_to_continue() -> None:
    req = _request()
    first, again = codex_exec.plan(req), codex_exec.plan(replace(req, resume=THREAD))
    assert again.argv[:5] == ("codex", "-a", "never", "exec", "resume")
    assert again.argv[5:-2] == first.argv[4:-1]  # the same flags, `--` last
    assert again.argv[-2:] == (THREAD, CONTINUE)
    assert (again.files, again.env, again.home, again.prompt) == (
        first.files,
        first.env,
        first.home,
        None,
    )


@pytest.mark.parametrize(
    "changes",
    [
        {"instructions": "line one\nline two"},
        {"resume": "id\nrm -rf /"},
        {"worktree": "/tmp/wt\tx"},
        {"model": "gpt-\u00e9"},
    ],
)
def test_control_or_non_ascii_arguments_are_refused(changes: dict[str, str]) -> None:
    with pytest.raises(QuotingError):
        codex_exec.plan(_request(**changes))
