"""Reconciliation after `kill -9` (the conductor's acceptance test): `oms conductor run` killed with
SIGKILL at random points and restarted, over a real fleet (`tests/restart.py`: real git, tmux,
panes, sandboxes, bridges), loses no result, launches no agent twice, classifies every worker in its
first tick and leaves nothing running; and the points of a launch where a kill did harm, each killed
exactly there."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.adapters.providers.command import home
from oms.services.chain import dispatches
from oms.services.conductor.tick import Tick
from tests.chain import sandbox_dir
from tests.fleet import Fleet
from tests.helpers import oms_command, stays
from tests.restart import STARTED, poll, prepare, scenario

pytestmark = [pytest.mark.slow, pytest.mark.cli]

SEED = 12


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    yield from prepare(tmp_path / "fleet", tickets_n=14, max_workers=8, seed=SEED)


@pytest.fixture
def one(tmp_path: Path) -> Iterator[Fleet]:
    yield from prepare(tmp_path / "fleet", tickets_n=1, max_workers=1, seed=SEED)


def test_a_conductor_killed_ten_times_loses_nothing_and_starts_nothing_twice(fleet: Fleet) -> None:
    """Ten SIGKILLs 0.2-3 s after a start (seeded), each followed by a restart, then the queue
    finishes: 0 duplicate launches, 0 lost results, every worker classified by each restart's first
    tick, nothing left running."""
    outcome = scenario(fleet, rounds=10, seed=SEED, min_delay=0.2, max_delay=3.0, settle_s=150)
    report = outcome.to_json()
    assert outcome.kills == 10, report
    assert outcome.stuck == [], report
    assert outcome.duplicates == {}, report
    assert outcome.lost == [], report
    assert outcome.unclassified == [], report
    assert outcome.left_running == [], report
    assert outcome.tick_failures == [], report
    assert outcome.restarts_classified >= 1, (
        report
    )  # the last run's first tick at least was checked
    assert outcome.dispatches >= 14, report


# --------------------------------------------------------- the windows, killed at their exact point
def _killing_tmux(where: Path, after: str) -> dict[str, str]:
    """An environment whose `tmux` runs the real one and, the first time its arguments include
    `after`, then SIGKILLs its caller (the `oms conductor tick` that ran it): a kill at that exact
    point."""
    real = shutil.which("tmux")
    assert real is not None
    where.mkdir()
    fired = where / "fired"
    script = where / "tmux"
    script.write_text(
        "#!/bin/sh\n"
        f'case "$*" in *{after}*) "{real}" "$@"; rc=$?\n'
        f'  if [ ! -e "{fired}" ]; then : > "{fired}"; kill -9 "$PPID"; fi; exit $rc ;;\n'
        "esac\n"
        f'exec "{real}" "$@"\n'
    )
    script.chmod(0o755)
    return {**os.environ, "PATH": f"{where}:{os.environ['PATH']}"}


def _killed_tick(fleet: Fleet, env: dict[str, str]) -> None:
    argv = [*oms_command().argv, "conductor", "tick", "--json", "--state-root", fleet.state]
    done = subprocess.run(
        [*argv, "--config-root", fleet.repo], env=env, capture_output=True, timeout=120, check=False
    )
    assert done.returncode == -9, done.stderr


def _panes(fleet: Fleet) -> list[str]:
    listed = subprocess.run(
        [
            "tmux",
            "-S",
            f"{fleet.state}/tmux.sock",
            "list-panes",
            "-a",
            "-F",
            "#{session_name} #{@oms_dispatch}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return listed.stdout.splitlines()


def _phase(report: Tick, name: str) -> list[str]:
    return next(p.done for p in report.phases if p.name == name)


def _log(fleet: Fleet, session_id: str) -> str:
    path = Path(sandbox_dir(Path(fleet.state)), home(session_id), "worker.log")
    return path.read_text() if path.exists() else ""


def _killed_after_new_session(fleet: Fleet, where: Path) -> tuple[str, str]:
    """A tick killed as its `new-session` returned, before the pane registry and the session:
    (dispatch id, session id) of the worker it was launching."""
    _killed_tick(fleet, _killing_tmux(where, "new-session"))
    with fleet.workspace() as ws:
        (dispatch_id,) = ws.store.records("dispatch").ids()
        dispatch = ws.store.records("dispatch").read(dispatch_id)
        session_id = str(dispatch.payload["session_id"])
        assert ws.store.records("session").read_if_exists(session_id) is None
        assert (
            ws.store.state.root.read_optional(f"panes/{dispatch_id}.json", 4096) is None
        )  # no registry
    return dispatch_id, session_id


def test_a_pane_made_by_a_conductor_killed_right_after_is_adopted_by_the_next_one(
    one: Fleet, tmp_path: Path
) -> None:
    """Killed as its `new-session` returned (before the tag, the pane registry and the session): the
    next conductor sees the worker alive and delivers into that pane (`reused`): one attempt, one
    start, and its pane closed once it ended."""
    dispatch_id, session_id = _killed_after_new_session(one, tmp_path / "bin")
    first = one.tick()
    assert first.classes == {dispatch_id: "alive"}
    assert f"{dispatch_id}: delivered (reused)" in _phase(first, "deliver")
    one.until(lambda: all(state == "done" for state, _ in one.tickets().values()))
    ((_, payload),) = one.tickets().values()
    assert payload["attempt"] == 1
    assert _log(one, session_id).count(STARTED) == 1
    # the ticket is done once its result is resolved; its pane is dead only once the supervisor has
    # ended the worker after that (salvage first): a tick closes it then, as its registry names it
    one.until(lambda: _panes(one) == [])


def test_an_agent_does_not_run_ahead_of_the_session_a_killed_conductor_never_registered(
    one: Fleet, tmp_path: Path
) -> None:
    """The pane's supervisor starts the agent only once the session exists: killed before
    registering it, the conductor leaves the agent waiting, and the next conductor's re-delivery
    registers it; the agent then runs once, held by its Stop gate until its result. Before, the
    agent ran without a session: it acknowledged its dispatch (no re-delivery takes an acknowledged
    one: no session, no registry, ever), its Stop gate — no session to hold it — let it stop without
    a result, and its changes left in the worktree refused every retry until the ticket was
    quarantined."""
    dispatch_id, session_id = _killed_after_new_session(one, tmp_path / "bin")
    spec = Path(one.state, "panes", f"{dispatch_id}.launch.json")
    poll(lambda: not spec.exists(), 30, "the pane's supervisor to take its spec")
    stays(  # a started agent logs within a few hundred ms (on an idle machine)
        lambda: STARTED not in _log(one, session_id),
        seconds=2,
        what="the agent has not started before its session existed",
    )
    with one.workspace() as ws:
        assert (
            ws.store.records("dispatch").read(dispatch_id).state == "accepted"
        )  # nothing ran ahead
    one.until(lambda: all(state == "done" for state, _ in one.tickets().values()))
    ((_, payload),) = one.tickets().values()
    assert payload["attempt"] == 1
    log = _log(one, session_id)
    assert log.count(STARTED) == 1
    assert "hook Stop: blocked (the dispatch has no result yet)" in log  # held: its session existed


def test_a_conductor_killed_between_accepting_and_the_delivery_event_finishes_the_acceptance(
    one: Fleet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after the dispatch became `accepted` and before its worker and delivery event were
    written (here even in the worker's create, after its record's directory): the next tick accepts
    it again (which finishes what the crash left undone) and delivers it, instead of reporting "no
    event" every tick while the ticket stays leased."""

    class Killed(BaseException):
        pass

    def killed(*_args: object, **_kwargs: object) -> str:
        raise Killed

    monkeypatch.setattr(dispatches, "_ensure_delivery", killed)
    with pytest.raises(Killed):
        one.tick()
    monkeypatch.undo()
    with one.workspace() as ws:
        (dispatch_id,) = ws.store.records("dispatch").ids()
        dispatch = ws.store.records("dispatch").read(dispatch_id)
        assert dispatch.state == "accepted"
        assert not ws.store.events.exists(str(dispatch.payload["delivery_event_id"]))
        assert ws.store.records("worker").read_if_exists(dispatch_id) is None
    workers = Path(one.state, "records", "worker")
    workers.mkdir(mode=0o700, exist_ok=True)
    (workers / dispatch_id).mkdir(
        mode=0o700
    )  # the worker's create cut short too, before its first version
    again = one.tick()
    assert f"{dispatch_id}: its acceptance finished (its delivery event was missing)" in _phase(
        again, "deliver"
    )
    assert f"{dispatch_id}: delivered (created)" in _phase(again, "deliver")
    one.until(lambda: all(state == "done" for state, _ in one.tickets().values()))
    with one.workspace() as ws:
        assert ws.store.records("dispatch").ids() == [dispatch_id]
        assert ws.store.records("dispatch").read(dispatch_id).state == "resolved"
