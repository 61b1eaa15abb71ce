"""Attack (ledger, ADR 0027): a rollback of the whole state root to an earlier copy. Before, it was
seen only against a checkpoint a person had exported by hand (nothing did it), and `oms ticket add`
gave the lost tickets' ids again — whose branches and worktrees are still in the repository. Now
every command and conductor tick that wrote moves an anchor kept outside the state root; `oms audit
verify` names the rollback in one line with no manual step, the conductor refuses to act on it,
ticket ids stay above every one ever given, and only a person's `oms audit accept-rollback` (which
says what was lost) re-anchors the state root."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from oms.services.conductor import tick as conductor
from oms.store import Store, anchor
from tests.chain import Chain
from tests.helpers import oms_command


def _roots(chain: Chain) -> tuple[str, ...]:
    return ("--state-root", str(chain.state), "--config-root", str(chain.repo))


def _add(chain: Chain, title: str) -> str:
    args = ("ticket", "add", "--title", title, "--no-body", "--json", *_roots(chain))
    done = oms_command().run(*args)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["ticket"]["id"])


def _restore(chain: Chain, copy: Path) -> None:
    shutil.rmtree(chain.state)
    shutil.copytree(copy, chain.state, symlinks=True)


def test_a_rolled_back_state_root_is_named_and_its_ids_are_never_given_again(
    chain: Chain,
    tmp_path: Path,
) -> None:
    run = oms_command().run
    assert [_add(chain, "One"), _add(chain, "Two")] == ["tkt-1", "tkt-2"]
    copy = tmp_path / "an-hour-earlier"
    shutil.copytree(chain.state, copy, symlinks=True)  # a backup, restored later
    assert [_add(chain, "Three"), _add(chain, "Four")] == ["tkt-3", "tkt-4"]
    assert run("audit", "verify", *_roots(chain)).returncode == 0
    _restore(chain, copy)

    named = run("audit", "verify", *_roots(chain))  # no checkpoint given: nothing done by hand
    assert named.returncode == 1, named.stdout + named.stderr
    error = [line for line in named.stderr.splitlines() if line.startswith("oms: error:")]
    assert len(error) == 1
    assert "the state root was rolled back" in error[0]
    assert "accept-rollback" in named.stderr  # the hint
    assert "Traceback" not in named.stderr

    after = run("ticket", "add", "--title", "After", "--no-body", "--json", *_roots(chain))
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout)["ticket"]["id"] == "tkt-5"  # never tkt-3 again
    assert "the anchor stays" in after.stderr  # and the command says the anchor did not move
    assert run("audit", "verify", *_roots(chain)).returncode == 1  # still named (now rewritten)

    refused = run("audit", "accept-rollback", *_roots(chain))  # off a terminal: name the person
    assert refused.returncode == 2
    accepted = run("audit", "accept-rollback", "--person", "Ada", "--yes", "--json", *_roots(chain))
    assert accepted.returncode == 0, accepted.stderr
    said = json.loads(accepted.stdout)
    assert said["tickets_reserved"] == 4
    assert "ledger" in said["lost"]
    assert run("audit", "verify", *_roots(chain)).returncode == 0, "accepted: it holds again"
    assert _add(chain, "Later") == "tkt-6"
    kept = list((chain.state / "ledger" / "rollbacks").iterdir())
    assert len(kept) == 1  # what the rolled-back anchor said, kept in the state root and noted
    again = run("audit", "accept-rollback", "--person", "Ada", "--yes", *_roots(chain))
    assert again.returncode == 1


def test_the_conductor_refuses_a_rolled_back_state_root(deliverable: Chain, tmp_path: Path) -> None:
    chain = deliverable  # (its tick launches a worker: our tmux server is ended afterwards)
    run = oms_command().run
    _add(chain, "One")
    copy = tmp_path / "earlier"
    shutil.copytree(chain.state, copy, symlinks=True)
    _add(chain, "Two")
    _restore(chain, copy)
    refused = run("conductor", "tick", *_roots(chain))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "rolled back" in refused.stderr
    assert "Traceback" not in refused.stderr
    accepted = run("audit", "accept-rollback", "--person", "Ada", "--yes", *_roots(chain))
    assert accepted.returncode == 0, accepted.stderr
    ticked = run("conductor", "tick", *_roots(chain))
    assert ticked.returncode == 0, ticked.stderr


def _anchored(chain: Chain) -> int | None:
    with Store.open(str(chain.state)) as store:
        meta = store.state.meta
        newest, problem, _ = anchor.check(store.state.root, meta.public_key, meta.key_id)
    assert problem is None, problem
    return None if newest is None else newest.seq


def test_the_checkpoint_phase_anchors_each_tick_that_wrote(chain: Chain) -> None:
    chain.proposed()
    assert _anchored(chain) is None  # (written by services directly: no command anchored yet)
    with chain.workspace() as ws:
        phase = conductor.Phase("checkpoint")
        memory = conductor.Memory()  # one conductor's, across its ticks
        conductor._checkpoint(ws, phase, memory)
        assert phase.done
        assert not phase.skipped
        head = ws.store.checkpoint()
        assert head is not None
        assert _anchored(chain) == head[0]["seq"]
        folder = Path(anchor.anchor_dir()) / ws.store.state.meta.key_id
        before = sorted(os.listdir(folder))
        idle = conductor.Phase("checkpoint")
        conductor._checkpoint(
            ws, idle, memory
        )  # nothing written since: nothing signed, nothing anchored
        assert idle.done == []
        assert idle.skipped == []
        assert sorted(os.listdir(folder)) == before


def test_a_damaged_or_foreign_anchor_is_named(chain: Chain) -> None:
    _add(chain, "One")
    with Store.open(str(chain.state)) as store:
        folder = Path(anchor.anchor_dir()) / store.state.meta.key_id
    (newest,) = sorted(folder.iterdir())
    lowered = newest.read_bytes().replace(b'"tickets":1', b'"tickets":0')  # the floor lowered
    newest.write_bytes(lowered)
    done = oms_command().run("audit", "verify", *_roots(chain))
    assert done.returncode == 1
    assert "the anchor" in done.stderr
    assert "Traceback" not in done.stderr
    accept = ("audit", "accept-rollback", "--person", "Ada", "--yes", *_roots(chain))
    accepted = oms_command().run(*accept)
    assert accepted.returncode == 0, accepted.stderr  # a person goes on: the damaged one is kept
    assert oms_command().run("audit", "verify", *_roots(chain)).returncode == 0
    assert _add(chain, "Two") == "tkt-2"


def test_an_anchor_folder_inside_the_state_root_is_refused(chain: Chain) -> None:
    inside = {"OMS_ANCHOR_DIR": str(chain.state / "ledger" / "anchors")}
    args = ("ticket", "add", "--title", "One", "--no-body", *_roots(chain))
    done = oms_command().run(*args, env=inside)
    assert done.returncode == 0, done.stderr  # the ticket is added; the anchor is not kept there
    assert "inside the state root" in done.stderr
    assert not (chain.state / "ledger" / "anchors").exists()
    verified = oms_command().run("audit", "verify", *_roots(chain), env=inside)
    assert verified.returncode == 0
    assert "inside the state root" in verified.stdout  # said, as a note
