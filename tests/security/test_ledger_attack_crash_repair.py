"""Attack (ledger, ADR 0022): crashes that leave `oms audit verify` failing for ever on an untampered root.
- A writer killed between its publish and its note leaves a file in no entry (the ADR says so). But the
  writers' own retries never repair it: events (events.py:69-77), evidence (evidence.py:83-85) and record
  replays (records.py:297-299) skip the note when the file already exists with the same bytes, so the
  idempotent retry - what a re-run command or the next tick does - leaves the alarm there for good.
- The first note on a pre-ledger root writes the whole adoption in one append (ledger.py:103-114). A kill
  mid-write tears it; the next writer cuts the torn tail (right) but `adopt` is decided by
  `not root.exists(LOG)` (ledger.py:100), so the adoption is never finished: every file whose adopt line
  was lost is 'in no ledger entry' for ever."""

from __future__ import annotations

import shutil

import pytest

from oms.store import Store, ledger
from tests.chain import Chain
from tests.helpers import evidence_body


class _Killed(BaseException):
    """Stands for SIGKILL at that instant (nothing after it runs)."""


def test_an_idempotent_retry_after_a_crash_between_publish_and_note_repairs_the_entry(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    chain.proposed()
    with Store.open(str(chain.state)) as store:

        def killed(*_a: object, **_k: object) -> int:
            raise _Killed

        monkeypatch.setattr(ledger, "note", killed)
        with pytest.raises(_Killed):
            store.put_evidence(evidence_body(ticket_id="tkt-crash"))  # published, then killed before its note
        monkeypatch.undo()
        store.put_evidence(evidence_body(ticket_id="tkt-crash"))  # the retry: same body, same file
        problems = store.audit().problems
    assert problems == [], f"the retry left the crash's alarm in place: {problems}"


def test_a_state_root_without_a_ledger_is_adopted_only_by_a_person_and_whole(chain: Chain) -> None:
    """Adoption is no longer a side effect of the first write (a deleted ledger would be rebuilt over
    whatever is there): `ledger.adopt` publishes the whole first log at once, never torn, and only once."""
    from oms.errors import ConflictError
    from oms.fsio import Root
    from oms.store import ledger

    chain.proposed()
    shutil.rmtree(chain.state / "ledger")  # a state root from before the ledger (made by the previous oms)
    with Store.open(str(chain.state)) as store:
        assert "oms audit adopt" in store.audit().problems[0]
    with Root.open(str(chain.state)) as root:
        assert ledger.adopt(root) > 0
        with pytest.raises(ConflictError):
            ledger.adopt(root)
    with Store.open(str(chain.state)) as store:
        assert store.audit().problems == []
