"""Attack case 17 of SECURITY.md: power-loss ordering of a publish.

The data is fsynced before the file gets its final name, and the directory is fsynced after, for
every publisher."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oms.fsio import Publisher, Root
from oms.fsio._syscalls import Syscalls
from tests.helpers import make_options


class Recorder(Syscalls):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, object]] = []

    def fsync(self, fd: int) -> None:
        kind = "fsync-dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync-file"
        self.calls.append((kind, fd))
        super().fsync(fd)

    def link_fd(self, fd: int, dst_dir_fd: int, name: str) -> None:
        self.calls.append(("name", name))
        super().link_fd(fd, dst_dir_fd, name)

    def renameat2(self, olddirfd: int, old: str, newdirfd: int, new: str, flags: int) -> None:
        self.calls.append(("name", new))
        super().renameat2(olddirfd, old, newdirfd, new, flags)

    def link(self, src_dir_fd: int, src: str, dst_dir_fd: int, dst: str) -> None:
        self.calls.append(("name", dst))
        super().link(src_dir_fd, src, dst_dir_fd, dst)

    def unlink(self, dir_fd: int, name: str) -> None:
        self.calls.append(("unlink", name))
        super().unlink(dir_fd, name)


@pytest.mark.parametrize("publisher", [Publisher.TMPFILE, Publisher.RENAME, Publisher.LINK])
def test_case17_fsync_file_then_name_then_fsync_dir(
    tmp_path: Path, resolver: str, publisher: Publisher
) -> None:
    (tmp_path / "r").mkdir(mode=0o700)
    rec = Recorder()
    opts = make_options(resolver, publisher)
    opts.syscalls = rec
    with Root.open(str(tmp_path / "r"), options=opts) as root:
        root.publish("final.json", b"{}")
    kinds = [kind for kind, _ in rec.calls]
    assert kinds.index("fsync-file") < kinds.index("name")
    assert kinds.index("name") < len(kinds) - 1 - kinds[::-1].index("fsync-dir")
    assert ("name", "final.json") in rec.calls
    assert kinds[-1] == "fsync-dir"
    if publisher is Publisher.LINK:
        assert kinds.index("name") < kinds.index(
            "unlink"
        )  # the temp name goes only after the final one exists
