"""The tree race against the removal of a worktree (`oms result discard`, `oms worktree gc`: see
`__init__.py`): `rig.ROUNDS` worktrees, each holding the attacker's bait committed (so nothing in it
is unkept and the removal goes ahead), each removed while an attacker in the worker sandbox's view
swaps its folders for links to host folders as the removal deletes the files before them. Nothing
outside the worktree may go, and no host byte may show anywhere.

Before docs/adr/0024 `git worktree remove` ran on the host: its recursive removal could follow a
folder swapped for a link between its look and its descent."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from oms.errors import OmsError
from oms.services.finishing import worktree_gc
from tests.chain import make_chain
from tests.helpers import git
from tests.security.tree_race import rig


def _bait_commit(repo: Path, program: Path, base: Path) -> str:
    """A commit of the repository's HEAD plus the attacker's bait, as the attacker makes it."""
    scratch = base / "bait-scratch"
    git("worktree", "add", "-q", "--detach", str(scratch), cwd=repo)
    subprocess.run(["/usr/bin/python3", str(program), "bait"], cwd=scratch, check=True)
    git("add", "-A", cwd=scratch)
    git("commit", "-q", "-m", "the attacker's bait, committed", cwd=scratch)
    commit = git("rev-parse", "HEAD", cwd=scratch).strip()
    git("worktree", "remove", "--force", str(scratch), cwd=repo)
    return commit


def test_removing_a_worktree_never_removes_or_reads_through_the_agents_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = rig.environment(monkeypatch, tmp_path)
    chain = next(make_chain(tmp_path))
    found = rig.Secrets.plant(chain.state, home, tmp_path)
    program = rig.write_program(tmp_path, found, filler=24)  # (a removal deletes in listing order)
    repo = chain.repo
    commit = _bait_commit(repo, program, tmp_path)
    outcomes: list[dict[str, Any]] = []
    messages: list[str] = []
    for n in range(rig.ROUNDS):
        worktree = tmp_path / "worktrees" / f"rm-{n}"
        git("worktree", "add", "-q", "-b", f"race/rm-{n}", str(worktree), commit, cwd=repo)
        home = tmp_path / "homes" / f"rm-{n}"
        running = rig.SandboxHand().start_on(repo, worktree, home, program, n)
        try:
            trigger = ("named", "delete")[n % 2]  # at its look, at its removal
            with running.rounds.round(trigger, committed=True) as outcome:
                try:
                    why = worktree_gc.remove(str(repo), str(worktree))
                except OmsError as exc:
                    why = f"refused: {exc.message}"
                outcome["answer"] = "removed" if why is None else why
        finally:
            running.stop()
        messages.append(str(outcome["answer"]))
        outcomes.append(outcome)
        if worktree.exists():  # kept (something appeared, or a link stood): remove it by hand
            shutil.rmtree(worktree)
            git("worktree", "prune", cwd=repo)
    said = rig.summary(outcomes)
    print(said)  # (shown with -s: how the race went)
    assert found.harmed() == [], said
    assert rig.leaks(repo, chain.state, found, messages) == [], said
    assert sum(1 for o in outcomes if o.get("swapped")) >= len(outcomes) // 4, said
    assert sum(1 for o in outcomes if o["answer"] == "removed") >= 1, said  # removals did happen
