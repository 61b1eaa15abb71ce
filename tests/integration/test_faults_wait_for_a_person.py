"""Check before spending; a configuration fault waits for a person (issue 26 item 2, ADR 0031).

Real conductor ticks over a real fleet (`tests/fleet.py`: git, tmux, panes, bubblewrap). Each
fault is a real one the real checks find: an advisor CLI with no login (a fresh HOME), an oms
installed under a path a command line cannot hold, a PATH with no `bwrap`, a host where no cgroup
can be made, a model proxy record that cannot be read. Before, each was paid for (the advisor ran),
refused at launch, retried at 10/20/40/80 s and quarantined. The frozen suite runs this file too
(`.ci/test`)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.adapters import git
from oms.domain.conductor import NEEDS_PERSON
from oms.services.chain import dispatches, tickets
from tests.chain import Chain
from tests.fleet import Fleet, make_fleet
from tests.helpers import OmsCommand


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    yield from make_fleet(tmp_path / "fleet", max_workers=1)


def _lines(report: object, phase: str) -> list[str]:
    return [
        line
        for p in report.phases  # type: ignore[attr-defined]
        if p.name == phase
        for line in (*p.done, *p.skipped)
    ]


def _versions(fleet: Fleet, ticket: str) -> int:
    with fleet.workspace() as ws:
        return ws.store.records("ticket").read(ticket).version


def _dispatches(fleet: Fleet) -> list[str]:
    with fleet.workspace() as ws:
        return list(ws.store.records("dispatch").ids())


@pytest.fixture
def unprintable_oms(fleet: Fleet, tmp_path: Path) -> str:
    """OMS_EXECUTABLE: a copy of this oms in a folder whose name is not ASCII."""
    folder = tmp_path / "bin-\u00e9"
    folder.mkdir()
    installed = Path(os.environ["OMS_EXECUTABLE"])  # the fleet's oms
    if os.environ.get("OMS_TEST_BINARY"):  # the frozen onedir: its loader runs beside _internal/
        shutil.copytree(installed.parent, folder / "oms", symlinks=True)
        return str(folder / "oms" / installed.name)
    copy = folder / "oms"
    shutil.copy2(installed, copy)
    return str(copy)


def test_a_path_a_launch_cannot_write_waits_and_moves_on_by_itself(
    fleet: Fleet, unprintable_oms: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ticket = fleet.add("Add a line")
    installed = os.environ["OMS_EXECUTABLE"]
    monkeypatch.setenv("OMS_EXECUTABLE", unprintable_oms)
    first = fleet.tick()
    state, payload = fleet.tickets()[ticket]
    assert state == "open"
    assert payload["attempt"] == 1  # not an attempt
    assert "failures" not in payload or payload["failures"] == []
    assert payload.get("retry_after") is None  # no backoff
    reason = str(payload["reason"])
    assert reason.startswith(NEEDS_PERSON + "paths: the oms executable ")
    assert "(fix: install oms where its path is printable ASCII" in reason
    assert any(
        line.startswith("the queue waits: needs a person: paths") for line in _lines(first, "fill")
    )
    assert _dispatches(fleet) == []  # nothing proposed, reviewed or launched
    version = _versions(fleet, ticket)
    fleet.tick()
    assert _versions(fleet, ticket) == version  # waiting again writes nothing
    monkeypatch.setenv("OMS_EXECUTABLE", installed)  # the person's fix
    fleet.until(lambda: fleet.tickets()[ticket][0] == "done")
    state, payload = fleet.tickets()[ticket]
    assert payload["attempt"] == 1


def test_a_held_ticket_gives_its_lease_back_before_any_model_call(
    fleet: Fleet, unprintable_oms: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault that appears once the pool holds a ticket: its attempt has not launched, so it is
    not counted; the lease goes back and the ticket waits."""
    ticket = fleet.add("Add a line")
    with fleet.workspace() as ws:
        tickets.lease(ws, ticket, "worker-1")  # as a tick's fill leaves it before its chain
    monkeypatch.setenv("OMS_EXECUTABLE", unprintable_oms)
    report = fleet.tick()
    state, payload = fleet.tickets()[ticket]
    assert (state, payload["attempt"], payload["worker_id"]) == ("open", 1, None)
    assert str(payload["reason"]).startswith(NEEDS_PERSON + "paths: ")
    assert any(f"{ticket}: ticket {ticket} waits, open" in line for line in _lines(report, "fill"))
    assert _dispatches(fleet) == []


