"""Kill anywhere (issue 11, "exactly once"): `oms worker deliver`, the real CLI in a subprocess, is
SIGKILLed at random points of its launch and run again until it answers; sometimes the pane or the
whole tmux server goes too. Whatever the kill point, each accepted dispatch's agent starts at most
once, the dispatch converges (a receipt: created, reused, or parked for `oms worker resume`), no
dispatch ever has two sandboxes or two live panes, and `oms worker stop` leaves nothing running."""

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
from tests.security.kill_rig import Proc, Rig, Sampler, json_doc, poll


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
    """A `tmux` first on the deliverer's PATH that, once armed, SIGKILLs its caller (the deliverer)
    just before `subcommand` would run, and fails; unarmed, or for any other subcommand, it is
    tmux."""
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


def _waiting_for_its_session(rig: Rig, dispatch_id: str) -> None:
    """The pane's supervisor took its spec and waits for the session the dead deliverer never
    registered: no agent starts before it exists (`launch_guards.await_registration`)."""
    spec = rig.chain.state / "panes" / f"{dispatch_id}.launch.json"

    def waiting() -> bool:
        return not spec.exists() and any(p.role == "supervisor" for p in rig.procs(dispatch_id))

    poll(waiting, 30, "the pane's supervisor takes its spec")
    assert rig.starts(dispatch_id) == 0


def _killed_before_the_tag(rig: Rig, bindir: Path) -> tuple[str, str]:
    """A deliverer SIGKILLed after `tmux new-session` made the worker's pane and before `set-option`
    tagged it `@oms_dispatch` (the shim kills it there): (dispatch id, event id), once that pane's
    supervisor waits for the session."""
    armed = _shim_tmux(rig, bindir, "set-option")
    dispatch_id, event_id = accepted(rig.chain)
    rig.started.add(dispatch_id)
    armed.write_text("")
    first = rig.spawn("worker", "deliver", "--event-id", event_id)
    first.communicate(timeout=60)
    assert first.returncode == -signal.SIGKILL
    _waiting_for_its_session(rig, dispatch_id)
    return dispatch_id, event_id


