"""An advisor that cannot work says why and what to do (issue 15): the real Codex CLI and Claude
Code, not logged in and with no role endpoint, are refused before they run (each CLI asked, offline,
in well under a second: no 31 s of retries), and an advisor that fails says its own last line and
what it means."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from oms.errors import AdvisorError
from oms.services.chain import dispatches
from tests.chain import Chain
from tests.helpers import oms_command


def _advisor_on(chain: Chain, transport: str, model: str) -> None:
    """The advisor role on a real agent CLI, with no endpoint (the scaffolded default's shape)."""

    def change(text: str) -> str:
        head, marker, tail = text.partition('[roles."oms.exec-advisor"]')
        end = tail.find("\n[")
        rest = "" if end < 0 else tail[end:]
        return (
            head
            + marker
            + f'\nmodel = "{model}"\ntransport = "{transport}"\nsandbox = "read-only"\n'
            + rest
        )

    chain.edit_config(change, commit=True)


@pytest.fixture
def logged_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither CLI has a login: empty homes, no API keys in the environment."""
    for name in ("OPENAI_API_KEY", "CODEX_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name in ("CODEX_HOME", "CLAUDE_CONFIG_DIR"):
        home = tmp_path / name.lower()
        home.mkdir()
        monkeypatch.setenv(name, str(home))


@pytest.mark.usefixtures("logged_out")
@pytest.mark.parametrize(
    ("transport", "model", "said", "todo"),
    [
        (
            "codex_exec",
            "gpt-5-codex",
            "cannot run the advisor: the Codex CLI is not logged in",
            "run `codex login`",
        ),
        (
            "claude_print",
            "sonnet",
            "cannot run the advisor: Claude Code is not logged in",
            "`/login`",
        ),
    ],
)
def test_a_cli_that_is_not_logged_in_is_refused_before_it_runs(
    chain: Chain, transport: str, model: str, said: str, todo: str
) -> None:
    _, _, dispatch_id = chain.proposed()
    _advisor_on(chain, transport, model)
    started = time.monotonic()
    with chain.workspace() as ws, pytest.raises(AdvisorError) as info:
        dispatches.review(ws, dispatch_id)
    assert time.monotonic() - started < 15  # the CLI's own offline check, never its network retries
    assert said in info.value.message
    assert todo in info.value.diagnostics()
    assert "endpoint" in info.value.diagnostics()
    with chain.workspace() as ws:
        assert ws.store.records("dispatch").read(dispatch_id).state == "proposed"  # nothing changed


@pytest.mark.usefixtures("logged_out")
def test_the_cli_says_it_in_one_line_with_what_to_do(chain: Chain) -> None:
    _, _, dispatch_id = chain.proposed()
    _advisor_on(chain, "codex_exec", "gpt-5-codex")
    done = oms_command().run(
        "dispatch",
        "review",
        dispatch_id,
        "--state-root",
        str(chain.state),
        "--config-root",
        str(chain.repo),
    )
    assert done.returncode == 1
    first, hint = done.stderr.splitlines()[:2]
    assert first.startswith(
        "oms: error: cannot run the advisor: the Codex CLI is not logged in (`codex login status`: "
    )
    assert hint.startswith("  hint: run `codex login`")


def test_an_advisor_that_fails_says_its_last_line_and_what_it_means(chain: Chain) -> None:
    _, _, dispatch_id = chain.proposed()
    chain.set_advisor("unreachable", commit=True)
    with chain.workspace() as ws, pytest.raises(AdvisorError) as info:
        dispatches.review(ws, dispatch_id)
    assert info.value.message.endswith(
        "exited 1: ERROR: stream disconnected: failed to lookup "
        "address information: Name does not resolve"
    )
    assert "could not be reached" in info.value.diagnostics()


def test_an_advisor_that_fails_silently_says_so(chain: Chain) -> None:
    _, _, dispatch_id = chain.proposed()
    chain.set_advisor("fail", commit=True)
    with chain.workspace() as ws, pytest.raises(AdvisorError) as info:
        dispatches.review(ws, dispatch_id)
    assert info.value.message.endswith("exited 3 and said nothing")
    assert "by hand" in info.value.diagnostics()


def test_claudes_error_envelope_is_said_as_claude_said_it() -> None:
    from oms.adapters import advisor

    plan = advisor.Plan(("claude", "-p"), b"", "claude")
    # what Claude Code 2.1.332 printed here, not logged in, with `-p --output-format json` (exit 0)
    out = (
        b'{"type":"result","subtype":"success","is_error":true,'
        b'"result":"Not logged in \xc2\xb7 Please run /login"}'
    )
    run = advisor.AdvisorRun(("claude", "-p"), 0, out, "t0", "t1")
    with pytest.raises(AdvisorError) as info:
        advisor.verdict(plan, run)
    assert info.value.message.startswith(
        "advisor claude failed: Not logged in "
    )  # (one line, shown safely)
    assert info.value.message.endswith(" Please run /login")
    assert "`/login`" in info.value.diagnostics()
