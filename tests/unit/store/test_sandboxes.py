"""The sandbox directory (issue 23 item 2, ADR 0026): made once beside the state root, private,
recorded, the same for every process of that state root; never a place whose path spells the state
root's, lies inside it or holds it, goes through a link, is open to others or is another state
root's."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from oms.adapters.providers.base import LaunchPlan
from oms.canonical import now
from oms.errors import OmsError, StateRootError
from oms.services.delivery.homes import adopt_legacy
from oms.store import StateRoot, sandboxes
from oms.store.verify import verify


def _open(state_path: Path, env: dict[str, str] | None = None) -> str:
    state = StateRoot.open(str(state_path))
    try:
        with sandboxes.open_dir(state.root, state.meta.key_id, now(), env=env or {}) as found:
            return found.path
    finally:
        state.close()


def _plan(home: str) -> LaunchPlan:
    return LaunchPlan(native_action="goal", argv=("codex",), cwd="/w", env={}, home=home)


def test_made_once_beside_the_state_root_private_and_recorded(state_path: Path) -> None:
    path = _open(state_path)
    assert os.path.dirname(path) == os.path.dirname(os.path.realpath(state_path))
    assert os.path.basename(path).startswith(".oms-sandboxes-")
    assert str(state_path) not in path
    assert os.path.realpath(state_path) not in path
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o700
    assert sorted(os.listdir(path)) == ["brokers", "doors", "homes", "oms-sandboxes.json"]
    assert json.loads((state_path / "sandboxes.json").read_text())["path"] == path
    assert _open(state_path) == path  # every later open finds the same one
    assert verify(str(state_path)).ok


def test_concurrent_first_opens_agree_and_leave_one(state_path: Path) -> None:
    found: list[str] = []
    threads = [threading.Thread(target=lambda: found.append(_open(state_path))) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(found)) == 1
    made = [n for n in os.listdir(state_path.parent) if "sandboxes-" in n]
    assert made == [os.path.basename(found[0])]


def test_a_state_root_named_like_the_default_gets_the_other_name(tmp_path: Path) -> None:
    state = tmp_path / ".o"  # its path is a prefix of `<parent>/.oms-sandboxes-...`
    StateRoot.create(str(state), now())[0].close()
    path = _open(state)
    assert os.path.basename(path).startswith("sandboxes-")
    assert str(state) not in path


@pytest.mark.parametrize(
    ("chosen", "why"),
    [
        ("{state}/sandboxes", "contains the state root's path"),
        ("{state}-sandboxes", "contains the state root's path"),
        ("{parent}", "contains the state root"),
        ("{parent}/link/sandboxes", "passes through a symlink"),
        ("{parent}/full", "is not empty"),
    ],
)
def test_a_place_a_sandbox_would_give_the_state_root_away_is_refused(
    state_path: Path,
    chosen: str,
    why: str,
) -> None:
    parent = state_path.parent
    (parent / "link").symlink_to(parent / "elsewhere")
    (parent / "elsewhere").mkdir()
    (parent / "full").mkdir(mode=0o700)
    (parent / "full" / "x").write_text("x")
    place = chosen.format(state=state_path, parent=parent)
    with pytest.raises(StateRootError, match=why):
        _open(state_path, {sandboxes.ENV: place})
    assert not (state_path / "sandboxes.json").exists()  # nothing recorded
    assert os.listdir(parent / "elsewhere") == []  # nothing made through the link


def test_a_chosen_place_is_used_and_kept(state_path: Path, tmp_path: Path) -> None:
    chosen = tmp_path / "elsewhere" / "sbx"
    assert _open(state_path, {sandboxes.ENV: str(chosen)}) == str(chosen)
    another = {sandboxes.ENV: str(tmp_path / "another")}
    assert _open(state_path, another) == str(chosen)  # recorded once


def test_an_opened_directory_must_still_be_private_ours_and_unlinked(
    state_path: Path,
    tmp_path: Path,
) -> None:
    path = Path(_open(state_path))
    os.chmod(path, 0o755)
    with pytest.raises(OmsError, match="open to others"):
        _open(state_path)
    os.chmod(path, 0o700)
    marker = json.loads((path / sandboxes.MARKER).read_text())
    (path / sandboxes.MARKER).unlink()
    forged = {**marker, "key_id": "0" * 64}
    (path / sandboxes.MARKER).write_text(json.dumps(forged, separators=(",", ":")))
    os.chmod(path / sandboxes.MARKER, 0o600)
    with pytest.raises(StateRootError, match="not this state root's"):
        _open(state_path)
    report = verify(str(state_path))
    found = [f for f in report.findings if f.path == "sandboxes.json"]
    assert any("not this state root's" in f.problem for f in found)


def test_verify_reports_what_oms_never_makes_in_the_sandbox_directory(state_path: Path) -> None:
    path = Path(_open(state_path))
    (path / "stray.txt").write_text("x")
    (path / "brokers" / "not-a-socket").write_text("x")
    report = verify(str(state_path))
    found = {(f.path, f.severity) for f in report.findings}
    assert ("sandboxes.json:stray.txt", "error") in found
    assert ("sandboxes.json:brokers/not-a-socket", "error") in found


def test_an_older_oms_home_is_moved_out_of_the_state_root_once(state_path: Path) -> None:
    """Migration: a home under the state root's `tmp/` (an older oms's) moves, by rename, into the
    sandbox directory the first time its worker launches again; a home already there is never
    replaced."""
    legacy = state_path / "tmp" / "codex-s1"
    (legacy / "sessions").mkdir(parents=True, mode=0o700)
    (legacy / "sessions" / "rollout.jsonl").write_text("the agent's own session\n")
    plan = _plan("homes/codex-s1")
    state = StateRoot.open(str(state_path))
    try:
        with sandboxes.open_dir(state.root, state.meta.key_id, now(), env={}) as sbx:
            note = adopt_legacy(state.root, sbx, plan)
            assert note is not None
            assert "tmp/codex-s1" in note
            moved = Path(sbx.path) / "homes/codex-s1/sessions/rollout.jsonl"
            assert moved.read_text().startswith("the agent")
            assert not legacy.exists()
            assert adopt_legacy(state.root, sbx, plan) is None  # once
            legacy.mkdir(mode=0o700)
            assert adopt_legacy(state.root, sbx, plan) is None  # the one moved stays
            assert legacy.exists()
    finally:
        state.close()


def test_a_home_is_never_moved_through_a_link(state_path: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (state_path / "tmp" / "codex-s2").symlink_to(outside)
    plan = _plan("homes/codex-s2")
    state = StateRoot.open(str(state_path))
    try:
        with sandboxes.open_dir(state.root, state.meta.key_id, now(), env={}) as sbx:
            with pytest.raises(OmsError):
                adopt_legacy(state.root, sbx, plan)
            assert not Path(sbx.path, "homes", "codex-s2").exists()
    finally:
        state.close()
    assert (state_path / "tmp" / "codex-s2").is_symlink()
