"""Attack cases 1-5, 7-16 and 18-19 (SECURITY.md, Attack cases) against fsio.

Every test runs three times (the `resolver` fixture): openat2, the forced component walk, and `auto`
on a kernel whose openat2 fails with ENOSYS (case 15: the fallback must pass every case too).
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from oms.errors import (
    AlreadyExistsError,
    FileTooLargeError,
    FsioError,
    LockHeldError,
    NotFoundError,
    PathEscapeError,
    PathRejectedError,
    UnsafeFileError,
)
from oms.fsio import Publisher, Resolver, Root
from oms.fsio._syscalls import RENAME_EXCHANGE, Syscalls
from oms.fsio.locks import acquire
from tests.helpers import make_foreign, make_options

SECRET = b"TOP-SECRET-OUTSIDE-THE-ROOT"


@dataclass
class World:
    """A root directory beside an `outside` directory holding a secret."""

    base: Path
    root_path: Path
    outside: Path
    root: Root


@pytest.fixture
def world(tmp_path: Path, resolver: str) -> Iterator[World]:
    root_path = tmp_path / "root"
    outside = tmp_path / "outside"
    root_path.mkdir(mode=0o700)
    outside.mkdir()
    (outside / "secret").write_bytes(SECRET)
    (root_path / "dir").mkdir(mode=0o700)
    (root_path / "dir" / "ok.txt").write_bytes(b"ok")
    os.chmod(root_path / "dir" / "ok.txt", 0o600)
    root = Root.open(str(root_path), options=make_options(resolver))
    yield World(tmp_path, root_path, outside, root)
    root.close()


def _no_secret_read(world: World, rel: str) -> None:
    """Reading `rel` must fail with a refusal, never return the secret."""
    with pytest.raises((PathEscapeError, PathRejectedError, NotFoundError, UnsafeFileError)):
        data = world.root.read_bytes(rel, 1024)
        assert data != SECRET, "escaped the root"


# ---------------------------------------------------------------- case 1: lexical escapes
@pytest.mark.parametrize(
    "rel",
    [
        "../outside/secret",
        "dir/../../outside/secret",
        "dir/..",
        "../",
        "/etc/passwd",
        str(Path("/") / "etc" / "passwd"),
        "..",
    ],
)
def test_case01_dotdot_and_absolute_rejected_before_any_syscall(world: World, rel: str) -> None:
    with pytest.raises(PathRejectedError):
        world.root.read_bytes(rel, 1024)
    with pytest.raises(PathRejectedError):
        world.root.publish(rel, b"x")


# ---------------------------------------------------------------- case 2: leaf symlinks
@pytest.mark.parametrize("target", ["absolute", "relative"])
def test_case02_leaf_symlink_to_outside_refused(world: World, target: str) -> None:
    dest = str(world.outside / "secret") if target == "absolute" else "../../outside/secret"
    os.symlink(dest, world.root_path / "dir" / "link")
    with pytest.raises(PathEscapeError):
        world.root.read_bytes("dir/link", 1024)


def test_case02_in_tree_symlink_also_refused(world: World) -> None:
    os.symlink("ok.txt", world.root_path / "dir" / "alias")
    with pytest.raises(PathEscapeError):
        world.root.read_bytes("dir/alias", 1024)


# ---------------------------------------------------------------- case 3: intermediate symlinks
def test_case03_symlinked_directory_refused(world: World) -> None:
    os.symlink(str(world.outside), world.root_path / "abs_dirlink")
    _no_secret_read(world, "abs_dirlink/secret")
    with pytest.raises(PathEscapeError):
        world.root.publish("abs_dirlink/planted", b"x")
    assert not (world.outside / "planted").exists()


def test_case03_plain_o_nofollow_would_leak(world: World) -> None:
    """The pitfall the walk avoids: O_NOFOLLOW guards only the last component."""
    os.symlink(str(world.outside), world.root_path / "abs_dirlink")
    fd = os.open(world.root_path / "abs_dirlink" / "secret", os.O_RDONLY | os.O_NOFOLLOW)
    try:
        assert os.read(fd, 100) == SECRET
    finally:
        os.close(fd)
    _no_secret_read(world, "abs_dirlink/secret")


# ---------------------------------------------------------------- case 4: loops
def test_case04_symlink_loop_is_an_error(world: World) -> None:
    os.symlink("a", world.root_path / "a")
    with pytest.raises(PathEscapeError):
        world.root.read_bytes("a", 10)
    with pytest.raises(PathEscapeError):
        world.root.read_bytes("a/b", 10)


# ----------------------------------------------------------- case 5: create through a dangling link
def test_case05_create_through_dangling_symlink_creates_nothing_outside(world: World) -> None:
    target = world.outside / "newfile3"
    os.symlink(str(target), world.root_path / "dir" / "creatlink")
    with pytest.raises(AlreadyExistsError):
        world.root.publish("dir/creatlink", b"planted")
    assert not target.exists()
    os.symlink(str(world.outside / "newdir"), world.root_path / "dirlink")
    with pytest.raises(PathEscapeError):
        world.root.mkdirs("dirlink/sub")
    assert not (world.outside / "newdir").exists()


# ---------------------------------------------------------------- case 7: rename races with ..
def test_case07_dotdot_never_reaches_a_syscall(tmp_path: Path) -> None:
    calls: list[str] = []

    class Recorder(Syscalls):
        def openat2(self, dirfd: int, path: str, flags: int, mode: int, resolve: int) -> int:
            calls.append(path)
            return super().openat2(dirfd, path, flags, mode, resolve)

        def open(
            self, path: str, flags: int, mode: int = 0o600, *, dir_fd: int | None = None
        ) -> int:
            calls.append(path)
            return super().open(path, flags, mode, dir_fd=dir_fd)

    (tmp_path / "r").mkdir(mode=0o700)
    opts = make_options("openat2")
    opts.syscalls = Recorder()
    with Root.open(str(tmp_path / "r"), options=opts) as root:
        for rel in ("a/../../x", "c/../../c/../..", "a/./b", "..", "a/.."):
            with pytest.raises(PathRejectedError):
                root.read_bytes(rel, 10)
    assert not any(".." in c for c in calls)


def test_case07_directory_rename_race_never_escapes(world: World) -> None:
    """Swap two in-root directories while reading deep paths: legit content or a refusal, never the
    secret."""
    deep = world.root_path / "x" / "a" / "a" / "a"
    deep.mkdir(parents=True, mode=0o700)
    (deep / "f").write_bytes(b"inside")
    os.chmod(deep / "f", 0o600)
    (world.root_path / "y").mkdir(mode=0o700)
    os.symlink(str(world.outside), world.root_path / "y" / "a")
    sys_ = Syscalls()
    dfd = os.open(world.root_path, os.O_RDONLY | os.O_DIRECTORY)
    stop = threading.Event()

    def attacker() -> None:
        while not stop.is_set():
            sys_.renameat2(dfd, "x", dfd, "y", RENAME_EXCHANGE)

    thread = threading.Thread(target=attacker)
    thread.start()
    escapes = 0
    try:
        for _ in range(3000):
            try:
                if world.root.read_bytes("x/a/a/a/f", 100) not in (b"inside",):
                    escapes += 1
            except FsioError:
                pass
    finally:
        stop.set()
        thread.join()
        os.close(dfd)
    assert escapes == 0


# ---------------------------------------------------------------- case 8: magic links
@pytest.mark.parametrize("target", ["/proc/self/root", "/proc/self/exe", "/proc/self/cwd", "fd"])
def test_case08_magic_links_refused(world: World, target: str) -> None:
    fd = os.open(world.outside / "secret", os.O_RDONLY)
    try:
        dest = f"/proc/self/fd/{fd}" if target == "fd" else target
        os.symlink(dest, world.root_path / "magic")
        with pytest.raises(PathEscapeError):
            world.root.read_bytes("magic", 1 << 20)
        with pytest.raises(PathEscapeError):
            world.root.read_bytes("magic/etc/passwd", 1 << 20)
    finally:
        os.close(fd)


# ---------------------------------------------------------------- case 9: hard links
def test_case09_hard_link_to_a_secret_refused(world: World) -> None:
    victim = world.root_path / "victim"
    victim.write_bytes(SECRET)
    os.chmod(victim, 0o600)
    os.link(victim, world.root_path / "dir" / "hard")
    with pytest.raises(UnsafeFileError, match="links"):
        world.root.read_bytes("dir/hard", 1024)


# ---------------------------------------------------------------- case 10: FIFOs
def test_case10_fifo_neither_hangs_nor_is_read(world: World) -> None:
    os.mkfifo(world.root_path / "dir" / "fifo", 0o600)
    with pytest.raises(UnsafeFileError, match="regular"):
        world.root.read_bytes("dir/fifo", 1024)  # would block forever without O_NONBLOCK
    with pytest.raises(AlreadyExistsError):
        world.root.publish("dir/fifo", b"x")


# ---------------------------------------------------------------- case 11: devices and size caps
def test_case11_device_node_refused(world: World) -> None:
    try:
        os.mknod(world.root_path / "dir" / "zero", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except PermissionError:
        os.symlink(
            "/dev/zero", world.root_path / "dir" / "zero"
        )  # unprivileged: a link to it instead
    with pytest.raises((UnsafeFileError, PathEscapeError)):
        world.root.read_bytes("dir/zero", 1024)


def test_case11_over_long_file_is_a_capped_error(world: World) -> None:
    big = world.root_path / "dir" / "big"
    big.write_bytes(b"x" * 5000)
    os.chmod(big, 0o600)
    with pytest.raises(FileTooLargeError):
        world.root.read_bytes("dir/big", 4999)
    assert world.root.read_bytes("dir/big", 5000) == b"x" * 5000


# ---------------------------------------------------------------- case 12: malformed paths
@pytest.mark.parametrize(
    "rel",
    [
        "",
        "dir//ok.txt",
        "dir/",
        "/dir",
        "./dir",
        "dir/.",
        "d\x00ir",
        "a" * 256,
        "dir/ok txt",
        "dir/\u00e9",
        "dir\nx",
        "/".join(["a"] * 33),
    ],
)
def test_case12_malformed_paths_rejected(world: World, rel: str) -> None:
    with pytest.raises(PathRejectedError):
        world.root.read_bytes(rel, 10)


# ---------------------------------------------------------------- case 13: no-replace publish
@pytest.mark.parametrize("publisher", [Publisher.TMPFILE, Publisher.RENAME, Publisher.LINK])
@pytest.mark.parametrize("occupant", ["file", "symlink", "dangling"])
def test_case13_publish_never_replaces(
    tmp_path: Path, resolver: str, publisher: Publisher, occupant: str
) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    (tmp_path / "elsewhere").write_bytes(b"old")
    name = tmp_path / "r" / "name"
    if occupant == "file":
        name.write_bytes(b"old")
    elif occupant == "symlink":
        os.symlink(tmp_path / "elsewhere", name)
    else:
        os.symlink(tmp_path / "missing", name)
    with Root.open(str(tmp_path / "r"), options=make_options(resolver, publisher)) as root:
        with pytest.raises(AlreadyExistsError):
            root.publish("name", b"new")
        assert sorted(os.listdir(tmp_path / "r")) == ["name"]  # no temp debris
    assert (tmp_path / "elsewhere").read_bytes() == b"old"
    assert not (tmp_path / "missing").exists()
    if occupant == "file":
        assert name.read_bytes() == b"old"


# ---------------------------------------------------------------- case 14: locks and temp cleanup
def test_case14_held_lock_is_refused(world: World) -> None:
    lock = acquire(world.root, "dir/x.lock")
    with pytest.raises(LockHeldError, match="live process"):
        acquire(world.root, "dir/x.lock")
    lock.release()
    acquire(world.root, "dir/x.lock").release()


def test_case14_failed_write_leaves_no_temp(tmp_path: Path, resolver: str) -> None:
    class FailingFsync(Syscalls):
        def fsync(self, fd: int) -> None:
            raise OSError(errno.EIO, "injected I/O error")

    (tmp_path / "r").mkdir(mode=0o700)
    for publisher in (Publisher.TMPFILE, Publisher.RENAME, Publisher.LINK):
        opts = make_options(resolver, publisher)
        opts.syscalls = FailingFsync()
        with (
            Root.open(str(tmp_path / "r"), options=opts) as root,
            pytest.raises(OSError, match="injected"),
        ):
            root.publish("name", b"data")
        assert os.listdir(tmp_path / "r") == []


def test_case14_a_name_removed_between_look_and_unlink_is_gone_not_a_crash(
    tmp_path: Path, resolver: str
) -> None:
    """Two processes drop the same marker (a writer that published the next version, a reader that
    pruned it): the one that looks, then loses the unlink to the other, hears "gone" (False), not
    FileNotFoundError — a raw OSError here broke a ticket's renewal after its version was
    published."""

    class Overtaken(Syscalls):
        def unlink(self, dir_fd: int, name: str) -> None:
            os.unlink(name, dir_fd=dir_fd)  # the other process wins between the stat and ours
            super().unlink(dir_fd, name)

    (tmp_path / "r").mkdir(mode=0o700)
    opts = make_options(resolver, Publisher.TMPFILE)
    opts.syscalls = Overtaken()
    with Root.open(str(tmp_path / "r"), options=opts) as root:
        root.publish("marker.1", b"")
        assert root.unlink("marker.1") is False
    assert os.listdir(tmp_path / "r") == []


# ---------------------------------------------------------------- case 16: renameat2 unavailable
class OldFilesystem(Syscalls):
    """No O_TMPFILE and no RENAME_NOREPLACE: publishing must fall back to link+unlink."""

    def __init__(self) -> None:
        super().__init__()
        self.used: list[str] = []

    def open(self, path: str, flags: int, mode: int = 0o600, *, dir_fd: int | None = None) -> int:
        if flags & os.O_TMPFILE == os.O_TMPFILE:
            self.used.append("tmpfile")
            raise OSError(errno.EOPNOTSUPP, "injected: no O_TMPFILE")
        return super().open(path, flags, mode, dir_fd=dir_fd)

    def renameat2(self, olddirfd: int, old: str, newdirfd: int, new: str, flags: int) -> None:
        self.used.append("renameat2")
        raise OSError(errno.EINVAL, "injected: filesystem lacks RENAME_NOREPLACE")

    def link(self, src_dir_fd: int, src: str, dst_dir_fd: int, dst: str) -> None:
        self.used.append("link")
        super().link(src_dir_fd, src, dst_dir_fd, dst)


def test_case16_renameat2_einval_falls_back_to_link_and_stays_no_replace(
    tmp_path: Path, resolver: str
) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    opts = make_options(resolver, Publisher.AUTO)
    fake = OldFilesystem()
    opts.syscalls = fake
    with Root.open(str(tmp_path / "r"), options=opts) as root:
        root.publish("a", b"first")
        with pytest.raises(AlreadyExistsError):
            root.publish("a", b"second")
        root.publish("b", b"other")
        assert root.read_bytes("a", 100) == b"first"
    assert sorted(os.listdir(tmp_path / "r")) == ["a", "b"]  # no temp debris
    assert fake.used[:3] == ["tmpfile", "renameat2", "link"]
    assert fake.used.count("tmpfile") == 1  # the downgrade is remembered, not retried every time
    assert fake.used.count("renameat2") == 1


def test_case16_forced_rename_does_not_silently_downgrade(tmp_path: Path, resolver: str) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    opts = make_options(resolver, Publisher.RENAME)
    opts.syscalls = OldFilesystem()
    with Root.open(str(tmp_path / "r"), options=opts) as root, pytest.raises(FsioError):
        root.publish("a", b"1")
    assert os.listdir(tmp_path / "r") == []


# ---------------------------------------------------------------- case 18: secret files
@pytest.mark.parametrize(
    "flaw",
    [
        "mode-0644",
        "symlink",
        pytest.param("foreign-owner", marks=pytest.mark.foreign_owner),
        "short",
        "long",
        "hardlink",
    ],
)
def test_case18_unsafe_secret_refused_and_never_overwritten(
    tmp_path: Path, resolver: str, flaw: str
) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    key = tmp_path / "r" / "key"
    real = tmp_path / "real-key"
    real.write_bytes(b"k" * 32)
    os.chmod(real, 0o600)
    if flaw == "symlink":
        os.symlink(real, key)
    elif flaw == "hardlink":
        os.link(real, key)
    else:
        key.write_bytes(b"k" * (31 if flaw == "short" else 33 if flaw == "long" else 32))
        os.chmod(key, 0o644 if flaw == "mode-0644" else 0o600)
        if flaw == "foreign-owner":
            make_foreign(key)
    before = os.lstat(key)
    with Root.open(str(tmp_path / "r"), options=make_options(resolver)) as root:
        with pytest.raises((UnsafeFileError, PathEscapeError, FileTooLargeError)):
            root.read_secret("key", 32)
        with pytest.raises(AlreadyExistsError):
            root.publish("key", b"n" * 32, mode=0o600)
    after = os.lstat(key)
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


# ----------------------------------------------------------- case 19: the deliberate auth.json link
def test_case19_retargeted_or_replaced_link_detected(world: World) -> None:
    auth = world.outside / "auth.json"
    auth.write_text("{}")
    world.root.symlink("dir/auth.json", str(auth))
    assert world.root.readlink("dir/auth.json") == str(auth)
    with pytest.raises(AlreadyExistsError):
        world.root.symlink("dir/auth.json", str(world.outside / "secret"))
    os.unlink(world.root_path / "dir" / "auth.json")
    os.symlink(str(world.outside / "secret"), world.root_path / "dir" / "auth.json")
    assert world.root.readlink("dir/auth.json") != str(auth)  # the caller compares and refuses
    os.unlink(world.root_path / "dir" / "auth.json")
    (world.root_path / "dir" / "auth.json").write_text("{}")
    with pytest.raises(UnsafeFileError, match="not a symlink"):
        world.root.readlink("dir/auth.json")
    with pytest.raises(UnsafeFileError):
        world.root.symlink("dir/other", "relative/target")


# ---------------------------------------------------------------- case 15: openat2 unavailable
@pytest.mark.parametrize("err", [errno.ENOSYS, errno.EPERM, errno.E2BIG])
def test_case15_openat2_unavailable_falls_back_to_the_walk(tmp_path: Path, err: int) -> None:
    attempts: list[str] = []

    class Unavailable(Syscalls):
        def openat2(self, dirfd: int, path: str, flags: int, mode: int, resolve: int) -> int:
            attempts.append(path)
            raise OSError(err, "injected")

    (tmp_path / "r" / "d").mkdir(parents=True, mode=0o700)
    os.chmod(tmp_path / "r", 0o700)
    (tmp_path / "r" / "d" / "f").write_bytes(b"ok")
    os.chmod(tmp_path / "r" / "d" / "f", 0o600)
    os.symlink(str(tmp_path), tmp_path / "r" / "out")
    opts = make_options("openat2")
    opts.resolver = Resolver.AUTO
    opts.syscalls = Unavailable()
    with Root.open(str(tmp_path / "r"), options=opts) as root:
        assert root.read_bytes("d/f", 10) == b"ok"
        assert root.read_bytes("d/f", 10) == b"ok"
        with pytest.raises(PathEscapeError):
            root.read_bytes("out/r/d/f", 10)
    assert len(attempts) == 1, "probed once, then the walk is used for good"
