"""Kill anywhere (issue 11, "exactly once"): `oms worker deliver`, the real CLI in a subprocess, is
SIGKILLed at random points of its launch and run again until it answers; sometimes the pane or the whole
tmux server goes too. Whatever the kill point, each accepted dispatch's agent starts at most once, the
dispatch converges (a receipt: created, reused, or parked for `oms worker resume`), no dispatch ever has
two sandboxes or two live panes, and `oms worker stop` leaves nothing running."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.chain import Chain, accepted
from tests.security.kill_rig import Rig, Sampler, json_doc, poll


@pytest.fixture
def rig(deliverable: Chain, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    made = Rig(deliverable, tmp_path_factory.mktemp("bin"))
    yield made
    made.cleanup()


@pytest.fixture
def stubborn(deliverable: Chain, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    made = Rig(deliverable, tmp_path_factory.mktemp("bin"), stubborn=True)
    yield made
    made.cleanup()


def _shim_tmux(rig: Rig, bindir: Path, subcommand: str) -> Path:
    """A `tmux` first on the deliverer's PATH that, once armed, SIGKILLs its caller (the deliverer) just
    before `subcommand` would run, and fails; unarmed, or for any other subcommand, it is tmux."""
    real = shutil.which("tmux")
    assert real is not None
    armed = bindir / "armed"
    shim = bindir / "tmux"
    shim.write_text(
        "#!/bin/sh\n"
        f'for a in "$@"; do if [ "$a" = {subcommand} ] && [ -e {armed} ]; then\n'
        f"  rm -f {armed}; kill -9 $PPID; exit 1\n"
        "fi; done\n"
        f'exec {real} "$@"\n'
    )
    shim.chmod(0o755)
    rig.env["PATH"] = f"{bindir}{os.pathsep}{rig.env['PATH']}"
    return armed


def _killed_before_the_tag(rig: Rig, bindir: Path) -> tuple[str, str]:
    """A deliverer SIGKILLed after `tmux new-session` made the worker's pane and before `set-option`
    tagged it `@oms_dispatch` (the shim kills it there): (dispatch id, event id), once the agent that
    pane's supervisor started runs."""
    armed = _shim_tmux(rig, bindir, "set-option")
    dispatch_id, event_id = accepted(rig.chain)
    rig.started.add(dispatch_id)
    armed.write_text("")
    first = rig.spawn("worker", "deliver", "--event-id", event_id)
    first.communicate(timeout=60)
    assert first.returncode == -signal.SIGKILL
    poll(lambda: rig.starts(dispatch_id) == 1, 30, "the agent of the killed launch starts")
    return dispatch_id, event_id


