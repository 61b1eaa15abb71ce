"""Crash safety: a writer is SIGKILLed at random points, over and over. After every kill
`oms store verify` passes and every record is at an old or a new version, never torn; and once the
next writer or `oms store sweep` has settled the ledger, `oms audit verify` passes too (ADR 0027).

The default publisher (O_TMPFILE) leaves nothing behind; the named-temp publisher (forced with
OMS_FSIO_PUBLISH=rename) can leave a dead writer's temp file, which `oms store sweep` removes.

Each writer is a process of its own, SIGKILLed; it is forked from one that imported oms once
(`writer_child serve`). What checks after a kill runs in this process (`verify` and `sweep`, what
`oms store verify|sweep` run), but after the last kill of each test the CLI runs them. (A new
interpreter for each writer and each check cost ~0.15 + 0.3 s of Python's start, most of a round.)
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from oms.store import Store
from oms.store.verify import sweep, verify
from tests.helpers import REPO, OmsCommand
from tests.integration.writer_child import RECORDS, expected_state


class Writers:
    """`writer_child serve`: a writer process forked on demand, its pid, and how it ended."""

    def __init__(self, state: Path, env: dict[str, str]) -> None:
        self.server = subprocess.Popen(
            [sys.executable, "-m", "tests.integration.writer_child", "serve", str(state)],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        assert self.server.stdin is not None
        assert self.server.stdout is not None
        self.stdin, self.out = self.server.stdin, self.server.stdout.fileno()
        self.pending = b""
        self.live: int | None = None  # a writer not yet reported gone

    def line(self) -> str:
        while b"\n" not in self.pending:
            chunk = os.read(self.out, 4096)
            assert chunk, f"the writer server ended: {self.server.wait(10)}"
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode()

    def kill_at_random(self, rng: random.Random) -> None:
        self.stdin.write(b"go\n")
        self.stdin.flush()
        said = sorted([self.line(), self.line()])  # `pid N` and the writer's `ready`, either first
        assert said[1] == "ready", said
        assert said[0].startswith("pid "), said
        self.live = int(said[0].removeprefix("pid "))
        # The kill point: anywhere in the first ~40 ms of writing (hundreds of publishes). A line
        # meanwhile is the writer's end, before its kill: the assertion below names it.
        if not self.pending and not select.select([self.out], [], [], rng.uniform(0.0, 0.04))[0]:
            os.kill(self.live, signal.SIGKILL)  # the server's child, unreaped until it says `exit`
        ended = self.line()
        self.live = None
        assert ended == f"exit {-signal.SIGKILL}"

    def close(self) -> None:
        """End the server (and a writer a failed round left running)."""
        if self.live is not None:
            os.kill(self.live, signal.SIGKILL)
        self.stdin.close()
        try:
            self.server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        assert self.server.stdout is not None
        self.server.stdout.close()


def _check_records(state: Path) -> int:
    with Store.open(str(state)) as store:
        records = store.records("worker")
        total = 0
        for i in range(RECORDS):
            history = records.history(f"dsp-{i}") if records.versions(f"dsp-{i}") else []
            for rec in history:
                assert rec.payload["end_detail"] == f"step {rec.version}"
                assert (
                    rec.state == expected_state(rec.version) if rec.version else rec.state == "idle"
                )
            total += len(history)
        return total


def _sweep(oms: OmsCommand, state: Path, cli: bool) -> list[str]:
    """`oms store sweep`: what it removed."""
    if not cli:
        return sweep(str(state))
    swept = oms.run("store", "sweep", "--state-root", str(state), "--json")
    assert swept.returncode == 0, swept.stderr
    removed = json.loads(swept.stdout)["removed"]
    assert isinstance(removed, list)
    return [str(r) for r in removed]


def _verify(oms: OmsCommand, state: Path, cli: bool) -> None:
    """`oms store verify` passes."""
    if not cli:
        report = verify(str(state))
        assert report.ok, [f.to_json() for f in report.findings]
        return
    result = oms.run("store", "verify", "--state-root", str(state))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("publish", "rounds"), [("auto", 200), ("rename", 60)])
def test_sigkill_at_random_points_never_tears_a_record(
    tmp_path: Path, oms: OmsCommand, publish: str, rounds: int
) -> None:
    state = tmp_path / "state"
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)  # ADR 0032
    assert (
        oms.run(
            "init", "--state-root", str(state), "--config-root", str(tmp_path / "repo")
        ).returncode
        == 0
    )
    rng = random.Random(f"crash-{publish}")
    writers = Writers(state, {**os.environ, "OMS_FSIO_PUBLISH": publish})
    progress = []
    debris_rounds = 0
    settled: list[str] = []
    try:
        for n in range(rounds):
            writers.kill_at_random(rng)
            cli = n == rounds - 1
            if publish == "rename":
                removed = _sweep(oms, state, cli)
                settled += [r for r in removed if r.startswith("ledger/log")]
                debris_rounds += any(not r.startswith("ledger/log") for r in removed)
            _verify(oms, state, cli)
            progress.append(_check_records(state))
            if n % 2 == 0:  # one unit (ADR 0027): settled by a sweep here, else by the next writer
                settled += [r for r in sweep(str(state)) if r.startswith("ledger/log")]
                with Store.open(str(state)) as store:
                    problems = store.audit().problems
                assert problems == [], problems
    finally:
        writers.close()
    assert progress[-1] > progress[0], "the writer never made progress: the kills prove nothing"
    assert progress == sorted(progress)
    if publish == "auto":
        assert debris_rounds == 0
    assert settled, "no kill landed inside a ledger unit: the rounds prove nothing about it"
