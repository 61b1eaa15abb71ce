"""Attack (ledger, ADR 0022): deleting the ledger does not launder an edit.

Before its fix, `ledger.note` adopted every covered file 'as it is now' whenever `ledger/log` did
not exist. Deleting `ledger/` needs no key; the next ordinary write then adopted whatever the
attacker left - edited latest versions, injected files - and the command signed that head. Now a
state root without a ledger is adopted only by a person (`oms audit adopt`), every writing command
refuses until then, and the rollback anchor (ADR 0027) names the ledger's loss."""

from __future__ import annotations

import shutil
from pathlib import Path

from oms.store import Store
from tests.chain import Chain
from tests.helpers import oms_command


def test_deleting_the_ledger_does_not_launder_an_edit(chain: Chain) -> None:
    chain.proposed()
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    signed = oms_command().run("audit", "checkpoint", *roots)
    assert signed.returncode == 0, signed.stderr
    versions = sorted(
        (chain.state / "records" / "dispatch").glob("*/[0-9]*.json"), key=lambda p: int(p.stem)
    )
    latest: Path = versions[-1]
    latest.chmod(0o600)
    latest.write_bytes(latest.read_bytes().replace(b'"proposed"', b'"accepted"', 1))
    with Store.open(str(chain.state)) as store:
        assert store.audit().problems  # found while the ledger is there
    shutil.rmtree(chain.state / "ledger")  # no key needed
    done = oms_command().run(
        "ticket", "add", "--title", "Unrelated", "--no-body", *roots
    )  # the user, later
    assert (
        done.returncode != 0
    )  # no ledger over existing records is started silently: the user is told
    assert "no ledger" in done.stderr
    assert "oms audit adopt" in done.stderr
    with Store.open(str(chain.state)) as store:
        audit = store.audit()
    assert audit.problems, "the ledger re-adopted the edited latest version and oms signed it"
    assert any("oms audit adopt" in p or "in no ledger entry" in p for p in audit.problems)
    assert "rolled back" in audit.problems[0]  # the anchor saw the ledger go (ADR 0027)
