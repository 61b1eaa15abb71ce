"""The tree race against what oms does to a live worker's worktree (see `__init__.py`): committing a
completed result's leftovers (the broker, while the agent runs), salvage at a worker's end, the
restore after a lapse, and delivery's checkout verification — each run `rig.ROUNDS` times while one
attacker, a delivered command worker, swaps its tree for links to host files as oms reads it.

Each failed before docs/adr/0024 where oms read through the tree on the host: the commit of
leftovers, the salvage and the restore put the state key's and the ssh key's bytes into commits (run
against the code before it, in a checkout of its own)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from oms.canonical import access
from oms.errors import OmsError
from oms.services import checkout, results, salvage
from tests.chain import Chain, make_chain
from tests.helpers import git
from tests.security.tree_race import rig


@dataclass
class Race:
    """One attacking worker and what the rounds gave."""

    chain: Chain
    found: rig.Secrets
    running: rig.Running
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    def dispatch(self) -> Any:
        with self.chain.workspace() as ws:
            return ws.store.records("dispatch").read(self.running.dispatch_id)

    def run(
        self,
        operation: Callable[[Race], str],
        before: Callable[[Race], None] | None = None,
        triggers: tuple[str, ...] = ("named",),
    ) -> None:
        for n in range(rig.ROUNDS):
            if before is not None:
                before(self)
            with self.running.rounds.round(triggers[n % len(triggers)]) as outcome:
                try:
                    answer = operation(self)
                except OmsError as exc:
                    answer = f"refused: {exc.message}"
                outcome["answer"] = answer
            self.messages.append(answer)
            self.outcomes.append(outcome)

    def verdict(self) -> None:
        said = rig.summary(self.outcomes)
        print(said)  # (shown with -s: how the race went)
        harmed = self.found.harmed()
        assert harmed == [], f"{harmed}\n{said}"
        leaked = rig.leaks(self.chain.repo, self.chain.state, self.found, self.messages)
        assert leaked == [], f"host bytes escaped: {leaked[:10]}\n{said}"
        swapped = sum(1 for o in self.outcomes if o.get("swapped"))
        assert swapped >= len(self.outcomes) // 4, f"the attacker rarely swapped in time: {said}"


@pytest.fixture
def race(tmp_path: Path) -> Iterator[Race]:
    mp = pytest.MonkeyPatch()
    home = rig.environment(mp, tmp_path)
    chain = next(make_chain(tmp_path))
    found = rig.Secrets.plant(chain.state, home, tmp_path)
    running = rig.CommandHand().start(chain, rig.write_program(tmp_path, found))
    race = Race(chain, found, running)
    try:
        yield race
    finally:
        running.rounds.stop()
        running.stop()
        tmux = ["tmux", "-S", str(chain.state / "tmux.sock"), "kill-server"]
        subprocess.run(tmux, capture_output=True, check=False)
        mp.undo()


def _branch_back_to_start(race: Race) -> None:
    """Before the tree jobs (docs/adr/0024) a result commit moved the branch: put it (and the
    worktree's index) back at the start commit so the next round finds the leftovers again. A no-op
    now."""
    payload = race.dispatch().payload
    repo, start = str(race.chain.repo), access.text(payload, "worktree_start_commit")
    branch = access.text(payload, "worktree_branch")
    git("update-ref", f"refs/heads/{branch}", start, cwd=repo)
    gitdir = git("rev-parse", "--absolute-git-dir", cwd=race.running.worktree).strip()
    env = {**os.environ, "GIT_INDEX_FILE": os.path.join(gitdir, "index")}
    read_tree = ["git", "-C", repo, "read-tree", start]
    subprocess.run(read_tree, env=env, check=True, capture_output=True)


def _commit_leftovers(race: Race) -> str:
    made: object = results.commit_leftovers(race.dispatch(), "Raced.", str(race.chain.repo))
    commit = made[0] if isinstance(made, tuple) else made  # (a str before docs/adr/0024)
    _branch_back_to_start(race)
    return f"commit {commit}"


def test_committing_a_results_leftovers_never_reads_through_the_agents_links(race: Race) -> None:
    race.run(_commit_leftovers)
    race.verdict()


def _salvage(race: Race) -> str:
    with race.chain.workspace() as ws:
        kept = salvage.keep(ws, race.dispatch(), "the race")
    if kept is None:
        return "nothing to keep"
    return f"refused: {kept.error}" if kept.error else f"kept {kept.ref}"


def test_a_salvage_never_reads_through_the_agents_links(race: Race) -> None:
    race.run(_salvage)
    race.verdict()


def _later_commit(race: Race) -> None:
    """The attempt committed after its start (its lease then expired): the restore has a reset to
    do."""
    payload = race.dispatch().payload
    repo, start = str(race.chain.repo), access.text(payload, "worktree_start_commit")
    tree = git("rev-parse", f"{start}^{{tree}}", cwd=repo).strip()
    message = f"the attempt's commit {len(race.outcomes)}"
    later = git("commit-tree", tree, "-p", start, "-m", message, cwd=repo).strip()
    git("update-ref", f"refs/heads/{access.text(payload, 'worktree_branch')}", later, cwd=repo)


def _restore(race: Race) -> str:
    payload = race.dispatch().payload
    attempt = access.integer(payload, "attempt")
    evidence = {
        "evidence_kind": "lease-expiry",
        "ticket_id": payload["ticket_id"],
        "payload": {"attempt": attempt, "worktree_start_commit": payload["worktree_start_commit"]},
    }
    retry = {**payload, "attempt": attempt + 1}
    reset = checkout.restore_after_expiry(retry, evidence, str(race.chain.repo), bound=False)
    return "reset" if reset else "not reset"


def test_the_restore_after_a_lapse_never_reads_or_removes_through_the_agents_links(
    race: Race,
) -> None:
    race.run(_restore, before=_later_commit, triggers=("named", "delete"))  # at reads, at removal
    race.verdict()


def _verify_checkout(race: Race) -> str:
    checkout.verify(race.dispatch().payload, str(race.chain.repo))
    return "clean"


def test_deliverys_checkout_verification_never_reads_through_the_agents_links(race: Race) -> None:
    race.run(_verify_checkout, triggers=("any",))
    race.verdict()
