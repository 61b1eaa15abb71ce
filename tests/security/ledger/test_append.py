"""Attack (ledger, ADR 0022): a line appended to the chain without the state key is found.

The chain's links are plain sha256, so anyone who can write the state root can append a correctly
linked line. Before its fix, `verify_ledger` took the *last* entry of a path as its truth and never
asked whether entries after the newest signed checkpoint were signed: an appended line re-pinned an
edited file, or pinned an injected one, even against an exported checkpoint (which pins only a
prefix). `oms audit verify` now reports it, and no writing command chains onto such a line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from oms.canonical import add_ms
from oms.canonical.strict_json import dumps
from oms.store import Store, ledger
from oms.store.records import version_digest
from oms.store.verify import verify as store_verify
from tests.chain import Chain


def _sign_and_export(chain: Chain, tmp_path: Path) -> bytes:
    """What a careful user does: the head signed, a copy kept outside the state root."""
    with Store.open(str(chain.state)) as store:
        found = store.checkpoint()
    assert found is not None
    exported = json.dumps(found[0], sort_keys=True).encode() + b"\n"
    (tmp_path / "pin.json").write_bytes(exported)
    return exported


def _append(chain: Chain, rel: str, data: bytes) -> None:
    """The attacker's line: no key, just the previous line's hash."""
    log = chain.state / "ledger" / "log"
    last = log.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    entry = ledger.parse_line(last)
    line = ledger.line_of(entry.seq + 1, ledger.hash_of(last), ledger.now(), "record", rel, data)
    with log.open("ab") as f:
        f.write(line)


def _latest(chain: Chain, kind: str) -> Path:
    versions = sorted(
        (chain.state / "records" / kind).glob("*/[0-9]*.json"), key=lambda p: int(p.stem)
    )
    return versions[-1]


def _audit(chain: Chain, exported: bytes | None) -> list[str]:
    with Store.open(str(chain.state)) as store:
        return store.audit(exported).problems


def test_an_edit_repinned_by_an_appended_line_is_found(chain: Chain, tmp_path: Path) -> None:
    chain.proposed()
    exported = _sign_and_export(chain, tmp_path)
    latest = _latest(chain, "dispatch")
    forged = latest.read_bytes().replace(b'"proposed"', b'"accepted"', 1)
    latest.chmod(0o600)
    latest.write_bytes(forged)
    assert _audit(chain, exported)  # the edit alone is found...
    _append(chain, str(latest.relative_to(chain.state)), forged)
    assert _audit(chain, exported), (
        "an appended, unsigned ledger line hid an in-place edit of a signed entry"
    )


def test_an_injected_version_pinned_by_an_appended_line_is_found(
    chain: Chain, tmp_path: Path
) -> None:
    chain.proposed()
    exported = _sign_and_export(chain, tmp_path)
    latest = _latest(chain, "dispatch")
    prev = latest.read_bytes()
    doc = json.loads(prev)
    doc.update(
        version=doc["version"] + 1,
        expected_version=doc["version"],
        previous_sha256=version_digest(prev),
        observed_at=add_ms(doc["observed_at"], 1000),
        operation_id="attacker-op",
    )
    data = dumps(doc)
    forged = latest.with_name(f"{doc['version']}.json")
    forged.write_bytes(data)
    forged.chmod(0o600)
    ops = latest.parent / "ops"  # the op index of the version before, as oms would have written it
    ops.mkdir(mode=0o700, exist_ok=True)
    index = ops / f"{json.loads(prev)['operation_id']}.json"
    if not index.exists():
        index.write_bytes(
            dumps(
                {
                    "format": "oms-op-v1",
                    "operation_id": json.loads(prev)["operation_id"],
                    "version": doc["version"] - 1,
                }
            )
        )
        index.chmod(0o600)
    assert store_verify(
        str(chain.state)
    ).ok  # records are not signed: the store's own check cannot see it
    assert _audit(chain, exported)  # the ledger sees it alone...
    _append(chain, str(forged.relative_to(chain.state)), data)
    assert hashlib.sha256(data).hexdigest() in (chain.state / "ledger" / "log").read_text()
    assert _audit(chain, exported), (
        "an injected version with an appended, unsigned ledger line verifies clean"
    )


def test_the_next_legit_command_does_not_sign_a_forged_entry(chain: Chain, tmp_path: Path) -> None:
    """Worse, before its fix: the next command that wrote signed whatever head it found, the forged
    line included; from then on even a verifier that distrusts unsigned entries saw a clean, signed
    chain."""
    from tests.helpers import oms_command

    chain.proposed()
    exported = _sign_and_export(chain, tmp_path)
    latest = _latest(chain, "dispatch")
    forged = latest.read_bytes().replace(b'"proposed"', b'"accepted"', 1)
    latest.chmod(0o600)
    latest.write_bytes(forged)
    _append(chain, str(latest.relative_to(chain.state)), forged)
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    done = oms_command().run("ticket", "add", "--title", "Unrelated", "--no-body", *roots)
    assert (
        done.returncode != 0
    )  # oms does not chain onto (or sign) a line it did not write: it stops, saying so
    assert "ledger" in done.stderr
    assert "Traceback" not in done.stderr
    assert _audit(chain, exported), "oms signed a checkpoint over an entry it never wrote"


def test_a_relinked_chain_with_its_checkpoints_removed_is_found(chain: Chain) -> None:
    """No key needed to rewrite the whole chain: edit a file, rewrite its line, relink every line
    after it, and remove the in-root checkpoints (a delete, not a signature). Before its fix
    `verify_ledger` required no checkpoint at all (and took a `ledger/checkpoints` that is not a
    folder for an empty one)."""
    import shutil

    chain.proposed()
    chain.proposed("More")
    with Store.open(str(chain.state)) as store:
        assert store.checkpoint() is not None  # the head was signed, as every writing command does
        assert store.audit().checkpoints == 1
    first = sorted((chain.state / "records" / "ticket").glob("*/0.json"))[0]
    forged = first.read_bytes().replace(b'"open"', b'"done"', 1)
    first.chmod(0o600)
    first.write_bytes(forged)
    log = chain.state / "ledger" / "log"
    entries = [ledger.parse_line(line) for line in log.read_bytes().splitlines()]
    prev, out = ledger.GENESIS, b""
    rel = str(first.relative_to(chain.state))
    for e in entries:
        line = ledger.line_of(e.seq, prev, e.at, e.kind, e.path, b"")
        doc = json.loads(line)
        doc["sha256"] = hashlib.sha256(forged).hexdigest() if e.path == rel else e.sha256
        line = dumps(doc) + b"\n"
        out, prev = out + line, ledger.hash_of(line)
    log.write_bytes(out)
    shutil.rmtree(chain.state / "ledger" / "checkpoints")
    (chain.state / "ledger" / "checkpoints").write_bytes(
        b""
    )  # (a file where the folder was: also silent)
    assert _audit(chain, None), (
        "a chain rewritten without the key verifies clean once its checkpoints are gone"
    )
