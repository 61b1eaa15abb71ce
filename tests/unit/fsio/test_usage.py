"""`fsio/usage.py`: what an agent's trees hold on disk, measured without following a link (ADR
0025)."""

from __future__ import annotations

import os
from pathlib import Path

from oms.fsio.usage import TreeWalk

MIB = 1024 * 1024


def _walk(
    *tops: Path,
    entries: int = 10_000,
    depth: int = 64,
    links: int = 100,
    step: int = 7,
) -> TreeWalk:
    walk = TreeWalk(tuple(str(t) for t in tops), max_entries=entries, max_depth=depth, links=links)
    while not walk.step(step):
        pass
    return walk


def _blocks(path: Path) -> int:
    return os.lstat(path).st_blocks * 512


def test_allocated_blocks_are_counted_across_trees(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    (a / "deep" / "er").mkdir(parents=True)
    b.mkdir()
    (a / "deep" / "er" / "one").write_bytes(b"x" * MIB)
    (b / "two").write_bytes(b"y" * (2 * MIB))
    walk = _walk(a, b)
    assert walk.beyond is None
    assert walk.entries == 4  # deep, er, one; two
    assert walk.bytes >= 3 * MIB
    every = (a, a / "deep", a / "deep" / "er", a / "deep" / "er" / "one", b, b / "two")
    expected = sum(_blocks(p) for p in every)
    assert walk.bytes == expected


def test_a_sparse_file_counts_what_it_holds_not_its_size(tmp_path: Path) -> None:
    with (tmp_path / "sparse").open("wb") as f:
        f.truncate(1 << 40)  # 1 TiB long, nothing in it
    assert _walk(tmp_path).bytes < MIB


def test_a_symlink_is_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "big").write_bytes(b"z" * (4 * MIB))
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "to-dir").symlink_to(outside)
    (tree / "to-file").symlink_to(outside / "big")
    walk = _walk(tree)
    assert walk.bytes < MIB
    assert walk.entries == 2


def test_a_hard_linked_file_counts_once(tmp_path: Path) -> None:
    (tmp_path / "one").write_bytes(b"h" * (2 * MIB))
    for i in range(5):
        os.link(tmp_path / "one", tmp_path / f"link{i}")
    walk = _walk(tmp_path)
    assert 2 * MIB <= walk.bytes < 3 * MIB
    beyond_memory = _walk(tmp_path, links=0)  # not remembered: counted each time (over, not under)
    assert beyond_memory.bytes >= 12 * MIB


def test_too_many_entries_or_too_deep_is_beyond_measure(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"f{i}").write_bytes(b"")
    assert _walk(tmp_path, entries=20).beyond == "more than 20 entries"
    deep = tmp_path / "d"
    path = deep
    for i in range(12):
        path = path / str(i)
    path.mkdir(parents=True)
    assert _walk(deep, depth=8).beyond == "deeper than 8 levels"
    assert _walk(deep, depth=64).beyond is None


def test_a_directory_swapped_for_a_symlink_mid_walk_is_not_followed(tmp_path: Path) -> None:
    """The agent writes while oms measures: a directory listed, then swapped for a link to a host
    directory before the walk opens it, is skipped (`O_NOFOLLOW`), never measured through the link.
    """
    host = tmp_path / "host"
    host.mkdir()
    (host / "secret-big").write_bytes(b"s" * (8 * MIB))
    tree = tmp_path / "tree"
    (tree / "a").mkdir(parents=True)
    (tree / "b").mkdir()
    for name in ("a", "b"):
        for i in range(20):
            (tree / name / f"f{i}").write_bytes(b"")
    walk = TreeWalk((str(tree),), max_entries=10_000, max_depth=64, links=100)
    walk.step(1)  # the first entry of the top is counted; the others are listed, not yet opened
    for name in ("a", "b"):  # whichever is still to come: swapped for a link to the host's
        (tree / name).rename(tmp_path / f"moved-{name}")
        (tree / name).symlink_to(host)
    while not walk.step(3):
        pass
    assert walk.bytes < 8 * MIB, walk.bytes


def test_close_releases_every_descriptor(tmp_path: Path) -> None:
    path = tmp_path
    for i in range(10):
        path = path / str(i)
    path.mkdir(parents=True)
    before = len(os.listdir("/proc/self/fd"))
    walk = TreeWalk((str(tmp_path),), max_entries=10_000, max_depth=64, links=100)
    walk.step(5)
    assert len(os.listdir("/proc/self/fd")) > before
    walk.close()
    assert len(os.listdir("/proc/self/fd")) == before
