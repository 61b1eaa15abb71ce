"""`store verify` finds each kind of damage, names the path, and changes nothing; `sweep` removes
only debris."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from oms.fsio import procinfo
from oms.fsio.locks import render
from oms.store import Store
from oms.store.verify import Report, sweep, verify
from tests.helpers import SESSION, T0, contact_entry, evidence_body, payload, ts


def populate(store: Store) -> None:
    """A small but complete state: a record with three versions, an event, a receipt, evidence, a
    journal."""
    records = store.records("worker")
    records.create(
        "dsp-1",
        state="idle",
        payload=payload("worker"),
        operation_id="op-0",
        actor="oms-system",
        observed_at=ts(0),
    )
    for v in (1, 2):
        records.transition(
            "dsp-1",
            expected_version=v - 1,
            state="working",
            payload=payload("worker"),
            operation_id=f"op-{v}",
            actor="oms-system",
            observed_at=ts(v),
        )
    store.events.create(
        "evt-1",
        "session-registered",
        T0,
        {"session_id": SESSION, "dispatch_id": "dsp-1", "session_version": 0},
    )
    store.outbox("oms-worker-delivery").commit_receipt("evt-1", T0, {"status": "created"})
    store.put_evidence(evidence_body())
    store.journal("live-contact").append(contact_entry(1), T0)


def _snapshot(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        out[rel] = (
            "dir"
            if p.is_dir() and not p.is_symlink()
            else (os.readlink(p) if p.is_symlink() else p.read_bytes())
        )
    return out


def _replace(path: Path, data: bytes) -> None:
    os.unlink(path)
    path.write_bytes(data)
    os.chmod(path, 0o600)


def _errors(report: Report) -> list[tuple[str, str]]:
    return [(f.path, f.problem) for f in report.findings if f.severity == "error"]


def test_clean_store_verifies_with_counts(store: Store, state_path: Path) -> None:
    populate(store)
    report = verify(str(state_path))
    assert report.ok, report.findings
    assert report.counts == {
        "records": 1,
        "versions": 3,
        "events": 1,
        "receipts": 1,
        "evidence": 1,
        "journal entries": 1,
    }


REC = "records/worker/dsp-1"

Damage = Callable[[Path], None]


def _gap(s: Path) -> None:
    os.unlink(s / REC / "1.json")


def _edit_middle(s: Path) -> None:
    _replace(s / REC / "1.json", (s / REC / "1.json").read_bytes().replace(b'"working"', b'"done"'))


def _symlink(s: Path) -> None:
    os.symlink("/etc/passwd", s / "events" / "evt-2.json")


def _loose_mode(s: Path) -> None:
    os.chmod(s / REC / "0.json", 0o644)


def _hardlink(s: Path) -> None:
    os.link(s / REC / "0.json", s / "records" / "worker" / "stray")


def _stray(s: Path) -> None:
    (s / "notes.txt").write_text("hi")
    os.chmod(s / "notes.txt", 0o600)


def _schema(s: Path) -> None:
    _replace(
        s / "events" / "evt-1.json",
        (s / "events" / "evt-1.json")
        .read_bytes()
        .replace(b"session-registered", b"session-exploded"),
    )


def _bad_sig(s: Path) -> None:
    path = next((s / "evidence").iterdir())
    env = json.loads(path.read_bytes())
    sig = env["signatures"][0]["sig"]
    env["signatures"][0]["sig"] = ("B" if sig[0] == "A" else "A") + sig[1:]
    _replace(path, json.dumps(env, sort_keys=True, separators=(",", ":")).encode())


def _dead_temp(s: Path) -> None:
    ghost = procinfo.ProcessIdentity(procinfo.boot_id(), 999_999, 1)
    name = f".oms-tmp.{ghost.token()}.abcdef012345"
    (s / REC / name).write_bytes(b"half")
    os.chmod(s / REC / name, 0o600)


def _stale_lock(s: Path) -> None:
    ghost = procinfo.ProcessIdentity(procinfo.boot_id(), 999_999, 1)
    (s / "outbox" / "oms-worker-delivery" / "evt-1.lock").write_bytes(render(ghost))
    os.chmod(s / "outbox" / "oms-worker-delivery" / "evt-1.lock", 0o600)


def _orphan_receipt(s: Path) -> None:
    os.unlink(s / "events" / "evt-1.json")


def _dup_op_index(s: Path) -> None:
    _replace(
        s / REC / "ops" / "op-0.json", b'{"format":"oms-op-v1","operation_id":"op-0","version":1}'
    )


def _missing_index(s: Path) -> None:
    os.unlink(s / REC / "ops" / "op-1.json")


def _journal_gap(s: Path) -> None:
    (s / "journals" / "live-contact" / "2.json").write_bytes(
        (s / "journals" / "live-contact" / "0.json").read_bytes()
    )
    os.chmod(s / "journals" / "live-contact" / "2.json", 0o600)


def _key_swap(s: Path) -> None:
    _replace(s / "keys" / "state.ed25519", b"\x07" * 32)


def _misfiled(s: Path) -> None:
    _replace(s / REC / "2.json", (s / REC / "1.json").read_bytes())


def _time_travel(s: Path) -> None:
    path = s / REC / "2.json"
    _replace(path, path.read_bytes().replace(ts(2).encode(), ts(-5).encode()))


DAMAGE: dict[str, tuple[Damage, str, str]] = {
    "gap": (_gap, f"{REC}/1.json", "gap"),
    "edited-middle-version": (_edit_middle, f"{REC}/2.json", "previous_sha256"),
    "symlink": (_symlink, "events/evt-2.json", "symlink"),
    "loose-mode": (_loose_mode, f"{REC}/0.json", "open to others"),
    "hardlink": (_hardlink, f"{REC}/0.json", "links"),
    "stray-entry": (_stray, "notes.txt", "unexpected"),
    "schema": (_schema, "events/evt-1.json", "event_type"),
    "bad-signature": (_bad_sig, "evidence/", "signature"),
    "dead-temp": (_dead_temp, f"{REC}/.oms-tmp.", "temp file left by dead process 999999"),
    "stale-lock": (_stale_lock, "outbox/oms-worker-delivery/evt-1.lock", "stale lock"),
    "orphan-receipt": (
        _orphan_receipt,
        "outbox/oms-worker-delivery/evt-1.receipt.json",
        "does not exist",
    ),
    "op-index-points-elsewhere": (_dup_op_index, f"{REC}/ops/op-0.json", "another operation"),
    "op-index-missing": (_missing_index, f"{REC}/ops/op-1.json", "missing: index entry"),
    "journal-gap": (_journal_gap, "journals/live-contact/1.json", "gap"),
    "key-swapped": (_key_swap, "keys/state.ed25519", "does not match"),
    "misfiled-version": (_misfiled, f"{REC}/2.json", "expected worker/dsp-1/2"),
    "time-travel": (_time_travel, f"{REC}/2.json", "observed_at"),
}


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_each_damage_is_reported_precisely_and_nothing_changes(
    store: Store, state_path: Path, name: str
) -> None:
    populate(store)
    damage, where, why = DAMAGE[name]
    damage(state_path)
    before = _snapshot(state_path)
    report = verify(str(state_path))
    assert not report.ok
    assert any(path.startswith(where) and why in problem for path, problem in _errors(report)), (
        _errors(report)
    )
    assert _snapshot(state_path) == before


def test_live_lock_and_live_temp_are_notes_not_errors(store: Store, state_path: Path) -> None:
    populate(store)
    me = procinfo.current()
    (state_path / "outbox" / "oms-worker-delivery" / "evt-1.lock").write_bytes(render(me))
    os.chmod(state_path / "outbox" / "oms-worker-delivery" / "evt-1.lock", 0o600)
    (state_path / REC / f".oms-tmp.{me.token()}.000000000000").write_bytes(b"")
    os.chmod(state_path / REC / f".oms-tmp.{me.token()}.000000000000", 0o600)
    report = verify(str(state_path))
    assert report.ok, _errors(report)
    assert {f.severity for f in report.findings} == {"note"}


def test_sweep_removes_only_dead_debris(store: Store, state_path: Path) -> None:
    populate(store)
    _dead_temp(state_path)
    _stale_lock(state_path)
    live = procinfo.current()
    live_temp = state_path / REC / f".oms-tmp.{live.token()}.111111111111"
    live_temp.write_bytes(b"")
    os.chmod(live_temp, 0o600)
    removed = sweep(str(state_path))
    assert len(removed) == 2
    assert "outbox/oms-worker-delivery/evt-1.lock" in removed
    assert live_temp.exists()
    live_temp.unlink()
    assert verify(str(state_path)).ok


def test_verify_of_missing_or_unsafe_root(tmp_path: Path) -> None:
    report = verify(str(tmp_path / "missing"))
    assert not report.ok
    assert "no such file" in report.findings[0].problem
    (tmp_path / "open").mkdir(mode=0o755)
    os.chmod(tmp_path / "open", 0o755)
    assert "open to others" in verify(str(tmp_path / "open")).findings[0].problem


def test_verify_runs_in_a_separate_process_while_writes_happen(
    store: Store, state_path: Path
) -> None:
    populate(store)
    code = (
        "import sys; from oms.store.verify import verify; r = "
        "verify(sys.argv[1]); sys.exit(0 if r.ok else 1)"
    )
    assert (
        subprocess.run([sys.executable, "-c", code, str(state_path)], check=False).returncode == 0
    )
