"""oms is installed only where no other user can write (docs/adr/0005, 0033; SECURITY.md): a user
who can write `P/bin` or `P/lib/oms`, or a parent of theirs that is not sticky, could put their own
program where `oms` runs, with the hooks and state root of whoever runs it. The installer refuses
such a prefix, and it never replaces an `oms` it did not install."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from oms.fsio.bundle import tree_digest
from tests.integration.test_install import fake_bundle, freeze


@pytest.mark.parametrize("place", ["bin", "lib/oms", "", "parent"])
def test_a_prefix_another_user_can_write_is_refused(tmp_path: Path, place: str) -> None:
    installer = freeze()
    bundle, digest = fake_bundle(tmp_path / "dist", "b")
    prefix = tmp_path / "parent" / "prefix"
    for sub in ("bin", "lib/oms"):
        (prefix / sub).mkdir(parents=True)
    opened = tmp_path / "parent" if place == "parent" else prefix / place
    opened.chmod(0o777 if place in ("", "parent") else 0o775)
    with pytest.raises(SystemExit, match="another user can write there"):
        installer.install(bundle, digest, prefix)
    assert not (prefix / "bin" / "oms").exists()
    assert list((prefix / "lib" / "oms").iterdir()) == []


def test_a_sticky_parent_like_tmp_is_not_refused(tmp_path: Path) -> None:
    installer = freeze()
    bundle, digest = fake_bundle(tmp_path / "dist", "b")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    link, changed = installer.install(bundle, digest, shared / "prefix")
    assert changed is True
    assert link.is_symlink()


@pytest.mark.parametrize("kind", ["file", "link elsewhere"])
def test_an_oms_it_did_not_install_is_never_replaced(tmp_path: Path, kind: str) -> None:
    installer = freeze()
    bundle, digest = fake_bundle(tmp_path / "dist", "b")
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    theirs = prefix / "bin" / "oms"
    if kind == "file":
        theirs.write_text("#!/bin/sh\necho pip's console script\n")
    else:
        theirs.symlink_to(tmp_path / "dist" / "b" / "oms")
    with pytest.raises(SystemExit, match="is not an oms this installs: move it away first"):
        installer.install(bundle, digest, prefix)
    assert theirs.is_symlink() == (kind != "file")


@pytest.mark.parametrize("linked", ["bin", "lib", "lib/oms"])
def test_a_prefix_linked_into_a_place_others_can_write_is_refused(
    tmp_path: Path, linked: str
) -> None:
    """A planted link (`P/lib -> /srv/open/lib`) leads the install where another user can move the
    real directory away and put their own: its real path's parents are checked too, not only the
    parents of the path as written."""
    installer = freeze()
    bundle, digest = fake_bundle(tmp_path / "dist", "b")
    open_parent = tmp_path / "open"
    real = open_parent / "real"
    real.mkdir(parents=True)
    open_parent.chmod(0o777)  # not sticky: another user can rename `real` away
    prefix = tmp_path / "prefix"
    (prefix / linked).parent.mkdir(parents=True, exist_ok=True)
    (prefix / linked).symlink_to(real)
    with pytest.raises(SystemExit, match="another user can write there"):
        installer.install(bundle, digest, prefix)
    assert not (prefix / "bin" / "oms").exists()
    assert not (prefix / "bin" / "oms").is_symlink()


@pytest.mark.parametrize("name", ["pr\u00e9fix", "tab\there"])
def test_a_prefix_no_launch_could_name_is_refused_before_anything_is_installed(
    tmp_path: Path, name: str
) -> None:
    """Every launch writes the oms executable's real path on a command line, which holds printable
    ASCII only (ADR 0031): an install under another character would be refused at every launch,
    so the installer refuses it first, with nothing copied or linked."""
    installer = freeze()
    bundle, digest = fake_bundle(tmp_path / "dist", "b")
    prefix = tmp_path / name
    with pytest.raises(SystemExit, match="not printable ASCII"):
        installer.install(bundle, digest, prefix)
    assert not prefix.exists()


@pytest.mark.parametrize("where", ["the build's own name", "an older build's name"])
def test_a_link_planted_among_the_builds_is_never_followed(tmp_path: Path, where: str) -> None:
    """A link in `P/lib/oms` (to a copy of the same build elsewhere, which could change after) is
    neither taken for the installed build nor removed through: the build is copied in under its
    name, the link goes, and what it pointed to is untouched. (Before: a traceback either way,
    from the digest of a link and from `rmtree` of one.)"""
    installer = freeze()
    bundle, digest = fake_bundle(tmp_path / "dist", "b")
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(bundle, elsewhere, symlinks=True)
    lib = tmp_path / "prefix" / "lib" / "oms"
    lib.mkdir(parents=True)
    name = digest[:16] if where == "the build's own name" else "0123456789abcdef"
    (lib / name).symlink_to(elsewhere)
    link, changed = installer.install(bundle, digest, tmp_path / "prefix")
    assert changed is True
    installed = link.resolve().parent
    assert installed == lib / digest[:16]
    assert not installed.is_symlink()
    assert tree_digest(str(installed)) == digest
    assert tree_digest(str(elsewhere)) == digest  # untouched
    assert sorted(p.name for p in lib.iterdir()) == [digest[:16]]


def test_the_directories_it_makes_no_one_else_can_write_whatever_the_umask(
    tmp_path: Path,
) -> None:
    """Under umask 000 the installer made `P`, `P/lib` and the rest open to everyone, then refused
    its own directories ("another user can write there"), leaving them open; each directory it
    makes is 0755 from the start."""
    installer = freeze()
    bundle, digest = fake_bundle(tmp_path / "dist", "b")
    prefix = tmp_path / "new" / "prefix"
    umask = os.umask(0)
    try:
        link, _ = installer.install(bundle, digest, prefix)
    finally:
        os.umask(umask)
    assert link.is_symlink()
    made = [tmp_path / "new", prefix, prefix / "lib", prefix / "lib" / "oms", prefix / "bin"]
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in made} == {"0o755"}


def test_a_link_to_nowhere_in_the_prefix_is_refused_in_one_line(tmp_path: Path) -> None:
    installer = freeze()
    bundle, digest = fake_bundle(tmp_path / "dist", "b")
    prefix = tmp_path / "prefix"
    prefix.mkdir()
    (prefix / "bin").symlink_to(tmp_path / "gone")
    with pytest.raises(SystemExit, match="No such file or directory, so oms is not installed"):
        installer.install(bundle, digest, prefix)
    assert not (tmp_path / "gone").exists()
