"""The tree race against `oms result verify`'s checkout (see `__init__.py`): the fresh directory a
result's tree is written into becomes hostile once a check ran in it. The check here is the
attacker: it leaves every trap in its checkout (folders and files swapped for links to host folders
and files at every depth, through `/proc/self/root/` too, FIFOs, folders it cannot enter, a `.git`
file) and, run `rig.ROUNDS` times, oms must read nothing through it afterwards and remove it
following no link: the host files stay, no host byte shows in the evidence, the kept outputs or any
message, and no checkout is left behind.

The check's processes cannot race the removal (they die with the check's PID namespace): this is the
static half of the race. It passed before docs/adr/0024 too (its removal was already
descriptor-based); it holds the removal to that now that `remove_tree` is oms's own."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from oms.errors import OmsError
from oms.services.finishing import verify
from tests.agent_side import BoundTools, bind
from tests.chain import make_chain
from tests.helpers import git
from tests.security.tree_race import rig

CHECK = """
[verify]
commands = [["/usr/bin/python3", "tree_race_attacker.py", "check"]]
timeout_seconds = 20
max_output_bytes = 4096
"""


def _checkouts() -> set[str]:
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("oms-verify-")}


def test_a_checkout_a_check_left_hostile_is_never_read_through_and_removed_following_no_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = rig.environment(monkeypatch, tmp_path)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # the checkouts: only ours
    chain = next(make_chain(tmp_path))
    found = rig.Secrets.plant(chain.state, home, tmp_path)
    chain.edit_config(lambda s: s + CHECK, commit=True)
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        attacker = rig.write_program(tmp_path, found, filler=8)
        (bound.worktree / attacker.name).write_text(attacker.read_text())
        git("add", attacker.name, cwd=bound.worktree)
        who = ("-c", "user.name=t", "-c", "user.email=t@t")
        git(*who, "commit", "-q", "-m", "work", cwd=bound.worktree)
        commit = git("rev-parse", "HEAD", cwd=bound.worktree).strip()
        result = {"status": "completed", "summary": "Done.", "result_commit": commit}
        answer, is_error = tools.call("record_dispatch_result", result)
        assert is_error is False, answer
    finally:
        tools.close()
    before = _checkouts()
    outcomes: list[dict[str, Any]] = []
    messages: list[str] = []
    with chain.workspace() as ws:
        for _ in range(rig.ROUNDS):
            chain.clock.advance(1 / 60_000)  # a millisecond: each verification its own evidence
            try:
                verified = verify.verify(ws, bound.dispatch_id)
                output = verified.ran[0].output.decode()[-80:]
                said = f"{'passed' if verified.passed else 'failed'}: {output}"
            except OmsError as exc:
                said = f"refused: {exc.message}"
            messages.append(said)
            outcomes.append({"answer": said, "swapped": "traps left" in said, "kind": "every trap"})
    said = rig.summary(outcomes)
    print(said)  # (shown with -s: how the rounds went)
    assert found.harmed() == [], said
    assert rig.leaks(chain.repo, chain.state, found, messages) == [], said
    assert _checkouts() - before == set(), f"checkouts left behind\n{said}"
    assert all(o["swapped"] for o in outcomes), said  # every check ran and left its traps