def test_a_deliverer_killed_before_it_tagged_its_pane_is_redelivered_onto_that_pane(
    rig: Rig, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The pane exists and its supervisor waits for the session, only its tag is missing. A
    re-delivery must see that pane: not park the worker claiming "no live pane" while it lives (nor
    start a second one); it registers the session and the agent starts, once; and `oms worker stop`
    must end that pane and leave no tmux server behind."""
    dispatch_id, event_id = _killed_before_the_tag(rig, tmp_path_factory.mktemp("shim"))
    outcome = rig.deliver_until_answered(event_id)
    assert outcome["status"] == "reused", outcome
    poll(lambda: rig.starts(dispatch_id) == 1, 30, "the agent starts once its session exists")
    seen = rig.observe(dispatch_id)
    assert (seen["pane_live"], seen["worker_health"], seen["session_state"]) == (
        True,
        "healthy",
        "running",
    ), seen
    assert rig.starts(dispatch_id) == 1
    code, out, err = rig.run("worker", "stop", dispatch_id)
    assert code == 0, (out, err)
    poll(
        lambda: not rig.procs(dispatch_id),
        15,
        f"nothing of {dispatch_id} runs after stop",
        stable=0.2,
    )
    assert rig.panes() == []  # the pane went with its session, and the idle server with it
    assert rig.starts(dispatch_id) == 1


def test_a_resume_after_an_untagged_pane_ended_starts_the_agent_in_a_new_pane(
    rig: Rig, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The same, and then the pane ends before its agent started (its supervisor killed while it
    waits for the session; the pane stays, dead: remain-on-exit). A re-delivery parks: an earlier
    launch began. `oms worker resume` — a person's decision, with no pane live — must start the
    agent in a new pane; it must not take over the dead pane, answer "launched", and end the
    worker."""
    dispatch_id, event_id = _killed_before_the_tag(rig, tmp_path_factory.mktemp("shim"))
    for p in rig.procs(dispatch_id):
        if p.role == "supervisor":
            os.kill(p.pid, signal.SIGKILL)  # the supervisor of this test's own dispatch, by PID
    poll(lambda: not rig.procs(dispatch_id), 15, "its supervisor ends")
    outcome = rig.deliver_until_answered(event_id)
    assert outcome["status"] == "parked", outcome
    assert "no live pane" in str(outcome["reason"])
    assert f"`oms worker resume {dispatch_id}`" in str(
        outcome["reason"]
    )  # what a person reads says what to do
    with (
        rig.chain.workspace() as ws
    ):  # read, not observed: `observe` would record the dead pane's end
        assert (
            ws.store.records("worker").read(dispatch_id).payload["health_reason"]
            == outcome["reason"]
        )
    assert rig.starts(dispatch_id) == 0
    code, out, err = rig.run("worker", "resume", dispatch_id)
    assert code == 0, (out, err)
    assert out["resumed"] == "launched", out
    poll(lambda: rig.starts(dispatch_id) == 1, 30, "the resumed agent starts")
    seen = rig.observe(dispatch_id)
    assert (seen["pane_live"], seen["worker_health"], seen["end_reason"]) == (
        True,
        "healthy",
        None,
    ), seen


# ------------------------------------------------------------------------------------------- random
SEED = os.environ.get("OMS_KILL_SEED", "kill-anywhere-2")
ROUNDS = 30
ONLY = {
    int(n) for n in os.environ.get("OMS_KILL_ROUNDS", "").split(",") if n.strip()
}  # to replay rounds


@dataclass(frozen=True)
class Kill:
    """One deliverer SIGKILLed: `delay_ms` after it started ("clock") or after begun.json appeared
    ("begun"); then `tmux` is done to tmux ("-", "kill-session" of the dispatch, "kill-server")."""

    anchor: str
    delay_ms: float
    tmux: str

    def __str__(self) -> str:
        return f"{self.anchor}+{self.delay_ms:.1f}ms{'' if self.tmux == '-' else '/' + self.tmux}"


@dataclass
class Round:
    """One dispatch: how its deliverers were killed, what followed, and what came of it."""

    n: int
    kills: tuple[Kill, ...]
    follow: str  # redeliver | resume-race | stop-race | stop-during | kill-supervisor
    stop_ms: float  # stop-during: when `oms worker stop` starts, after the deliverer did
    dispatch_id: str = ""
    event_id: str = ""
    killed: int = 0
    outcome: dict[str, object] = field(default_factory=dict)
    resumed: list[str] = field(default_factory=list)
    starts: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        status = self.outcome.get("status")
        reason = str(self.outcome.get("reason") or self.outcome.get("message") or "")[:60]
        kills = ",".join(str(k) for k in self.kills)
        follow = self.follow + (f"+{self.stop_ms:.0f}ms" if self.follow == "stop-during" else "")
        return (
            f"#{self.n:02d} kills={kills} ({self.killed} died) then {follow} -> {status} "
            f"starts={self.starts} resumed={self.resumed} {self.seconds:.2f}s {reason} "
            f"{'; '.join(self.notes)}"
        )


def _plan(rng: random.Random, n: int) -> Round:
    kills = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        anchor = rng.choice(("clock", "begun"))
        delay = rng.uniform(0, 400) if anchor == "clock" else rng.uniform(0, 40)
        kills.append(
            Kill(anchor, delay, rng.choice(("-", "-", "-", "kill-session", "kill-server")))
        )
    follow = rng.choice(
        ("redeliver", "redeliver", "resume-race", "stop-race", "stop-during", "kill-supervisor")
    )
    return Round(n, tuple(kills), follow, rng.uniform(0, 400))


def _kill_deliverer(rig: Rig, r: Round, kill: Kill) -> None:
    begun = rig.chain.state / "panes" / f"{r.dispatch_id}.begun.json"
    child = rig.spawn("worker", "deliver", "--event-id", r.event_id)
    if kill.anchor == "begun":
        poll(
            lambda: begun.exists() or child.poll() is not None,
            30,
            "the launch begins",
            interval=0.0005,
        )
    try:
        child.wait(timeout=kill.delay_ms / 1000)
    except subprocess.TimeoutExpired:
        os.kill(child.pid, signal.SIGKILL)  # ours, by PID
    child.communicate(timeout=60)
    r.killed += child.returncode == -signal.SIGKILL
    if kill.tmux == "kill-session":
        rig.tmux("kill-session", "-t", f"={r.dispatch_id}")
    elif kill.tmux == "kill-server":
        rig.tmux("kill-server")


def _follow(rig: Rig, r: Round, violations: list[str]) -> None:
    racer = None
    if r.follow == "resume-race":
        racer = rig.spawn("worker", "resume", r.dispatch_id)
    elif r.follow == "stop-race":
        racer = rig.spawn("worker", "stop", r.dispatch_id)
    elif r.follow == "stop-during":  # a deliverer that lives, and a stop while it launches
        deliverer = rig.spawn("worker", "deliver", "--event-id", r.event_id)
        try:
            deliverer.wait(timeout=r.stop_ms / 1000)
        except subprocess.TimeoutExpired:
            pass
        racer = rig.spawn("worker", "stop", r.dispatch_id)
        deliverer.communicate(timeout=60)
    r.outcome = rig.deliver_until_answered(r.event_id)
    if racer is not None:
        out, err = racer.communicate(timeout=60)
        doc = json_doc(out)
        if r.follow == "resume-race":
            r.resumed.append(str(doc.get("resumed") or doc.get("error") or err.decode()[-80:]))
        elif racer.returncode != 0:
            r.notes.append(f"the racing stop failed: {doc or err.decode()[-200:]}")
    if r.follow == "kill-supervisor":
        poll(lambda: _settled(rig, r.dispatch_id), 20, f"round {r.n} settles")
        supervisors = [p for p in rig.procs(r.dispatch_id) if p.role == "supervisor"]
        for p in supervisors:
            os.kill(p.pid, signal.SIGKILL)  # the supervisor of this round's own pane, by PID
        r.notes.append(f"killed {len(supervisors)} supervisor(s)")
        # bubblewrap runs --die-with-parent: the agent goes with its supervisor (a stray bubblewrap
        # may
        try:
            # stay, blocked, when the kill came in its first milliseconds: `stop` ends it, checked
            # below)
            poll(
                lambda: not _agents(rig, r.dispatch_id),
                10,
                "the agent ends with its supervisor",
                stable=0.2,
            )
        except AssertionError:
            violations.append(
                f"round {r.n}: its supervisor was killed, still running: {rig.procs(r.dispatch_id)}"
            )
        again = rig.deliver_until_answered(r.event_id)
        if rig.live_panes(r.dispatch_id) or _agents(rig, r.dispatch_id):
            violations.append(
                f"round {r.n}: a delivery after the supervisor died ({again}) started a pane"
            )


def _agents(rig: Rig, dispatch_id: str) -> list[Proc]:
    return [p for p in rig.procs(dispatch_id) if p.role in ("agent", "supervisor")]


def _settled(rig: Rig, dispatch_id: str) -> bool:
    """Nothing of the dispatch is on its way: a live pane runs its agent, and a pane that is gone
    has no supervisor left (one whose terminal hung up ends its sandbox within 4 s)."""
    procs = rig.procs(dispatch_id)
    if rig.live_panes(dispatch_id):
        return any(p.role == "agent" for p in procs) and rig.starts(dispatch_id) >= 1
    return not [
        p for p in procs if p.role != "bwrap" or p.ppid != 1
    ]  # a stray bubblewrap waits for `stop`


def _round(rig: Rig, sampler: Sampler, r: Round, violations: list[str]) -> None:
    r.dispatch_id, r.event_id = accepted(rig.chain, f"Round {r.n}")
    sampler.watch(r.dispatch_id)
    rig.started.add(r.dispatch_id)
    for kill in r.kills:
        _kill_deliverer(rig, r, kill)
    _follow(rig, r, violations)
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
    if r.outcome.get("status") == "parked":
        r.notes.append("its agent runs" if running else "no agent")
        if "oms worker resume" not in str(r.outcome.get("reason")):
            bad(
                f"round {r.n}: parked, and its reason does not "
                f"name `oms worker resume`: {r.outcome}"
            )
    if running and not seen["pane_live"]:
        bad(f"round {r.n}: its agent runs, but `oms worker observe` shows no live pane: {seen}")
    if len(rig.live_panes(r.dispatch_id)) > 1:
        bad(f"round {r.n}: two live panes {rig.live_panes(r.dispatch_id)}")
    before = r.starts
    code, out, err = rig.run("worker", "stop", r.dispatch_id)
    if code != 0:
        bad(f"round {r.n}: `oms worker stop` failed: {out} {err}")
    try:
        poll(lambda: not rig.procs(r.dispatch_id), 15, "nothing runs after stop", stable=0.2)
    except AssertionError:
        bad(f"round {r.n}: after `oms worker stop` still running: {rig.procs(r.dispatch_id)}")
    again = rig.deliver_until_answered(r.event_id)
    if rig.live_panes(r.dispatch_id) or rig.starts(r.dispatch_id) != before:
        bad(
            f"round {r.n}: a delivery after stop ({again}) started something: "
            f"{rig.live_panes(r.dispatch_id)}"
        )
    left = [p for p in rig.panes() if r.dispatch_id in (p[0], p[3])]
    if left:
        bad(f"round {r.n}: panes left after `oms worker stop`: {left}")


@pytest.mark.slow
def test_sigkill_the_deliverer_anywhere(rig: Rig) -> None:
    """30 dispatches; each has 1-3 deliverers SIGKILLed (uniformly 0-400 ms after start, or 0-40 ms
    after the launch recorded that it began: the window of the pane), the pane or the server
    sometimes killed after, then a re-delivery alone, or racing `oms worker resume` or `oms worker
    stop`, or a stop while a deliverer launches, or the pane's supervisor SIGKILLed. Every round
    ends with `oms worker stop`."""
    rng = random.Random(SEED)
    plans = [_plan(rng, n) for n in range(ROUNDS)]
    sampler = Sampler()
    sampler.start()
    violations: list[str] = []
    rounds: list[Round] = []
    try:
        for r in plans:
            if ONLY and r.n not in ONLY:
                continue
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
    peak = max(m["sandboxes"] for m in sampler.most.values())
    print(
        f"seed {SEED}: {sampler.samples} samples of /proc; the most "
        f"sandboxes of one dispatch at once: {peak}"
    )
    assert not violations, "\n".join(violations + [r.line() for r in rounds])
    assert sum(r.killed for r in rounds) >= len(
        rounds
    )  # the kills happened: the rounds prove something


# ----------------------------------------------------------------------------------------- targeted
def _launch_and_die(rig: Rig) -> tuple[str, str]:
    """A launch whose deliverer died right after `ensure` (before the session was registered), done
    in this process as test_no_second_start does: (dispatch id, event id), its supervisor waiting
    for the session (its agent does not start before it)."""
    from oms.services.chain.authority import check_dispatch
    from oms.services.delivery import launch as launcher
    from oms.services.delivery.service import Delivery

    dispatch_id, event_id = accepted(rig.chain)
    rig.started.add(dispatch_id)
    with rig.chain.workspace() as ws:
        d = Delivery.open(ws, env=rig.env)
        dispatch = d.dispatch(dispatch_id)
        plan, spec = launcher.prepare(d, dispatch, check_dispatch(ws, dispatch))
        status, _pane = launcher.start_pane(d, dispatch, plan, spec)
    assert status == "created"
    _waiting_for_its_session(rig, dispatch_id)
    return dispatch_id, event_id


def test_a_resume_right_after_the_tmux_server_died_runs_one_sandbox_at_a_time(
    stubborn: Rig,
) -> None:
    """The tmux server dies under a launch whose deliverer died too (its supervisor, hung up while
    it waited for the session, starts nothing; a stubborn agent would need SIGKILL, 4 s on). A
    person resumes at once: the new sandbox must not run beside another."""
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
        poll(lambda: rig.starts(dispatch_id) == 1, 30, "the resumed agent starts (the first start)")
        poll(
            lambda: sum(p.role == "agent" for p in rig.procs(dispatch_id)) == 1,
            15,
            "the old agent ends",
        )
        sampler.stop()
        assert sampler.most[dispatch_id]["sandboxes"] == 1, sampler.most
    finally:
        sampler.stop()


def test_a_supervisor_killed_outright_anywhere_takes_its_sandbox_and_nothing_starts_again(
    rig: Rig,
) -> None:
    """The pane's supervisor is SIGKILLed at a random point of its life (0-400 ms after it appears:
    before it took its spec, before its sandbox, while its agent runs), its deliverer left alone.
    Its sandbox goes with it (bubblewrap's --die-with-parent), nothing starts the agent again —
    neither that deliverer nor a re-delivery — and the worker's end is recorded."""
    rng = random.Random(f"{SEED}-supervisor")
    lines = []
    for n in range(6):
        dispatch_id, event_id = accepted(rig.chain, f"Supervised {n}")
        rig.started.add(dispatch_id)
        delay = rng.uniform(0, 0.4)
        deliverer = rig.spawn("worker", "deliver", "--event-id", event_id)

        def supervisor() -> list[int]:
            return [p.pid for p in rig.procs(dispatch_id) if p.role == "supervisor"]  # noqa: B023

        poll(lambda: bool(supervisor()), 30, "the supervisor appears", interval=0.001)
        time.sleep(
            delay
        )  # the kill point (not a synchronisation): the supervisor runs on meanwhile
        for pid in supervisor():
            os.kill(pid, signal.SIGKILL)  # this dispatch's own supervisor, by PID
        out, _err = deliverer.communicate(timeout=60)
        first = json_doc(out).get("outcome") or {}
        assert isinstance(first, dict)
        try:  # a stray bubblewrap may stay, blocked (bubblewrap#633): `stop` ends it, checked below
            poll(
                lambda: not _agents(rig, dispatch_id),  # noqa: B023
                10,
                "the agent ends with its supervisor",
                stable=0.2,
            )
        except AssertionError:
            raise AssertionError(
                f"{n}: +{delay * 1000:.0f}ms {first} {rig.procs(dispatch_id)} {rig.panes()}"
            ) from None
        seen = rig.observe(dispatch_id)
        again = rig.deliver_until_answered(event_id)
        assert rig.live_panes(dispatch_id) == [], again
        assert not _agents(rig, dispatch_id), again
        starts = rig.starts(dispatch_id)
        assert starts <= 1
        lines.append(
            f"{n}: +{delay * 1000:.0f}ms first={first.get('status')} "
            f"starts={starts} end={seen['end_detail']}"
        )
        assert seen["worker_health"] in ("stopped", "parked"), seen
        code, out_stop, err = rig.run("worker", "stop", dispatch_id)
        assert code == 0, (out_stop, err)
        poll(lambda: not rig.procs(dispatch_id), 10, "nothing runs after stop", stable=0.2)  # noqa: B023
        assert [p for p in rig.panes() if dispatch_id in (p[0], p[3])] == []
    print("\n".join(lines))


def _children(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return f.read().split()
    except OSError:
        return ["gone"]


def test_a_supervisor_killed_as_it_starts_bubblewrap_leaves_nothing_after_stop(rig: Rig) -> None:
    """bubblewrap's --die-with-parent races its own start (containers/bubblewrap#633): a supervisor
    killed within ~2 ms of starting bubblewrap leaves the sandbox's would-be init behind — its
    parent, the outer bubblewrap, died of the parent-death signal before the child asked for its own
    — reparented to init, blocked for ever, holding the agent's environment, and named by no init
    record (the supervisor died before bubblewrap reported it). No agent runs in it, but `oms worker
    stop` must end it too. Up to 15 launches are tried until one leaves that orphan (on this kind of
    machine most do)."""
    rng = random.Random(f"{SEED}-bwrap-race")
    for n in range(15):
        dispatch_id, _event_id = accepted(rig.chain, f"Raced {n}")
        rig.started.add(dispatch_id)
        deliverer = rig.spawn("worker", "deliver", "--event-id", _event_id)

        def supervisors() -> list[int]:
            return [p.pid for p in rig.procs(dispatch_id) if p.role == "supervisor"]  # noqa: B023

        poll(lambda: bool(supervisors()), 30, "the supervisor appears", interval=0.001)
        (pid,) = supervisors()
        while not _children(pid):  # spin: the window is the first milliseconds of bubblewrap
            pass
        until = time.monotonic() + rng.uniform(0, 0.002)
        while time.monotonic() < until:
            pass
        os.kill(pid, signal.SIGKILL)  # this dispatch's own supervisor, by PID
        deliverer.communicate(timeout=60)
        orphaned = False
        try:
            poll(lambda: not rig.procs(dispatch_id), 3, "the sandbox goes with its supervisor")  # noqa: B023
        except AssertionError:
            orphaned = True
        assert rig.starts(dispatch_id) == 0 or not orphaned  # the orphan never runs the agent
        code, out, err = rig.run("worker", "stop", dispatch_id)
        assert code == 0, (out, err)
        poll(
            lambda: not rig.procs(dispatch_id),  # noqa: B023
            10,
            f"launch {n}: nothing runs after stop",
            stable=0.2,
        )
        if orphaned:
            return
    pytest.skip("no launch hit the window of bubblewrap's parent-death race on this machine")


def test_a_stop_that_lands_before_a_redelivery_parks_is_reported_as_the_end(rig: Rig) -> None:
    """A re-delivery decided to park the worker (an earlier launch began) and `oms worker stop`
    ended it first (seed kill-anywhere-2, round 11: two deliverers killed, then a stop racing the
    re-delivery). The park must say the worker ended while it launched, not fail on an illegal
    health transition."""
    from oms.errors import AuthorityChangedError
    from oms.services.delivery import launch as launcher
    from oms.services.delivery.service import Delivery

    dispatch_id, event_id = accepted(rig.chain)
    with rig.chain.workspace() as ws:
        d = Delivery.open(ws, env=rig.env)
        dispatch = d.dispatch(dispatch_id)  # what the re-delivery read before it decided to park
        d.stop(dispatch_id, "stopped meanwhile")
        with pytest.raises(AuthorityChangedError, match="the worker ended while it launched"):
            launcher.park(
                d,
                dispatch,
                event_id,
                "wkr-pre-park",
                AuthorityChangedError("an earlier launch began"),
            )
        assert d.worker(dispatch_id).payload["health"] == "stopped"
