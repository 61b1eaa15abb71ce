"""Attack (ledger, ADR 0022): a checkpoint file is untrusted input: refused in one line, changing
nothing.

Found by attack, each failed before its fix:
- `parse_checkpoint` caught ValueError/KeyError/TypeError around `json.loads`, but deep nesting
  raised RecursionError, and a document without "at" failed in `_signed_part` outside the try
  (KeyError): `oms audit verify` exited 3, 'internal error'.
- `checkpoint` decoded the kept checkpoint of the head with no handling: a non-JSON file at
  `ledger/checkpoints/<next seq>.json` made every writing command end in an internal error after it
  wrote.
- `checkpoint` returned a kept checkpoint whose "head" matched without checking its signature, and
  `oms audit checkpoint --export` exported it: the user's off-root pin was a forgery that proved
  nothing."""

from __future__ import annotations

import json
from pathlib import Path

from oms.store import ledger
from tests.chain import Chain
from tests.helpers import oms_command


def _roots(chain: Chain) -> tuple[str, ...]:
    return ("--state-root", str(chain.state), "--config-root", str(chain.repo))


def _head(chain: Chain) -> tuple[int, str]:
    entries = ledger.read_chain_from(str(chain.state))
    return entries[-1].seq, entries[-1].line_hash


def _key_id(chain: Chain) -> str:
    signed = oms_command().run("audit", "checkpoint", "--json", *_roots(chain))
    assert signed.returncode == 0, signed.stderr
    return str(json.loads(signed.stdout)["checkpoint"]["keyid"])


def test_a_deeply_nested_exported_checkpoint_is_refused_in_one_line(
    chain: Chain, tmp_path: Path
) -> None:
    chain.proposed()
    bad = tmp_path / "pin.json"
    bad.write_bytes(b"[" * 3000)
    done = oms_command().run("audit", "verify", "--checkpoint", str(bad), *_roots(chain))
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "internal error" not in done.stderr, done.stderr


def test_an_exported_checkpoint_without_at_is_refused_in_one_line(
    chain: Chain, tmp_path: Path
) -> None:
    chain.proposed()
    seq, head = _head(chain)
    bad = tmp_path / "pin.json"
    doc = {
        "format": "oms-checkpoint-v1",
        "seq": seq,
        "head": head,
        "keyid": _key_id(chain),
        "sig": "AAAA",
    }
    bad.write_text(json.dumps(doc))
    done = oms_command().run("audit", "verify", "--checkpoint", str(bad), *_roots(chain))
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "internal error" not in done.stderr, done.stderr


def test_a_deeply_nested_checkpoint_in_the_root_is_named(chain: Chain) -> None:
    chain.proposed()
    (chain.state / "ledger" / "checkpoints").mkdir(mode=0o700, exist_ok=True)
    planted = chain.state / "ledger" / "checkpoints" / "1.json"
    planted.write_bytes(b"[" * 3000)
    planted.chmod(0o600)
    done = oms_command().run("audit", "verify", *_roots(chain))
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "internal error" not in done.stderr, done.stderr
    assert "ledger/checkpoints/1.json" in done.stderr


def test_a_garbage_future_checkpoint_does_not_break_every_writing_command(chain: Chain) -> None:
    chain.proposed()
    seq, _ = _head(chain)
    folder = chain.state / "ledger" / "checkpoints"
    folder.mkdir(mode=0o700, exist_ok=True)
    for n in range(
        seq + 1, seq + 40
    ):  # no key: just files where the next heads' checkpoints will go
        (folder / f"{n}.json").write_bytes(b"not json")
        (folder / f"{n}.json").chmod(0o600)
    done = oms_command().run("ticket", "add", "--title", "Another", "--no-body", *_roots(chain))
    assert "internal error" not in done.stderr, done.stderr
    assert done.returncode != 3, (done.returncode, done.stderr)


def test_checkpoint_export_never_exports_an_unsigned_kept_checkpoint(
    chain: Chain, tmp_path: Path
) -> None:
    chain.proposed()
    key_id = _key_id(chain)  # (signs the current head; the attacker replaces that file below)
    entries = ledger.read_chain_from(str(chain.state))
    assert entries[-1].kind == "checkpoint"  # (noted: the entry before it is the head it signed)
    seq, head = entries[-2].seq, entries[-2].line_hash
    kept = chain.state / entries[-1].path
    kept.unlink()
    forged: dict[str, object] = {
        "at": "2026-01-01T00:00:00.000Z",
        "format": "oms-checkpoint-v1",
        "head": head,
    }
    forged["keyid"] = key_id
    forged |= {"seq": seq, "sig": "A" * 86 + "=="}
    kept.write_text(json.dumps(forged))
    kept.chmod(0o600)
    pin = tmp_path / "pin.json"
    done = oms_command().run("audit", "checkpoint", "--export", str(pin), *_roots(chain))
    if done.returncode != 0:
        return  # refusing is fine
    check = oms_command().run("audit", "verify", "--checkpoint", str(pin), *_roots(chain))
    assert "the exported checkpoint" not in check.stderr + check.stdout, (
        "oms exported a checkpoint it never signed: " + check.stderr
    )
