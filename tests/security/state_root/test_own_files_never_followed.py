"""oms's own files are never followed (issue 10, case 4): `tmux.sock` made a symlink to a foreign
tmux server had delivery adopt the foreign session's pane and `oms worker stop` kill it; `oms store
verify` skipped `tmp/`; `oms doctor` probed through `tmp` by path (a symlinked `tmp` sent its probe
outside the root; a missing one was an internal error)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from oms.errors import UnsafeFileError
from oms.services.delivery.service import Delivery
from oms.store.verify import verify
from tests.chain import Chain, accepted, sandbox_dir, use_worker
from tests.helpers import OmsCommand


def _foreign_server(base: Path, session: str) -> Path:
    sock = base / "foreign.sock"
    subprocess.run(
        ["tmux", "-S", str(sock), "new-session", "-d", "-s", session, "sleep 600"], check=True
    )
    return sock


def _sessions(sock: Path) -> str:
    done = subprocess.run(
        ["tmux", "-S", str(sock), "ls"], capture_output=True, text=True, check=False
    )
    return done.stdout


def test_a_symlinked_tmux_socket_is_refused_and_the_foreign_pane_untouched(
    deliverable: Chain,
) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    foreign = _foreign_server(deliverable.base, dispatch_id)
    try:
        (deliverable.state / "tmux.sock").symlink_to(foreign)
        with deliverable.workspace() as ws:
            delivery = Delivery.open(ws)
            outcome = delivery.deliver(event_id)["outcome"]
            assert isinstance(outcome, dict)
            assert outcome["status"] == "parked", outcome
            assert "not oms's tmux server" in str(outcome["reason"])
            try:
                delivery.stop(dispatch_id, "attempted")
            except UnsafeFileError as exc:
                assert "is a symlink" in exc.message
            else:
                raise AssertionError("stop went through a symlinked socket")
        assert dispatch_id in _sessions(foreign)  # the foreign session and its pane are untouched
    finally:
        subprocess.run(["tmux", "-S", str(foreign), "kill-server"], check=False)


@pytest.mark.parametrize("where", ["sandbox directory", "an older oms's tmp"])
def test_store_verify_reports_what_agents_leave_in_tmp(chain: Chain, where: str) -> None:
    legacy = where != "sandbox directory"
    homes = chain.state / "tmp" if legacy else sandbox_dir(chain.state) / "homes"
    home = homes / "command-11111111-2222-4333-8444-555555555555"
    home.mkdir(mode=0o700)
    os.mkfifo(home / "fifo")
    (home / "link").symlink_to("/etc/passwd")
    (home / "open").write_text("x")
    os.chmod(home / "open", 0o666)
    (homes / "stray").mkdir(mode=0o700)
    report = verify(str(chain.state))
    found = {(f.path.split("/")[-1], f.severity) for f in report.findings}
    assert ("fifo", "note") in found
    assert ("link", "note") in found
    assert ("open", "note") in found
    assert ("stray", "error") in found
    assert (
        not report.ok
    )  # the stray entry is oms's problem; what agents made is reported, not fatal


def test_doctor_probes_through_fsio_and_says_why(
    oms: OmsCommand, chain: Chain, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    tmp = chain.state / "tmp"
    tmp.rmdir()
    tmp.symlink_to(outside)
    roots = ["--state-root", str(chain.state), "--config-root", str(chain.repo), "--json"]
    done = oms.run("doctor", *roots)
    assert done.returncode == 1
    checks = {c["check"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["fsio probes"]["ok"] is False
    assert "tmp" in checks["fsio probes"]["detail"]
    assert list(outside.iterdir()) == []  # nothing was made through the link
    tmp.unlink()
    done = oms.run("doctor", *roots)  # tmp/ missing: a precise line, not an internal error
    assert done.returncode == 1
    checks = {c["check"]: c for c in json.loads(done.stdout)["checks"]}
    assert "no such file" in checks["fsio probes"]["detail"]
    assert "Traceback" not in done.stderr
