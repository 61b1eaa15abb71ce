"""`oms conductor tick|run` as real processes (source, and frozen in CI) over a real fleet."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.services.conductor import tick as conductor
from tests.fleet import Fleet, make_fleet
from tests.helpers import OmsCommand, eventually

pytestmark = pytest.mark.cli


@pytest.fixture
def waiting_fleet(tmp_path: Path) -> Iterator[Fleet]:
    yield from make_fleet(tmp_path / "fleet", after="wait")


def _roots(fleet: Fleet) -> tuple[str, ...]:
    return ("--state-root", fleet.state, "--config-root", fleet.repo)


def test_tick_reports_every_phase_in_json(oms: OmsCommand, waiting_fleet: Fleet) -> None:
    ticket = waiting_fleet.add("Ticket")
    done = oms.run("conductor", "tick", "--json", *_roots(waiting_fleet))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [p["phase"] for p in report["phases"]] == list(conductor.PHASES)
    fill = next(p for p in report["phases"] if p["phase"] == "fill")
    assert f"{ticket}: leased to worker-1" in fill["done"]
    assert all(isinstance(p["ms"], int) for p in report["phases"])
    plain = oms.run("conductor", "tick", *_roots(waiting_fleet))
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.splitlines()[-1].startswith("tick ")
    assert "1 alive" in plain.stdout or "1 not-started" in plain.stdout


def test_a_second_conductor_is_refused_naming_the_holder(
    oms: OmsCommand, waiting_fleet: Fleet
) -> None:
    with waiting_fleet.workspace() as ws, conductor.lock(ws):
        refused = oms.run("conductor", "tick", *_roots(waiting_fleet))
    assert refused.returncode != 0
    assert "another conductor works on this state root" in refused.stderr
    assert f"pid {os.getpid()}" in refused.stderr or str(os.getpid()) in refused.stderr
    assert "Traceback" not in refused.stderr


@pytest.mark.parametrize("json_out", [False, True])
def test_a_second_conductor_run_refuses_before_its_banner(
    oms: OmsCommand, waiting_fleet: Fleet, json_out: bool
) -> None:
    flags = ("--json",) if json_out else ()
    with waiting_fleet.workspace() as ws, conductor.lock(ws):
        refused = oms.run("conductor", "run", "--ticks", "1", *flags, *_roots(waiting_fleet))
    assert refused.returncode == 1, refused.stdout + refused.stderr  # a domain error (ADR 0007)
    assert "Traceback" not in refused.stderr
    if json_out:
        doc = json.loads(refused.stdout)  # the error object alone: no tick, no "stopped"
        assert (doc["ok"], doc["error"]) == (False, "lock-held"), doc
        said = doc["message"]
    else:
        assert refused.stdout == ""  # no banner, no "conductor stopped after 0 ticks"
        said = refused.stderr.splitlines()[0]
    assert "another conductor works on this state root" in said
    assert f"pid {os.getpid()}" in said, said


def test_run_streams_ticks_and_sigterm_ends_it_leaving_workers_running(
    oms: OmsCommand, waiting_fleet: Fleet
) -> None:
    ticket = waiting_fleet.add("Ticket")
    proc = subprocess.Popen(
        [*oms.argv, "conductor", "run", "--interval", "1", "--json", *_roots(waiting_fleet)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        events: list[dict[str, object]] = []
        deadline = time.monotonic() + 60
        while True:  # ticks until the worker is alive in its pane
            assert time.monotonic() < deadline, events[-1:]
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else ""
            event = json.loads(line)
            events.append(event)
            if event["type"] == "tick" and "alive" in event["workers"].values():
                break
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    last = json.loads(out.splitlines()[-1])
    assert (last["type"], last["reason"]) == ("stopped", "asked to stop")
    assert last["ticks"] >= len([e for e in events if e["type"] == "tick"])
    state, payload = waiting_fleet.tickets()[ticket]
    assert state == "leased"  # the worker was left running, its ticket still held
    listed = subprocess.run(
        [
            "tmux",
            "-S",
            f"{waiting_fleet.state}/tmux.sock",
            "list-panes",
            "-a",
            "-F",
            "#{pane_dead}",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert listed.stdout.split() == ["0"]  # its pane is live
    again = oms.run(
        "conductor", "tick", "--json", *_roots(waiting_fleet)
    )  # the lock went with the loop
    assert again.returncode == 0, again.stderr
    assert payload["worker_id"] == "worker-1"


def test_run_prints_timestamped_lines_off_a_terminal(oms: OmsCommand, waiting_fleet: Fleet) -> None:
    ticket = waiting_fleet.add("Ticket")
    done = oms.run("conductor", "run", "--ticks", "1", *_roots(waiting_fleet))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(line[:20].endswith("Z") and line[4] == "-" for line in lines), (
        lines
    )  # each line stamped
    assert any(f"fill: {ticket}: leased to worker-1" in line for line in lines)
    assert "conductor stopped after 1 ticks (done); workers keep running" in lines[-1]


def test_run_draws_a_live_view_on_a_terminal(
    oms: OmsCommand, waiting_fleet: Fleet, tmp_path: Path
) -> None:
    """On a TTY (a tmux pane of a private server, read with `capture-pane`) the loop redraws the
    pool, the workers (their ticket and title) with health, age and heartbeat, the queue and the
    recent ends, and under it what a tick does."""
    import shlex

    waiting_fleet.add("Ticket that would hang")
    waiting_fleet.add("Queued behind it")
    waiting_fleet.add("And another")
    sock = str(tmp_path / "view.sock")
    command = shlex.join(
        [*oms.argv, "conductor", "run", "--ticks", "3", "--interval", "1", *_roots(waiting_fleet)]
    )
    subprocess.run(
        ["tmux", "-S", sock, "new-session", "-d", "-x", "160", "-y", "40", f"{command}; sleep 30"],
        check=True,
    )
    try:

        def stopped() -> str:
            screen = subprocess.run(
                ["tmux", "-S", sock, "capture-pane", "-p"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            assert "conductor stopped after 3 ticks" in screen, screen
            return screen

        screen = eventually(stopped, timeout=60, what="the live view shows the conductor stop")
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True, check=False)
    assert "oms conductor" in screen
    assert "pool 2/2" in screen
    assert "WORKER" in screen
    assert "HEALTH" in screen
    assert "BEAT" in screen
    assert "TICKET" in screen
    assert "Ticket that would hang" in screen  # a worker by its ticket's title
    assert "QUEUE (1)" in screen
    assert "tkt-3" in screen.split("QUEUE (1)", 1)[1]
    assert "And another" in screen.split("QUEUE (1)", 1)[1]
    assert "now: " in screen  # the line that says what a tick does
    assert screen.count("healthy") >= 1
    assert "alive" in screen or "not-started" in screen
