"""Attack (ledger, ADR 0022): every file the store reads at a covered name is in the ledger or
reported.

Before its fix, what the ledger covered (`ledger.covered`, `covered_files`) was narrower than what
the store reads: a record version name may have up to 16 digits (`records.VERSION_NAME`; journals
the same) and the ledger matched only 12; and `_walk` listed only regular files, so a symlink (or
FIFO, or directory) put at a covered name was 'in no ledger entry' but never reported. `oms audit
verify` now reports every such injected entry."""

from __future__ import annotations

import json
import os
from pathlib import Path

from oms.store import Store
from oms.store.records import RecordStore
from tests.chain import Chain


def _audit(chain: Chain) -> list[str]:
    with Store.open(str(chain.state)) as store:
        return store.audit().problems


def _latest(chain: Chain, kind: str) -> Path:
    versions = sorted(
        (chain.state / "records" / kind).glob("*/[0-9]*.json"), key=lambda p: int(p.stem)
    )
    return versions[-1]


def test_a_thirteen_digit_version_is_in_the_ledger_or_reported(chain: Chain) -> None:
    chain.proposed()
    latest = _latest(chain, "dispatch")
    doc = json.loads(latest.read_bytes())
    big = 10**12  # 13 digits: a version name the store accepts (VERSION_NAME allows 16)
    doc.update(version=big, expected_version=big - 1, previous_sha256="0" * 64)
    forged = latest.with_name(f"{big}.json")
    forged.write_bytes(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode())
    forged.chmod(0o600)
    with Store.open(str(chain.state)) as store:  # oms now reads it as the dispatch's latest version
        assert RecordStore(store.state.root, "dispatch").read(doc["record_id"]).version == big
    problems = _audit(chain)
    assert any(forged.name in p for p in problems), (
        f"injected {forged.name} not reported: {problems}"
    )


def test_a_symlink_at_a_covered_name_is_reported(chain: Chain, tmp_path: Path) -> None:
    chain.proposed()
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    os.symlink(outside, chain.state / "events" / "evt-injected.json")
    problems = _audit(chain)
    assert any("evt-injected" in p for p in problems), (
        f"a symlink at a covered name passes: {problems}"
    )
