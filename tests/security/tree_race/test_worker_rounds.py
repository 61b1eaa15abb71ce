"""The tree race against what oms does to a live worker's worktree (see `__init__.py`): committing a
completed result's leftovers (the broker, while the agent runs), salvage at a worker's end, the
restore after a lapse, and delivery's checkout verification — each run `rig.ROUNDS` times in all
while one attacker swaps its tree for links to host files as oms reads it, in the hands of a
delivered command worker (here), the real Claude Code's Bash tool and the real Codex's
`exec_command` (the same tests in `test_worker_rounds_claude.py`, `test_worker_rounds_codex.py`;
`rig.SHARES`: 140, 30 and 30 rounds of every 200). A hand is one live session for the whole
module; when its rounds are over, the agent reads back every object of the repository through its
shell tool, and nothing it, its CLI or its model saw may hold a host byte.

Each failed before docs/adr/0024 where oms read through the tree on the host: the commit of
leftovers, the salvage and the restore put the state key's and the ssh key's bytes into commits (run
against the code before it, in a checkout of its own)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from oms.canonical import JsonObject, access
from oms.errors import OmsError
from oms.schemas.payloads import DispatchPayload
from oms.services.chain import results
from oms.services.checkout import planned as checkout
from oms.services.checkout import salvage
from oms.store.payloads import dispatch_payload
from tests.chain import Chain, make_chain
from tests.helpers import HELD_STATE_ROOTS, git, isolate_home
from tests.security.tree_race import rig

HANDS: dict[str, rig.Hand] = {
    "command": rig.CommandHand(),
    "claude": rig.CliHand(rig.CLIS["claude"]),
    "codex": rig.CliHand(rig.CLIS["codex"]),
}
KEPT = ("HOME", "OMS_EXECUTABLE", "OMS_ANCHOR_DIR")  # the hand's environment, for each test again


@dataclass
class Attacker:
    """One hand's attacking session, for every test of the module."""

    hand: str
    chain: Chain
    found: rig.Secrets
    running: rig.Running
    env: dict[str, str]


def attack(hand: rig.Hand, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Attacker]:
    """One hand's session, for every test of a module (`hand_fixture`)."""
    base = tmp_path_factory.mktemp(f"race-{hand.name}")
    mp = pytest.MonkeyPatch()
    isolate_home(mp, tmp_path_factory)  # (the autouse fixture's, before it runs)
    home = rig.environment(mp, base)
    chain = next(make_chain(base))
    HELD_STATE_ROOTS.add(str(chain.state).encode())
    running = None
    try:
        found = rig.Secrets.plant(chain.state, home, base)
        running = hand.start(chain, rig.write_program(base, found))
        yield Attacker(hand.name, chain, found, running, {name: os.environ[name] for name in KEPT})
    finally:
        if running is not None:
            running.rounds.stop()
            running.stop()
        tmux = ["tmux", "-S", str(chain.state / "tmux.sock"), "kill-server"]
        subprocess.run(tmux, capture_output=True, check=False)
        HELD_STATE_ROOTS.discard(str(chain.state).encode())
        mp.undo()


def hand_fixture(name: str) -> Any:
    """The module-scoped `attacker` fixture of one hand: this module's is the command worker's;
    `test_worker_rounds_claude.py` and `test_worker_rounds_codex.py` run the same tests with theirs
    (a module per hand: one session each, which `pytest -n 2 --dist loadfile` keeps on one
    worker)."""

    @pytest.fixture(scope="module")
    def attacker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Attacker]:
        yield from attack(HANDS[name], tmp_path_factory)

    return attacker


attacker = hand_fixture("command")


@dataclass
class Race:
    """One attacking worker and what one test's rounds gave."""

    chain: Chain
    found: rig.Secrets
    running: rig.Running
    rounds: int
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
        for n in range(self.rounds):
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
        leaked = rig.leaks(
            self.chain.repo,
            self.chain.state,
            self.found,
            self.messages,
            self.running.agent,
            self.running.heard(),
        )
        assert leaked == [], f"host bytes escaped: {leaked[:10]}\n{said}"
        swapped = sum(1 for o in self.outcomes if o.get("swapped"))
        assert swapped >= len(self.outcomes) // 4, f"the attacker rarely swapped in time: {said}"


@pytest.fixture
def race(attacker: Attacker, monkeypatch: pytest.MonkeyPatch) -> Race:
    for name, value in attacker.env.items():  # (the autouse fixture set its own for the test)
        monkeypatch.setenv(name, value)
    race = Race(attacker.chain, attacker.found, attacker.running, rig.rounds_of(attacker.hand))
    _branch_back_to_start(race)  # where the dispatch began, whatever the module's last test left
    return race


def _branch_back_to_start(race: Race) -> None:
    """Put the branch (and the worktree's index) back at the start commit: before each test (a
    restore the agent's race refused leaves it on the attempt's later commit), and after each commit
    of leftovers (before the tree jobs, docs/adr/0024, a result commit moved the branch: the next
    round must find the leftovers again; a no-op now)."""
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
    payload = dispatch_payload(race.dispatch())
    attempt = payload["attempt"]
    evidence: JsonObject = {
        "evidence_kind": "lease-expiry",
        "ticket_id": payload["ticket_id"],
        "payload": {"attempt": attempt, "worktree_start_commit": payload["worktree_start_commit"]},
    }
    retry: DispatchPayload = {**payload, "attempt": attempt + 1}
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


def test_what_the_agent_reads_back_of_the_repository_holds_no_host_byte(race: Race) -> None:
    """The issue's attacker read the state key back with `git show` the moment oms had committed it,
    and its CLI carried the bytes to the model. Here every object the agent's sandbox shows is read
    back through its shell tool (the command worker's program, directly) after its rounds."""
    assert race.running.read_back is not None
    start = access.text(race.dispatch().payload, "worktree_start_commit")
    said = race.running.read_back(start)
    race.messages.append(said)
    header = said[said.index("READBACK") :].split("\n", 1)[0]
    print(header)  # (shown with -s: how many objects it read, how many it did not write itself)
    assert int(header.split()[1]) > 0, said[:2000]  # it read the objects
    race.verdict()