def test_a_deliverer_killed_before_it_tagged_its_pane_is_redelivered_onto_that_pane(
    rig: Rig, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The pane exists and its agent runs, only its tag is missing. A re-delivery must see that pane: not
    park the worker claiming "no live pane" while its agent runs (nor start a second one), and `oms worker
    stop` must end that pane and leave no tmux server behind."""
    dispatch_id, event_id = _killed_before_the_tag(rig, tmp_path_factory.mktemp("shim"))
    outcome = rig.deliver_until_answered(event_id)
    assert outcome["status"] == "reused", outcome
    seen = rig.observe(dispatch_id)
    assert (seen["pane_live"], seen["worker_health"], seen["session_state"]) == (True, "healthy", "running"), seen
    assert rig.starts(dispatch_id) == 1
    code, out, err = rig.run("worker", "stop", dispatch_id)
    assert code == 0, (out, err)
    poll(lambda: not rig.procs(dispatch_id), 15, f"nothing of {dispatch_id} runs after `oms worker stop`")
    assert rig.panes() == []  # the pane went with its session, and the idle server with it
    assert rig.starts(dispatch_id) == 1


def test_a_resume_after_an_untagged_pane_ended_starts_the_agent_in_a_new_pane(
    rig: Rig, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The same, and then the agent ends (its pane stays, dead: remain-on-exit). A re-delivery parks: an
    earlier launch began. `oms worker resume` — a person's decision, with no pane live — must start the
    agent in a new pane; it must not take over the dead pane, answer "launched", and end the worker."""
    dispatch_id, event_id = _killed_before_the_tag(rig, tmp_path_factory.mktemp("shim"))
    for p in rig.procs(dispatch_id):
        if p.role == "agent":
            os.kill(p.pid, signal.SIGKILL)  # the agent of this test's own dispatch, by PID
    poll(lambda: not rig.procs(dispatch_id), 15, "the agent and its supervisor end")
    outcome = rig.deliver_until_answered(event_id)
    assert outcome["status"] == "parked", outcome
    assert "no live pane" in str(outcome["reason"])
    assert rig.starts(dispatch_id) == 1
    code, out, err = rig.run("worker", "resume", dispatch_id)
    assert code == 0, (out, err)
    assert out["resumed"] == "launched", out
    poll(lambda: rig.starts(dispatch_id) == 2, 30, "the resumed agent starts")
    seen = rig.observe(dispatch_id)
    assert (seen["pane_live"], seen["worker_health"], seen["end_reason"]) == (True, "healthy", None), seen


# ---------------------------------------------------------------------------------------------- random
SEED = "kill-anywhere-1"
ROUNDS = 30


@dataclass
class Round:
    """One dispatch: where its first deliverer was killed, what followed, and what came of it."""

    n: int
    dispatch_id: str
    event_id: str
    kill: str  # "clock": `delay_ms` after the deliverer started; "begun": `delay_ms` after begun.json appeared
    delay_ms: float
    after: str  # "-" | "kill-session" | "kill-server": done to tmux right after the kill
    follow: str  # "redeliver" | "resume-race" | "stop-race"
    killed: bool = False
    outcome: dict[str, object] = field(default_factory=dict)
    resumed: list[str] = field(default_factory=list)
    starts: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        status = self.outcome.get("status")
        reason = str(self.outcome.get("reason") or self.outcome.get("message") or "")[:70]
        return (
            f"#{self.n:02d} {self.kill:5} {self.delay_ms:6.1f}ms killed={int(self.killed)} {self.after:12} "
            f"{self.follow:11} -> {status} starts={self.starts} resumed={self.resumed} "
            f"{self.seconds:.2f}s {reason} {'; '.join(self.notes)}"
        )


def _kill_deliverer(rig: Rig, r: Round) -> None:
    begun = rig.chain.state / "panes" / f"{r.dispatch_id}.begun.json"
    child = rig.spawn("worker", "deliver", "--event-id", r.event_id)
    if r.kill == "begun":
        poll(lambda: begun.exists() or child.poll() is not None, 30, "the launch begins", interval=0.0005)
    try:
        child.wait(timeout=r.delay_ms / 1000)
    except subprocess.TimeoutExpired:
        os.kill(child.pid, signal.SIGKILL)  # ours, by PID
    child.communicate(timeout=60)
    r.killed = child.returncode == -signal.SIGKILL
    if r.after == "kill-session":
        rig.tmux("kill-session", "-t", f"={r.dispatch_id}")
    elif r.after == "kill-server":
        rig.tmux("kill-server")


def _follow(rig: Rig, r: Round) -> None:
    racer = None
    if r.follow == "resume-race":
        racer = rig.spawn("worker", "resume", r.dispatch_id)
    elif r.follow == "stop-race":
        racer = rig.spawn("worker", "stop", r.dispatch_id)
    r.outcome = rig.deliver_until_answered(r.event_id)
    if racer is not None:
        out, err = racer.communicate(timeout=60)
        doc = json_doc(out)
        if r.follow == "resume-race":
            r.resumed.append(str(doc.get("resumed") or doc.get("error") or err.decode()[-80:]))
        elif racer.returncode != 0:
            r.notes.append(f"the racing stop failed: {doc or err.decode()[-200:]}")


def _settled(rig: Rig, dispatch_id: str) -> bool:
    """Nothing of the dispatch is on its way: a live pane runs its agent, and a pane that is gone has no
    supervisor left (one whose terminal hung up ends its sandbox within 4 s)."""
    procs = rig.procs(dispatch_id)
    if rig.live_panes(dispatch_id):
        return any(p.role == "agent" for p in procs) and rig.starts(dispatch_id) >= 1
    return not procs


def _round(rig: Rig, sampler: Sampler, r: Round, violations: list[str]) -> None:
    sampler.watch(r.dispatch_id)
    rig.started.add(r.dispatch_id)
    _kill_deliverer(rig, r)
    _follow(rig, r)
    poll(lambda: _settled(rig, r.dispatch_id), 20, f"round {r.n} settles")
    r.starts = rig.starts(r.dispatch_id)
    launched = sum(1 for how in r.resumed if how in ("launched", "native"))
    bad = violations.append
    if r.starts > 1 + launched:
        bad(f"round {r.n}: the agent started {r.starts} times ({launched} by a resume)")
    seen = rig.observe(r.dispatch_id)
    running = any(p.role == "agent" for p in rig.procs(r.dispatch_id))
    receipt = rig.receipt(r.event_id)
    if receipt is None and seen["worker_health"] != "stopped":
        bad(f"round {r.n}: no receipt and the worker did not end: {r.outcome} {seen}")
    if r.outcome.get("status") == "parked" and running:
        r.notes.append("parked while its agent runs")
    if running and not seen["pane_live"]:
        bad(f"round {r.n}: its agent runs, but `oms worker observe` shows no live pane: {seen}")
    if len(rig.live_panes(r.dispatch_id)) > 1:
        bad(f"round {r.n}: two live panes {rig.live_panes(r.dispatch_id)}")
    before = r.starts
    code, out, err = rig.run("worker", "stop", r.dispatch_id)
    if code != 0:
        bad(f"round {r.n}: `oms worker stop` failed: {out} {err}")
    try:
        poll(lambda: not rig.procs(r.dispatch_id), 15, "nothing runs after stop")
    except AssertionError:
        bad(f"round {r.n}: after `oms worker stop` still running: {rig.procs(r.dispatch_id)}")
    again = rig.deliver_until_answered(r.event_id)
    if rig.live_panes(r.dispatch_id) or rig.starts(r.dispatch_id) != before:
        bad(f"round {r.n}: a delivery after stop ({again}) started something: {rig.live_panes(r.dispatch_id)}")
    left = [p for p in rig.panes() if r.dispatch_id in (p[0], p[3])]
    if left:
        bad(f"round {r.n}: panes left after `oms worker stop`: {left}")


@pytest.mark.slow
def test_sigkill_the_deliverer_anywhere(rig: Rig) -> None:
    rng = random.Random(SEED)
    sampler = Sampler()
    sampler.start()
    violations: list[str] = []
    rounds: list[Round] = []
    try:
        for n in range(ROUNDS):
            dispatch_id, event_id = accepted(rig.chain, f"Round {n}")
            kill = rng.choice(("clock", "begun"))
            delay = rng.uniform(0, 400) if kill == "clock" else rng.uniform(0, 40)
            after = rng.choice(("-", "-", "kill-session", "kill-server"))
            follow = rng.choice(("redeliver", "redeliver", "resume-race", "stop-race"))
            r = Round(n, dispatch_id, event_id, kill, delay, after, follow)
            started = time.monotonic()
            _round(rig, sampler, r, violations)
            r.seconds = time.monotonic() - started
            rounds.append(r)
            print(r.line(), flush=True)
    finally:
        sampler.stop()
    for dispatch_id, most in sampler.most.items():
        if most["sandboxes"] > 1 or most["agents"] > 1:
            violations.append(f"{dispatch_id} had at once: {most}")
    print(f"{sampler.samples} samples of /proc; most at once: {max(m['sandboxes'] for m in sampler.most.values())}")
    assert not violations, "\n".join(violations + [r.line() for r in rounds])
    assert any(r.killed for r in rounds)


# ------------------------------------------------------------------------------------------ targeted
def _launch_and_die(rig: Rig) -> tuple[str, str]:
    """A launch whose deliverer died right after `ensure` (before the session was registered), done in
    this process as test_no_second_start does: (dispatch id, event id), its agent running."""
    from oms.services import launcher
    from oms.services.authority import check_dispatch
    from oms.services.delivery import Delivery

    dispatch_id, event_id = accepted(rig.chain)
    rig.started.add(dispatch_id)
    with rig.chain.workspace() as ws:
        d = Delivery.open(ws, env=rig.env)
        dispatch = d.dispatch(dispatch_id)
        plan, spec = launcher.prepare(d, dispatch, check_dispatch(ws, dispatch))
        status, _pane = launcher.start_pane(d, dispatch, plan, spec)
    assert status == "created"
    poll(lambda: rig.starts(dispatch_id) == 1, 30, "the agent starts")
    return dispatch_id, event_id


def test_a_resume_right_after_the_tmux_server_died_runs_one_sandbox_at_a_time(stubborn: Rig) -> None:
    """The tmux server dies under a launch whose deliverer died too; the agent is slow to end (its
    supervisor needs SIGKILL, 4 s on). A person resumes at once: the new sandbox must not run beside the
    old one."""
    rig = stubborn
    sampler = Sampler()
    try:
        dispatch_id, event_id = _launch_and_die(rig)
        sampler.watch(dispatch_id)
        sampler.start()
        rig.tmux("kill-server")
        outcome = rig.deliver_until_answered(event_id)
        assert outcome["status"] == "parked"
        code, out, err = rig.run("worker", "resume", dispatch_id)
        assert (code, out.get("resumed")) == (0, "launched"), (out, err)
        poll(lambda: rig.starts(dispatch_id) == 2, 30, "the resumed agent starts")
        poll(lambda: sum(p.role == "agent" for p in rig.procs(dispatch_id)) == 1, 15, "the old agent ends")
        sampler.stop()
        assert sampler.most[dispatch_id]["sandboxes"] == 1, sampler.most
    finally:
        sampler.stop()