def test_an_advisor_not_logged_in_is_never_run(fleet: Fleet) -> None:
    """`codex login status` in this fresh HOME says Not logged in: the advisor was run (paid),
    refused, and the ticket retried and quarantined."""
    if shutil.which("codex") is None:
        pytest.skip("needs the Codex CLI")
    config = Path(fleet.repo, ".oms/config.toml")
    text = config.read_text()
    section = text.index('[roles."oms.exec-advisor"]')
    config.write_text(
        text[:section]
        + '[roles."oms.exec-advisor"]\nmodel = "gpt-5"\ntransport = "codex_exec"\n'
        + 'sandbox = "read-only"\n'
    )
    git.commit_all(fleet.repo, "a Codex advisor")
    ticket = fleet.add("Add a line")
    for _ in range(3):
        fleet.tick()
    state, payload = fleet.tickets()[ticket]
    assert (state, payload["attempt"]) == ("open", 1)
    reason = str(payload["reason"])
    assert reason.startswith(NEEDS_PERSON + "login oms.exec-advisor: not logged in: the Codex CLI")
    assert "(fix: run `codex login`" in reason
    assert _dispatches(fleet) == []
    config.write_text(text)  # a person gives the role what it needs (here: the demo's advisor)
    git.commit_all(fleet.repo, "the demo's advisor again")
    fleet.until(lambda: fleet.tickets()[ticket][0] == "done")
    assert fleet.tickets()[ticket][1]["attempt"] == 1


