"""A CAS storm: 8 processes x 100 transitions on one record -> 801 contiguous versions, no lost
update, every operation id applied exactly once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from oms.store import Store
from tests.helpers import REPO, OmsCommand, payload, ts

WRITERS = 8
EACH = 100


@pytest.mark.slow
def test_eight_writers_hundred_transitions_each(tmp_path: Path, oms: OmsCommand) -> None:
    state = tmp_path / "state"
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)  # ADR 0032
    assert (
        oms.run(
            "init", "--state-root", str(state), "--config-root", str(tmp_path / "repo")
        ).returncode
        == 0
    )
    with Store.open(str(state)) as store:
        store.records("worker").create(
            "dsp-storm",
            state="idle",
            payload=payload("worker"),
            operation_id="op-c",
            actor="oms-system",
            observed_at=ts(0),
        )
    children = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.integration.writer_child",
                "storm",
                str(state),
                str(k),
                str(EACH),
            ],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for k in range(WRITERS)
    ]
    for child in children:
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.close()
    conflicts = 0
    for child in children:
        assert child.stdout is not None
        out = child.stdout.read()
        child.stdout.close()
        assert child.wait(timeout=300) == 0
        conflicts += int(out.split()[1])
    with Store.open(str(state)) as store:
        history = store.records("worker").history("dsp-storm")
    assert [r.version for r in history] == list(range(WRITERS * EACH + 1))
    ops = [r.operation_id for r in history[1:]]
    assert sorted(ops) == sorted(f"op-w{k}-{i}" for k in range(WRITERS) for i in range(EACH))
    for k in range(WRITERS):  # each writer's own operations landed in its order
        mine = [op for op in ops if op.startswith(f"op-w{k}-")]
        assert mine == [f"op-w{k}-{i}" for i in range(EACH)]
    assert conflicts > 0, "no contention: the storm proved nothing"
    assert oms.run("store", "verify", "--state-root", str(state)).returncode == 0
