"""Root behaviour beyond the attack cases: opening roots, private directories, scanning,
unlinking."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from oms.errors import FsioError, NotFoundError, PathEscapeError, UnsafeFileError
from oms.fsio import FsioOptions, Publisher, Resolver, Root
from tests.helpers import make_foreign, make_options


def test_open_creates_private_root_despite_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        with Root.open(str(tmp_path / "a" / "b"), create=True) as root:
            root.mkdirs("x/y")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "a" / "b").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(tmp_path / "a" / "b" / "x" / "y").st_mode) == 0o700


def test_open_refuses_symlinked_root(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir(mode=0o700)
    os.symlink(tmp_path / "real", tmp_path / "alias")
    with pytest.raises(PathEscapeError):
        Root.open(str(tmp_path / "alias"))


def test_open_refuses_loose_private_root(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir(mode=0o755)
    os.chmod(tmp_path / "r", 0o755)
    with pytest.raises(UnsafeFileError, match="0755"):
        Root.open(str(tmp_path / "r"))
    Root.open(str(tmp_path / "r"), private=False).close()


def test_open_missing_root(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        Root.open(str(tmp_path / "nope"))


def test_mkdirs_refuses_loose_existing_directory(tmp_path: Path, resolver: str) -> None:
    (tmp_path / "r" / "loose").mkdir(parents=True, mode=0o700)
    os.chmod(tmp_path / "r", 0o700)
    os.chmod(tmp_path / "r" / "loose", 0o777)
    with Root.open(str(tmp_path / "r"), options=make_options(resolver)) as root:
        with pytest.raises(UnsafeFileError, match="open to others"):
            root.mkdirs("loose/inner")
    assert not (tmp_path / "r" / "loose" / "inner").exists()


@pytest.mark.foreign_owner
def test_mkdirs_refuses_foreign_owned_directory(tmp_path: Path) -> None:
    (tmp_path / "r" / "theirs").mkdir(parents=True, mode=0o700)
    os.chmod(tmp_path / "r", 0o700)
    uid = make_foreign(tmp_path / "r" / "theirs")
    with (
        Root.open(str(tmp_path / "r")) as root,
        pytest.raises(UnsafeFileError, match=f"owned by uid {uid}"),
    ):
        root.mkdirs("theirs/x")


def test_read_refuses_foreign_owned_and_loose_files(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    (tmp_path / "r" / "loose").write_bytes(b"x")
    os.chmod(tmp_path / "r" / "loose", 0o644)
    with Root.open(str(tmp_path / "r")) as root:
        with pytest.raises(UnsafeFileError, match="open to others"):
            root.read_bytes("loose", 10)
    with Root.open(str(tmp_path / "r"), private=False) as root:
        assert root.read_bytes("loose", 10) == b"x"


def test_publish_then_read_all_publishers(tmp_path: Path, resolver: str) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    for i, publisher in enumerate((Publisher.TMPFILE, Publisher.RENAME, Publisher.LINK)):
        with Root.open(str(tmp_path / "r"), options=make_options(resolver, publisher)) as root:
            root.mkdirs("d")
            file_id = root.publish(f"d/f{i}", b"payload" * 1000)
            assert root.read_bytes(f"d/f{i}", 7000) == b"payload" * 1000
            st = os.stat(tmp_path / "r" / "d" / f"f{i}")
            assert (st.st_dev, st.st_ino) == (file_id.dev, file_id.ino)
            assert stat.S_IMODE(st.st_mode) == 0o600
    assert sorted(os.listdir(tmp_path / "r" / "d")) == ["f0", "f1", "f2"]


def test_publish_needs_existing_directory(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    with Root.open(str(tmp_path / "r")) as root, pytest.raises(NotFoundError):
        root.publish("missing/f", b"x")


def test_unlink_only_the_expected_inode(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    with Root.open(str(tmp_path / "r")) as root:
        first = root.publish("f", b"1")
        other = root.publish("g", b"2")
        assert not root.unlink("f", expect=other)  # the name holds another inode: left alone
        assert root.read_bytes("f", 10) == b"1"
        assert root.unlink("f", expect=first)
        assert not root.unlink("f")
        root.mkdirs("d")
        with pytest.raises(UnsafeFileError):
            root.unlink("d")


def test_scan_and_listdir(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    with Root.open(str(tmp_path / "r")) as root:
        root.mkdirs("d")
        root.publish("d/b", b"")
        root.publish("d/a", b"")
        assert root.listdir("d") == ["a", "b"]
        assert [name for name, _ in root.scan("d")] == ["a", "b"]
        assert root.exists("d/a")
        assert not root.exists("d/c")
        with pytest.raises(NotFoundError):
            root.listdir("nope")


def test_closed_root_refuses_work(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    root = Root.open(str(tmp_path / "r"))
    root.close()
    root.close()
    with pytest.raises(FsioError, match="closed"):
        root.listdir("")


def test_options_from_env() -> None:
    opts = FsioOptions.from_env({"OMS_FSIO_RESOLVER": "walk", "OMS_FSIO_PUBLISH": "link"})
    assert (opts.resolver, opts.publisher) == (Resolver.WALK, Publisher.LINK)
    with pytest.raises(FsioError, match="strategy"):
        FsioOptions.from_env({"OMS_FSIO_RESOLVER": "yolo"})


def test_forced_openat2_without_kernel_support_fails_closed(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    (tmp_path / "r" / "f").write_bytes(b"x")
    opts = make_options("auto-enosys")
    opts.resolver = Resolver.OPENAT2
    with Root.open(str(tmp_path / "r"), options=opts) as root, pytest.raises(FsioError):
        root.read_bytes("f", 10)
