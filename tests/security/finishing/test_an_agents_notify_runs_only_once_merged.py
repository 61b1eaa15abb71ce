"""An agent never chooses a command that runs on the host (SECURITY.md "Review before merge", ADR
0036 as amended): a result branch's `.oms/config.toml` may add a `[notify]` command, which would run
outside every sandbox. oms reads its configuration at HEAD of the config root, so a person who
checks the result out there to try it (`git checkout -b try <result>`) — or merges it — would have
the agent's command run by the next tick. `[notify]` is read only from the person's own settings
(`$XDG_CONFIG_HOME/oms/notify.toml`, out of every agent's reach); a repository's table is ignored,
and `oms status` says where it moved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oms.services.chain import tickets
from tests.agent_side import BoundTools, bind
from tests.chain import Chain
from tests.helpers import OmsCommand, eventually, git
from tests.integration.test_notify import RECORD, _configure, _script, _tick


@pytest.fixture(autouse=True)
def _settings_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _agent_result(chain: Chain, marker: Path) -> str:
    """An agent's result commit that adds a `[notify]` command writing `marker`."""
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        config = bound.worktree / ".oms" / "config.toml"
        config.write_text(
            config.read_text() + f'\n[notify]\ncommands = [["sh", "-c", "echo ran > {marker}"]]\n'
        )
        git("add", "-A", cwd=bound.worktree)
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "w", cwd=bound.worktree)
        commit = git("rev-parse", "HEAD", cwd=bound.worktree).strip()
        done, is_error = tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "Done.", "result_commit": commit},
        )
        assert is_error is False, done
    finally:
        tools.close()
    return commit


def _tick_with_a_notice(chain: Chain, oms: OmsCommand, heard: Path) -> None:
    """A tick with something to notify, run to the person's notifier's outcome."""
    with chain.workspace() as ws:
        other = tickets.add(ws, "Another", "body")
        tickets.block(ws, other.record_id, "waiting")
    _tick(chain, oms)
    log = chain.state / "notify" / "notify.log"

    def settled() -> bool:  # each notice run by the person's one command, nothing else
        ran = log.read_text().splitlines() if log.exists() else []
        got = heard.read_text().splitlines() if heard.exists() else []
        return bool(ran) and len(ran) == len(got) and all(ln.endswith(": ok") for ln in ran)

    eventually(settled, timeout=30, what="the person's notifier's outcome, alone")


def _status_warnings(chain: Chain, oms: OmsCommand) -> list[str]:
    done = oms.run(
        "status", "--json", "--state-root", str(chain.state), "--config-root", str(chain.repo)
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["warnings"]
    assert isinstance(found, list)
    return [str(w) for w in found]


def test_a_checked_out_result_runs_no_notify_command(chain: Chain, oms: OmsCommand) -> None:
    marker = chain.base / "ran-the-agents-command"
    heard = chain.base / "heard.jsonl"
    _configure(chain, [_script(chain, "record.sh", RECORD), str(heard)])  # the person's own
    commit = _agent_result(chain, marker)
    git("checkout", "-q", "-b", "try", commit, cwd=chain.repo)  # the person tries the result
    _tick_with_a_notice(chain, oms, heard)
    assert not marker.exists(), "the agent's [notify] command ran on the host, unmerged"
    assert any("[notify] in .oms/config.toml is ignored" in w for w in _status_warnings(chain, oms))


def test_a_merged_result_adds_no_host_command(chain: Chain, oms: OmsCommand) -> None:
    marker = chain.base / "ran-the-agents-command"
    heard = chain.base / "heard.jsonl"
    _configure(chain, [_script(chain, "record.sh", RECORD), str(heard)])
    commit = _agent_result(chain, marker)
    git("merge", "-q", "--no-ff", "-m", "merged", commit, cwd=chain.repo)  # reviewed, or not
    _tick_with_a_notice(chain, oms, heard)
    assert not marker.exists(), "a merged [notify] command ran on the host"
    warnings = _status_warnings(chain, oms)
    assert any("notify.toml" in w and "move the table there" in w for w in warnings), warnings
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    checks = json.loads(oms.run("doctor", *roots, "--json").stdout)["checks"]
    notify = {c["detail"]: c["warning"] for c in checks if c["check"] == "notify"}
    assert len(notify) == 2, checks  # the person's settings, and the repository's table ignored
    assert [d for d, warn in notify.items() if warn and "is ignored" in d], notify
