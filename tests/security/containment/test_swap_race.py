"""Attack case 6 of SECURITY.md: a thread swaps a directory and a symlink to the outside with
RENAME_EXCHANGE while oms reads and writes through that directory. 20,000 rounds per resolver:
0 reads return the outside secret, 0 writes land outside the root."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from oms.errors import FsioError
from oms.fsio import Root
from oms.fsio._syscalls import RENAME_EXCHANGE, Syscalls
from tests.helpers import make_options

ROUNDS = 20_000
SECRET = b"SECRET-OUTSIDE"


def test_case06_directory_symlink_swap_race(tmp_path: Path, resolver: str) -> None:
    root_path, outside = tmp_path / "root", tmp_path / "outside"
    root_path.mkdir(mode=0o700)
    outside.mkdir()
    (outside / "file").write_bytes(SECRET)
    (root_path / "dir").mkdir(mode=0o700)
    (root_path / "dir" / "file").write_bytes(b"inside")
    os.chmod(root_path / "dir" / "file", 0o600)
    os.symlink(str(outside), root_path / "link")
    before_outside = sorted(os.listdir(outside))

    sys_ = Syscalls()
    dfd = os.open(root_path, os.O_RDONLY | os.O_DIRECTORY)
    stop = threading.Event()
    swaps = 0

    def attacker() -> None:
        nonlocal swaps
        while not stop.is_set():
            sys_.renameat2(dfd, "dir", dfd, "link", RENAME_EXCHANGE)
            swaps += 1

    counts = {"inside": 0, "refused": 0, "escaped": 0, "written": 0, "write_refused": 0}
    root = Root.open(str(root_path), options=make_options(resolver))
    thread = threading.Thread(target=attacker, daemon=True)
    thread.start()
    try:
        for i in range(ROUNDS):
            try:
                data = root.read_bytes("dir/file", 1024)
            except FsioError:
                counts["refused"] += 1
            else:
                counts["escaped" if data == SECRET else "inside"] += 1
            try:
                root.publish(f"dir/w{i}", b"w")
                counts["written"] += 1
            except FsioError:
                counts["write_refused"] += 1
    finally:
        stop.set()
        thread.join()
        os.close(dfd)
        root.close()
    assert counts["escaped"] == 0, counts
    assert sorted(os.listdir(outside)) == before_outside, "a write escaped the root"
    assert swaps > 1000, "the attacker never got going"
    assert counts["inside"] > 0
    assert counts["refused"] > 0, "the race never hit: the test proves nothing"
    # every successful write landed in the real directory, whichever name it has right now
    real = next(root_path / n for n in ("dir", "link") if not (root_path / n).is_symlink())
    assert sum(1 for p in real.iterdir() if p.name.startswith("w")) == counts["written"]
