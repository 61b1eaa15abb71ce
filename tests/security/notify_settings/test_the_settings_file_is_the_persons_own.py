"""The person's `[notify]` runs its commands outside every sandbox, as the person (ADR 0036 as
amended, SECURITY.md "Notifications"), so the settings file must be the person's own: not in an
agent's worktree however it is reached, not writable by another user, not another user's.

Before the fix, a settings file in an agent's worktree was refused only when its path named the
worktree: reached through a symlink (`XDG_CONFIG_HOME`, or the file itself, linking into the
worktree) it was read and its commands would have run; and a group- or world-writable settings
file, or one another user owns, was read as the person's own (another local user could write
the commands the person's oms runs, as ssh refuses such a config)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oms.errors import OmsError
from oms.services.notify import notices

SETTINGS = '[notify]\ncommands = [["/bin/true"]]\non = ["blocked"]\n'


def _worktree(tmp_path: Path) -> Path:
    """A linked worktree as oms recognises one: a folder whose `.git` is a file."""
    tree = tmp_path / "wt"
    tree.mkdir()
    (tree / ".git").write_text("gitdir: /nowhere/.git/worktrees/wt\n")
    return tree


def _home(monkeypatch: pytest.MonkeyPatch, where: Path) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(where))
    return where / "oms" / "notify.toml"


def _write(path: Path, mode: int = 0o600) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SETTINGS)
    path.chmod(mode)


def test_the_persons_own_settings_are_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _write(_home(monkeypatch, tmp_path / "config"))
    found = notices.settings()
    assert found is not None
    assert found.commands == (("/bin/true",),)


def test_settings_in_a_worktree_are_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _write(_home(monkeypatch, _worktree(tmp_path) / "config"))
    with pytest.raises(OmsError, match="worktree"):
        notices.settings()


def test_a_settings_home_linking_into_a_worktree_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    inside = _worktree(tmp_path) / "config"
    _write(inside / "oms" / "notify.toml")
    link = tmp_path / "config-link"
    link.symlink_to(inside)
    _home(monkeypatch, link)
    with pytest.raises(OmsError, match="worktree"):
        notices.settings()


def test_a_settings_file_linking_into_a_worktree_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    inside = _worktree(tmp_path) / "notify.toml"
    _write(inside)
    path = _home(monkeypatch, tmp_path / "config")
    path.parent.mkdir(parents=True)
    path.symlink_to(inside)
    with pytest.raises(OmsError, match="worktree"):
        notices.settings()


@pytest.mark.parametrize("mode", [0o620, 0o602, 0o666])
def test_a_settings_file_others_may_write_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mode: int
) -> None:
    path = _home(monkeypatch, tmp_path / "config")
    _write(path, mode)
    with pytest.raises(OmsError, match="writable by others") as caught:
        notices.settings()
    assert "\n" not in caught.value.message
    assert "chmod go-w" in caught.value.remedy


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_settings_file_another_user_owns_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = _home(monkeypatch, tmp_path / "config")
    _write(path)
    os.chown(path, 65534, 65534)
    with pytest.raises(OmsError, match="owned by uid 65534"):
        notices.settings()


def test_a_relative_xdg_config_home_is_ignored() -> None:
    """The XDG spec: a relative path in `XDG_CONFIG_HOME` is invalid and ignored. Before, it was
    taken against the working directory — the tick's, then the detached `oms conductor notify`
    child's (`/`, or the source tree oms runs from): two processes, two settings files; and the
    ledger's anchors moved with the directory oms was run in."""
    from oms.domain import notify as rules
    from oms.store.anchor import anchor_dir

    env = {"XDG_CONFIG_HOME": "cfg", "HOME": "/h"}
    assert rules.settings_path(env) == "/h/.config/oms/notify.toml"
    assert anchor_dir(env) == "/h/.config/oms/anchors"
    absolute = {"XDG_CONFIG_HOME": "/x/c", "HOME": "/h"}
    assert rules.settings_path(absolute) == "/x/c/oms/notify.toml"
    assert anchor_dir(absolute) == "/x/c/oms/anchors"


def test_doctor_names_the_fix_of_a_settings_file_others_may_write(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from oms.services.admin import doctor

    path = _home(monkeypatch, tmp_path / "config")
    _write(path, 0o664)
    (check,) = doctor._notify(None)
    assert not check.ok
    assert "writable by others" in check.detail
    assert "chmod go-w" in check.fix
