"""`oms worker deliver|observe|park|resume|stop` as real processes (source, and frozen in CI)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.chain import Chain, accepted, use_worker
from tests.helpers import OmsCommand

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
    deadline = time.monotonic() + 30
    while not out.exists():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    executable = dict(line.split("=", 1) for line in out.read_text().splitlines())["executable"]
    assert Path(executable).is_file()
    assert Path(executable).resolve() == Path(executable)  # real path, no symlink
    replay = _run(oms, deliverable, "worker", "deliver", "--event-id", event_id)
    assert replay.stdout.startswith("replayed: created")
    observed = json.loads(_run(oms, deliverable, "worker", "observe", dispatch_id, "--json").stdout)
    assert (observed["worker_activity"], observed["pane_live"]) == ("working", True)
    stopped = json.loads(_run(oms, deliverable, "worker", "stop", dispatch_id, "--reason", "cli test", "--json").stdout)
    assert (stopped["worker_health"], stopped["end_reason"], stopped["pane_live"]) == ("stopped", "stopped", False)
    assert _run(oms, deliverable, "status").returncode == 0


def test_deliver_parks_with_exit_1_and_one_reason(oms: OmsCommand, deliverable: Chain) -> None:
    use_worker(deliverable)
    _, event_id = accepted(deliverable)
    deliverable.edit_config(lambda s: s.replace('model = "script"', 'model = "changed"'), commit=True)
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
