"""Attack (ledger, ADR 0022): no crash leaves `oms audit verify` failing for ever on an untampered
root.

- A writer killed between its publish and its note: since ADR 0027 a file and its entry are one
  unit, settled by the next writer (`tests/security/ledger/test_one_unit.py`).
- Before its fix, the first note on a pre-ledger root wrote the whole adoption in one append,
  decided by whether `ledger/log` existed; a kill mid-write tore it, the next writer cut the torn
  tail, and the adoption was never finished: every file whose adopt line was lost was 'in no ledger
  entry' for ever. Adoption is now a person's `oms audit adopt`, published whole at once
  (`ledger.adopt`)."""

from __future__ import annotations

import shutil

import pytest

from oms.store import Store, ledger
from tests.chain import Chain


def test_a_state_root_without_a_ledger_is_adopted_only_by_a_person_and_whole(chain: Chain) -> None:
    """Adoption is no longer a side effect of the first write (a deleted ledger would be rebuilt
    over whatever is there): `ledger.adopt` publishes the whole first log at once, never torn, and
    only once."""
    from oms.errors import ConflictError
    from oms.fsio import Root

    chain.proposed()
    shutil.rmtree(
        chain.state / "ledger"
    )  # a state root from before the ledger (made by the previous oms)
    with Store.open(str(chain.state)) as store:
        assert "oms audit adopt" in store.audit().problems[0]
    with Root.open(str(chain.state)) as root:
        assert ledger.adopt(root) > 0
        with pytest.raises(ConflictError):
            ledger.adopt(root)
    with Store.open(str(chain.state)) as store:
        assert store.audit().problems == []
