"""Attack (ledger, ADR 0022): a legitimate write that runs while `oms audit verify` reads is no
alarm.

Before its fix, `verify_ledger` read the chain first, then listed the checkpoints, then walked the
covered files, with no lock and no re-read. Any legitimate writer that ran meanwhile - the conductor
writes events and signs a checkpoint every tick - made a clean state root fail verification: its new
checkpoint 'names entry N, but the ledger ends at N-1: the state root was rolled back or cut', and
its new file 'is in no ledger entry'. The hook below is exactly a second process writing at that
moment (it uses its own Store)."""

from __future__ import annotations

import pytest

from oms.store import Store, ledger_check
from tests.chain import Chain
from tests.helpers import oms_command

_real_read_chain = ledger_check.read_chain  # type: ignore[attr-defined]


def _another_writer(chain: Chain, n: list[int]) -> None:
    """Another process: an ordinary `oms ticket add` (a record written, then the command signs its
    head)."""
    n[0] += 1
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    done = oms_command().run("ticket", "add", "--title", f"Concurrent {n[0]}", "--no-body", *roots)
    assert done.returncode == 0, done.stderr


def test_a_concurrent_legit_write_is_no_rollback_alarm(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    chain.proposed()
    with Store.open(str(chain.state)) as store:
        store.checkpoint()
        assert store.audit().problems == []
        n = [0]

        def racing(root, key=None):  # type: ignore[no-untyped-def]
            found = _real_read_chain(root, key)
            _another_writer(chain, n)  # lands right after the chain was read
            return found

        monkeypatch.setattr(ledger_check, "read_chain", racing)
        problems = store.audit().problems
    monkeypatch.undo()
    with Store.open(str(chain.state)) as store:
        assert store.audit().problems == []  # the state root is fine
    assert problems == [], f"a legitimate concurrent write reported as tampering: {problems}"
