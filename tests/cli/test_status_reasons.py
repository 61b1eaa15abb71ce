"""`oms status` says why each ticket is where it is (issue 26 item 4): a reason column — what it
waits for, what a person must fix, why its worker is parked — cut to the terminal's width."""

from __future__ import annotations

import pytest

from oms.domain.conductor import needs_person
from oms.services.chain import tickets
from tests.chain import Chain
from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli

FIX = "bubblewrap is missing on this machine: " + "install it with your package manager " * 6


def test_the_reason_column_says_why_and_fits_the_terminal(oms: OmsCommand, chain: Chain) -> None:
    with chain.workspace() as ws:
        waiting = tickets.add(ws, "A ticket whose launch needs a fix " + "é" * 40, "body")
        tickets.wait_for_person(ws, waiting, needs_person(FIX))
        queued = tickets.add(ws, "Queued", "body")
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    for columns in (120, 160):
        shown = oms.run("status", *roots, env={"COLUMNS": str(columns), "LINES": "40"})
        assert shown.returncode == 0, shown.stderr
        lines = shown.stdout.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("tickets ("))
        header, *rows = lines[start + 1 : start + 3]
        assert header.rstrip().endswith("REASON")
        by_id = {line.split()[0]: line for line in lines[start + 2 :] if line.startswith("tkt-")}
        fix = by_id[waiting.record_id]
        assert "needs a person: bubblew" in fix
        assert fix.endswith("…")
        assert len(fix) <= columns
        assert by_id[queued.record_id].endswith("waits for a free slot")
    assert rows
