"""State root creation and opening: idempotent, crash-tolerant, and refusing unsafe places."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from oms.canonical import now
from oms.errors import PathEscapeError, StateRootError, UnsafeFileError
from oms.store import StateRoot, default_state_root
from oms.store.stateroot import KEY, META


def test_create_is_idempotent_and_keeps_the_key(tmp_path: Path) -> None:
    first, created = StateRoot.create(str(tmp_path / "s"), now())
    first.close()
    key = (tmp_path / "s" / KEY).read_bytes()
    second, created_again = StateRoot.create(str(tmp_path / "s"), now())
    second.close()
    assert created
    assert not created_again
    assert (tmp_path / "s" / KEY).read_bytes() == key
    assert stat.S_IMODE(os.stat(tmp_path / "s" / KEY).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "s").st_mode) == 0o700


def test_create_finishes_after_a_crash_between_key_and_metadata(tmp_path: Path) -> None:
    state, _ = StateRoot.create(str(tmp_path / "s"), now())
    key_id = state.meta.key_id
    state.close()
    os.unlink(tmp_path / "s" / META)  # as if killed right after the key was published
    with pytest.raises(StateRootError, match="not initialised"):
        StateRoot.open(str(tmp_path / "s"))
    state, created = StateRoot.create(str(tmp_path / "s"), now())
    assert created
    assert state.meta.key_id == key_id
    state.close()


def test_open_refuses_missing_and_uninitialised(tmp_path: Path) -> None:
    with pytest.raises(StateRootError, match="does not exist"):
        StateRoot.open(str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir(mode=0o700)
    with pytest.raises(StateRootError, match="not initialised"):
        StateRoot.open(str(tmp_path / "empty"))


def test_refuses_state_root_inside_a_git_worktree(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    with pytest.raises(StateRootError, match="inside the git worktree"):
        StateRoot.create(str(tmp_path / "repo" / "deep" / "state"), now())
    assert not (tmp_path / "repo" / "deep").exists()


def test_refuses_symlinked_and_loose_state_roots(tmp_path: Path) -> None:
    state, _ = StateRoot.create(str(tmp_path / "s"), now())
    state.close()
    os.symlink(tmp_path / "s", tmp_path / "alias")
    with pytest.raises(PathEscapeError):
        StateRoot.open(str(tmp_path / "alias"))
    os.chmod(tmp_path / "s", 0o755)
    with pytest.raises(UnsafeFileError, match="0755"):
        StateRoot.open(str(tmp_path / "s"))


def test_metadata_and_key_must_agree(tmp_path: Path) -> None:
    state, _ = StateRoot.create(str(tmp_path / "s"), now())
    state.close()
    os.unlink(tmp_path / "s" / KEY)
    (tmp_path / "s" / KEY).write_bytes(b"\x01" * 32)
    os.chmod(tmp_path / "s" / KEY, 0o600)
    opened = StateRoot.open(str(tmp_path / "s"))
    with pytest.raises(StateRootError, match="does not match"):
        opened.signer()
    opened.close()


def test_default_state_root() -> None:
    assert default_state_root({"OMS_STATE_ROOT": "/x"}) == "/x"
    assert default_state_root({"XDG_STATE_HOME": "/y"}) == "/y/oms"
    assert default_state_root({"HOME": "/h"}) == "/h/.local/state/oms"