def test_a_claude_worker_not_logged_in_is_said_before_it_starts(
    chain: Chain, oms: OmsCommand, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Contained, a Claude Code worker reaches its model through the proxy, which holds
    ANTHROPIC_API_KEY (a Claude Code login is never handed to it). With none, the agent started,
    met only refusals and rested at its prompt, idle and healthy, until parked bridge_silent."""
    if shutil.which("claude") is None:
        pytest.skip("needs Claude Code")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    chain.edit_config(
        lambda s: s.replace('role = "oms.command-executor"', 'role = "oms.ticket-executor"'), True
    )
    ticket, _, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        dispatches.review(ws, dispatch_id)
        _, event_id = dispatches.accept(ws, dispatch_id)
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    try:
        done = oms.run("worker", "deliver", "--event-id", event_id, *roots)
    finally:  # nothing should have started; if it did (as before), it ends with the test
        tmux = ["tmux", "-S", str(chain.state / "tmux.sock"), "kill-server"]
        subprocess.run(tmux, capture_output=True, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    said = "not logged in: the model proxy would hold no credential for oms-anthropic: the proxy's "
    assert said + "environment has no usable ANTHROPIC_API_KEY" in done.stdout
    with chain.workspace() as ws:
        worker = ws.store.records("worker").read(dispatch_id)
        assert worker.payload["health"] == "parked"
        assert str(worker.payload["health_reason"]).startswith("not logged in: ")
        assert ws.store.records("session").ids() == []  # no agent ever started
    doctor = oms.run("doctor", *roots)
    line = next(
        x for x in doctor.stdout.splitlines() if x.startswith("FAIL  login oms.ticket-executor")
    )
    assert "not logged in" in line
    assert "export ANTHROPIC_API_KEY" in line
    assert ticket


def test_a_proposal_no_provider_can_serve_waits_uncounted_then_goes_on(
    fleet: Fleet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every provider came to rest (a 429 storm) between the queue's question and the proposal:
    no attempt ran, so none is counted — before, each such tick was a failure and a storm
    quarantined most of the soak's queue. The ticket is open again, says why, and is done once a
    provider is free."""
    from oms.errors import NoProviderError

    ticket = fleet.add("Add a line")
    real = dispatches.propose  # (the conductor calls it through the module: patched there)

    def rests(*_: object, **__: object) -> object:
        raise NoProviderError("no provider can serve role oms.ticket-executor: up: rests")

    monkeypatch.setattr(dispatches, "propose", rests)
    for _ in range(6):  # more than a quarantine's five
        fleet.tick()
        state, payload = fleet.tickets()[ticket]
        assert (state, payload["attempt"]) == ("open", 1)
        assert payload.get("failures", []) == []
        assert str(payload["reason"]).startswith("no provider can serve role")
    monkeypatch.setattr(dispatches, "propose", real)
    fleet.until(lambda: fleet.tickets()[ticket][0] == "done")
    assert fleet.tickets()[ticket][1]["attempt"] == 1


# --- Three more faults, end to end (issue 26 item 2a): bubblewrap missing, no cgroup, a proxy
# record that cannot be read. Each: the advisor (the demo's script, counting its calls) is never
# run, the ticket waits open with one line naming the fault and its fix, and the tick after the
# person's fix takes it on by itself.

MOUNTINFO_V1 = "35 31 0:32 / {root}/memory rw - cgroup cgroup rw,memory\n"
MOUNTINFO_V1 += "39 31 0:36 / {root}/pids rw - cgroup cgroup rw,pids\n"


def _counted_advisor(fleet: Fleet) -> Path:
    """The file the fleet's advisor appends a line to each time it is run (it runs outside every
    sandbox: ADR 0024's cwd `/`, an absolute path)."""
    calls = fleet.base / "advisor-calls"
    script = fleet.base / "advisor.sh"
    text = script.read_text()
    script.write_text(text.replace("set -eu\n", f"set -eu\necho run >> '{calls}'\n", 1))
    return calls


def _runs(calls: Path) -> int:
    return len(calls.read_text().splitlines()) if calls.exists() else 0


def _waits_for_a_person(fleet: Fleet, ticket: str, report: object, said: str, fix: str) -> None:
    """The ticket waits, uncounted, for a person: one line with the fault and its fix."""
    state, payload = fleet.tickets()[ticket]
    assert (state, payload["attempt"], payload["worker_id"]) == ("open", 1, None)
    assert payload.get("failures", []) == []
    assert payload.get("retry_after") is None  # no backoff
    reason = str(payload["reason"])
    assert "\n" not in reason
    assert reason.startswith(NEEDS_PERSON + said), reason
    assert f"(fix: {fix}" in reason, reason
    waits = f"the queue waits: {NEEDS_PERSON}{said}"
    assert any(line.startswith(waits) for line in _lines(report, "fill")), report
    assert _dispatches(fleet) == []  # nothing proposed, reviewed or launched


@pytest.fixture
def path_without_bwrap(tmp_path: Path) -> str:
    """A PATH holding every program of this one but `bwrap` (links in one folder)."""
    folder = tmp_path / "bin-without-bwrap"
    folder.mkdir()
    for where in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(where):
            continue
        for name in os.listdir(where):
            found, link = os.path.join(where, name), folder / name
            if name == "bwrap" or os.path.lexists(link) or not os.access(found, os.X_OK):
                continue
            if os.path.isfile(found):
                link.symlink_to(found)
    return str(folder)


def test_bubblewrap_missing_waits_before_the_advisor_and_moves_on_by_itself(
    fleet: Fleet, path_without_bwrap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _counted_advisor(fleet)
    ticket = fleet.add("Add a line")
    installed = os.environ["PATH"]
    monkeypatch.setenv("PATH", path_without_bwrap)
    first = fleet.tick()
    fix = "apt-get install bubblewrap"
    _waits_for_a_person(
        fleet, ticket, first, "bubblewrap: bubblewrap (bwrap) is not installed", fix
    )
    version = _versions(fleet, ticket)
    fleet.tick()
    assert _versions(fleet, ticket) == version  # waiting again writes nothing
    assert _runs(calls) == 0  # no model call was paid for
    monkeypatch.setenv("PATH", installed)  # the person's fix: bubblewrap installed
    fleet.until(lambda: fleet.tickets()[ticket][0] == "done")
    assert fleet.tickets()[ticket][1]["attempt"] == 1
    assert _runs(calls) == 1


def test_no_cgroup_waits_before_the_advisor_and_moves_on_by_itself(
    fleet: Fleet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `/proc/self/mountinfo` and `/proc/self/cgroup` say, as a test writes them: a cgroup v1
    host whose hierarchies oms cannot write beneath (an ordinary user's, undelegated)."""
    from oms.adapters import cgroups

    calls = _counted_advisor(fleet)
    ticket = fleet.add("Add a line")
    root = tmp_path / "cgroupfs"
    root.mkdir()
    (root / "memory").write_text("")  # where oms's cgroup should be is no directory
    (root / "pids").write_text("")
    (tmp_path / "mountinfo").write_text(MOUNTINFO_V1.format(root=root))
    (tmp_path / "cgroup").write_text("8:pids:/\n4:memory:/\n")
    real = (cgroups.MOUNTINFO, cgroups.SELF_CGROUP)
    monkeypatch.setattr(cgroups, "MOUNTINFO", str(tmp_path / "mountinfo"))
    monkeypatch.setattr(cgroups, "SELF_CGROUP", str(tmp_path / "cgroup"))
    first = fleet.tick()
    fix = (
        "run oms in a cgroup v2 subtree delegated to you: `systemd-run --user --scope -p Delegate="
    )
    _waits_for_a_person(fleet, ticket, first, "cgroups: no cgroup for a sandbox: cannot make", fix)
    assert '[limits] cgroup = "unsafe-none")' in str(fleet.tickets()[ticket][1]["reason"])
    fleet.tick()
    assert _runs(calls) == 0
    monkeypatch.setattr(cgroups, "MOUNTINFO", real[0])  # the person's fix: a cgroup oms can make
    monkeypatch.setattr(cgroups, "SELF_CGROUP", real[1])
    fleet.until(lambda: fleet.tickets()[ticket][0] == "done")
    assert fleet.tickets()[ticket][1]["attempt"] == 1
    assert _runs(calls) == 1


def test_a_proxy_record_that_cannot_be_read_waits_before_the_advisor(
    fleet: Fleet, oms: OmsCommand, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Codex worker reaches its model through the proxy (ADR 0026); a proxy record that cannot be
    read may name a proxy still running, so no launch starts one beside it. Before the check, the
    advisor was paid and the launch refused; `oms proxy stop`, the fix the reason names, clears it
    and the next tick takes the ticket on."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")  # what the proxy would hold
    config = Path(fleet.repo, ".oms/config.toml")
    text = config.read_text()
    head, _, tail = text.partition('[roles."oms.command-executor"]\n')
    role, _, rest = tail.partition("\n\n")
    role = "\n".join(x for x in role.splitlines() if not x.startswith("argv"))
    role = role.replace('transport = "command"', 'transport = "codex_goal"')
    config.write_text(f'{head}[roles."oms.command-executor"]\n{role}\n\n{rest}')
    git.commit_all(fleet.repo, "a Codex worker")
    calls = _counted_advisor(fleet)
    record = Path(fleet.state, "proxy", "proxy.json")
    record.parent.mkdir(mode=0o700, exist_ok=True)
    record.write_bytes(b"{not json")
    record.chmod(0o600)
    ticket = fleet.add("Add a line")
    first = fleet.tick()
    said = "model proxy: proxy/proxy.json cannot be read"
    _waits_for_a_person(fleet, ticket, first, said, "`oms proxy stop`")
    fleet.tick()
    assert _runs(calls) == 0
    roots = ("--state-root", fleet.state, "--config-root", fleet.repo)
    stopped = oms.run("proxy", "stop", *roots)  # the fix the reason names
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert not record.exists()
    fleet.tick()
    state, payload = fleet.tickets()[ticket]
    assert state != "open" or not str(payload.get("reason") or "").startswith(NEEDS_PERSON)
    assert payload["attempt"] == 1
    assert _runs(calls) == 1  # reviewed once, then on to its launch
    assert len(_dispatches(fleet)) == 1
