"""`oms worker deliver|observe|park|resume|stop` as real processes (source, and frozen in CI)."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest

from oms.canonical import add_ms, now, parse_ts
from oms.fsio.procinfo import group_alive
from tests.agent_side import snapshot
from tests.chain import Chain, accepted, use_worker, wait_for
from tests.e2e.test_codex_exec import ROLE as CODEX_ROLE
from tests.e2e.test_real_agents import _use
from tests.helpers import OmsCommand, eventually

pytestmark = pytest.mark.cli


def _run(oms: OmsCommand, chain: Chain, *args: str) -> subprocess.CompletedProcess[str]:
    return oms.run(*args, "--state-root", str(chain.state), "--config-root", str(chain.repo))


def test_deliver_observe_stop(oms: OmsCommand, deliverable: Chain) -> None:
    out = use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    delivered = _run(oms, deliverable, "worker", "deliver", "--event-id", event_id, "--json")
    assert delivered.returncode == 0, delivered.stderr
    data = json.loads(delivered.stdout)
    assert (data["status"], data["outcome"]["status"]) == ("processed", "created")
    eventually(out.exists, timeout=30, what="the worker writes its output")
    executable = dict(line.split("=", 1) for line in out.read_text().splitlines())["executable"]
    assert Path(executable).is_file()
    assert Path(executable).resolve() == Path(executable)  # real path, no symlink
    replay = _run(oms, deliverable, "worker", "deliver", "--event-id", event_id)
    assert replay.stdout.startswith("replayed: created")
    observed = json.loads(_run(oms, deliverable, "worker", "observe", dispatch_id, "--json").stdout)
    assert (observed["worker_activity"], observed["pane_live"]) == ("working", True)
    stopped = json.loads(
        _run(
            oms, deliverable, "worker", "stop", dispatch_id, "--reason", "cli test", "--json"
        ).stdout
    )
    assert (stopped["worker_health"], stopped["end_reason"], stopped["pane_live"]) == (
        "stopped",
        "stopped",
        False,
    )
    assert _run(oms, deliverable, "status").returncode == 0


def test_deliver_parks_with_exit_1_and_one_reason(oms: OmsCommand, deliverable: Chain) -> None:
    use_worker(deliverable)
    _, event_id = accepted(deliverable)
    deliverable.edit_config(
        lambda s: s.replace('model = "script"', 'model = "changed"'), commit=True
    )
    result = _run(oms, deliverable, "worker", "deliver", "--event-id", event_id)
    assert result.returncode == 1
    assert result.stdout.startswith("processed: parked")
    assert "changed since it was approved: model_id" in result.stdout


def test_worker_usage_errors(oms: OmsCommand, deliverable: Chain) -> None:
    for args, code in (
        (["worker", "deliver", "--event-id", "../evt"], 1),
        (["worker", "deliver"], 2),
        (["worker", "park", "dsp-x", "--until", "tomorrow"], 1),
        (["worker", "stop", "dsp-nope"], 1),
    ):
        result = _run(oms, deliverable, *args)
        assert result.returncode == code, (args, result.stderr)
        assert "Traceback" not in result.stderr


def _registry_pid(chain: Chain, dispatch_id: str) -> int:
    return int(json.loads((chain.state / "panes" / f"{dispatch_id}.json").read_text())["pane_pid"])


def _wait_group_gone(pgid: int, timeout: float = 20.0) -> None:
    what = f"process group {pgid} ends with its pane"
    eventually(lambda: not group_alive(pgid), timeout=timeout, what=what)


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) <= 2  # the error and its hint
    return lines[0]


def _delivered(oms: OmsCommand, chain: Chain) -> str:
    out = use_worker(chain)
    dispatch_id, event_id = accepted(chain)
    assert _run(oms, chain, "worker", "deliver", "--event-id", event_id).returncode == 0
    wait_for(out)
    return dispatch_id


def test_a_command_worker_whose_pane_died_is_not_resumed(
    oms: OmsCommand, deliverable: Chain
) -> None:
    """Issue 11: an agent CLI is relaunched on its native session; a command worker has none: one
    line, nothing written (its end is left for `observe` to record)."""
    dispatch_id = _delivered(oms, deliverable)
    pgid = _registry_pid(deliverable, dispatch_id)
    tmux = ["tmux", "-S", str(deliverable.state / "tmux.sock")]
    subprocess.run([*tmux, "kill-session", "-t", dispatch_id], check=True)
    _wait_group_gone(pgid)
    before = snapshot(deliverable.state)
    refused = _run(oms, deliverable, "worker", "resume", dispatch_id)
    assert _one_line_error(refused).startswith(
        "oms: error: a command worker cannot resume once its pane has ended"
    )
    assert snapshot(deliverable.state) == before
    observed = json.loads(_run(oms, deliverable, "worker", "observe", dispatch_id, "--json").stdout)
    assert (observed["worker_health"], observed["session_state"]) == ("stopped", "stopped")


PARK_MS = 5000  # how long the worker below stays parked


def test_park_and_resume_say_what_they_did(oms: OmsCommand, deliverable: Chain) -> None:
    dispatch_id = _delivered(oms, deliverable)
    # from the real time now (the chain's clock stands at the time it was made, before the
    # delivery), far enough ahead that the park below still finds it in the future on a loaded
    # machine
    until = add_ms(now(), PARK_MS)
    parking = _run(oms, deliverable, "worker", "park", dispatch_id, "--until", until, "--json")
    parked = json.loads(parking.stdout)
    assert parking.returncode == 0, parked
    assert (parked["parked"], parked["session_state"]) == (
        "idle",
        "parked",
    )  # a command worker runs no turn
    again = json.loads(
        _run(oms, deliverable, "worker", "park", dispatch_id, "--until", until, "--json").stdout
    )
    assert again["parked"] == "already"
    eventually(  # the resume is due once that time has come (on the real clock the CLI reads)
        lambda: parse_ts(now()) > parse_ts(until),
        timeout=PARK_MS / 1000 + 30,
        what=f"the clock reaches {until}",
    )
    resumed = json.loads(_run(oms, deliverable, "worker", "resume", dispatch_id, "--json").stdout)
    assert (resumed["resumed"], resumed["typed"], resumed["session_state"]) == (
        "keys",
        "nothing",
        "running",
    )
    assert (
        "resumed" in _run(oms, deliverable, "worker", "resume", dispatch_id).stdout
    )  # the table says it too
    _run(oms, deliverable, "worker", "stop", dispatch_id)


FREEZER = Path("/sys/fs/cgroup/freezer")
LEFT = "the process group of its pane still has live processes"


@pytest.mark.skipif(not os.access(FREEZER, os.W_OK), reason="needs a writable cgroup v1 freezer")
def test_stop_fails_when_the_panes_processes_cannot_be_ended(
    oms: OmsCommand, deliverable: Chain
) -> None:
    """Issue 11: `Panes.stop` ignored what `kill_group` answered, so `oms worker stop` reported a
    stopped worker (exit 0) while a process of its pane still ran. A frozen process is one SIGKILL
    does not end until it is thawed: stop must fail in one line and record nothing but its kill
    marker; once the process is gone, stop again ends the worker."""
    dispatch_id = _delivered(oms, deliverable)
    pgid = _registry_pid(deliverable, dispatch_id)
    cgroup = FREEZER / f"oms-test-{uuid.uuid4().hex}"
    cgroup.mkdir()
    try:
        (cgroup / "cgroup.procs").write_text(str(pgid))  # the pane's supervisor, its group's leader
        (cgroup / "freezer.state").write_text("FROZEN")
        with deliverable.workspace() as ws:
            worker = ws.store.records("worker").read(dispatch_id)
        failed = _run(oms, deliverable, "worker", "stop", dispatch_id, "--reason", "frozen")
        assert (
            _one_line_error(failed) == f"oms: error: worker {dispatch_id} was not stopped: {LEFT}"
        )
        failed = _run(
            oms, deliverable, "worker", "stop", dispatch_id, "--reason", "frozen", "--json"
        )
        assert failed.returncode == 1
        answer = json.loads(failed.stdout)
        assert (answer["ok"], answer["error"]) == (False, "pane-not-ended")
        assert group_alive(pgid)
        with deliverable.workspace() as ws:
            assert (
                ws.store.records("worker").read(dispatch_id).version == worker.version
            )  # nothing recorded
        assert (deliverable.state / "panes" / f"{dispatch_id}.kill.json").exists()
    finally:
        (cgroup / "freezer.state").write_text("THAWED")  # its pending SIGKILL ends it
        _wait_group_gone(pgid)
        cgroup.rmdir()
    stopped = _run(oms, deliverable, "worker", "stop", dispatch_id, "--reason", "frozen", "--json")
    assert stopped.returncode == 0, stopped.stderr
    view = json.loads(stopped.stdout)
    assert (view["worker_health"], view["end_reason"], view["pane_live"]) == (
        "stopped",
        "stopped",
        False,
    )


def test_a_codex_exec_worker_takes_no_message_and_no_park(
    oms: OmsCommand, deliverable: Chain
) -> None:
    """`codex exec` reads nothing typed into its terminal and has no keys that pause it: its
    provider says so in the registry (`takes_messages`, `parkable`), and a person's `oms worker
    send` and `oms worker park` are refused in one line before anything is looked at, recorded or
    typed (ADR 0045 amendment `ends`) — so an accepted dispatch, never delivered, shows it."""
    deliverable.edit_config(
        lambda s: s.replace('transport = "codex_goal"', 'transport = "codex_exec"')
    )
    _use(deliverable, CODEX_ROLE, "gpt-6.2-sol", "codex_exec", "http://127.0.0.1:9/v1", [])
    dispatch_id, _ = accepted(deliverable)
    with deliverable.workspace() as ws:
        before = ws.store.events.ids(), ws.store.records("worker").read(dispatch_id)
    for args, said in (
        (("send", dispatch_id, "the tests live in tests/unit"), "cannot be sent a message"),
        (("park", dispatch_id, "--until", "2h"), "cannot be parked"),
    ):
        for json_out in (False, True):
            result = _run(oms, deliverable, "worker", *args, *(("--json",) * json_out))
            if json_out:
                assert result.returncode == 1, result.stdout + result.stderr
                error = json.loads(result.stdout)
                assert (error["ok"], error["error"]) == (False, "invalid-input"), error
                assert said in error["message"], error
                assert "codex_exec" in error["message"], error
            else:
                line = _one_line_error(result)
                assert said in line, line
                assert "codex_exec" in line, line
    with deliverable.workspace() as ws:
        # no message recorded, nothing parked
        assert (ws.store.events.ids(), ws.store.records("worker").read(dispatch_id)) == before
    help_text = _run(oms, deliverable, "worker", "send", "--help").stdout
    assert "codex_exec" in " ".join(help_text.split())
