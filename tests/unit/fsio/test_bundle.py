"""The digest that names a build (`fsio/bundle.py`, docs/adr/0033): the same files give the same
digest wherever and in whatever order they were written; any change of a name, content, mode or link
target gives another; it follows no link and refuses what is neither file, directory nor link."""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oms.errors import UnsafeFileError
from oms.fsio.bundle import file_digest, read_bundle_file, tree_digest

NAMES = st.sampled_from(["a", "b", "a-b", "a.b", "_internal", "oms", "é"])
RELS = st.lists(NAMES, min_size=1, max_size=3).map("/".join)
CONTENT = st.tuples(st.binary(max_size=64), st.booleans())
FILES = st.dictionaries(RELS, CONTENT, min_size=1, max_size=8)


def _write(top: Path, files: dict[str, tuple[bytes, bool]], seed: int) -> bool:
    """Write `files` below `top` in a shuffled order; False when two paths clash (a file and a
    directory of one name)."""
    items = list(files.items())
    random.Random(seed).shuffle(items)
    for rel, (content, executable) in items:
        path = top / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            return False
        path.chmod(0o755 if executable else 0o644)
    return True


@settings(max_examples=60, deadline=None)
@given(files=FILES, seed=st.integers(0, 1000))
def test_the_same_files_give_the_same_digest_a_change_another(
    files: dict[str, tuple[bytes, bool]],
    seed: int,
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        one, two = Path(scratch, "one"), Path(scratch, "two")
        one.mkdir()
        two.mkdir()
        if not _write(one, files, seed):
            return
        assert _write(two, files, seed + 1)
        assert tree_digest(str(one)) == tree_digest(str(two))
        rel = sorted(files)[seed % len(files)]
        content, executable = files[rel]
        (two / rel).write_bytes(content + b"x")
        assert tree_digest(str(one)) != tree_digest(str(two))
        (two / rel).write_bytes(content)
        (two / rel).chmod(0o644 if executable else 0o755)
        assert tree_digest(str(one)) != tree_digest(str(two))


def test_a_copy_with_its_links_has_the_digest_a_renamed_file_or_link_another(
    tmp_path: Path,
) -> None:
    top = tmp_path / "bundle"
    (top / "_internal").mkdir(parents=True)
    (top / "oms").write_bytes(b"\x7fELF")
    (top / "_internal" / "libz.so.1.3").write_bytes(b"z")
    (top / "_internal" / "libz.so.1").symlink_to("libz.so.1.3")
    copy = tmp_path / "copy"
    shutil.copytree(top, copy, symlinks=True)
    assert tree_digest(str(top)) == tree_digest(str(copy))
    (copy / "_internal" / "libz.so.1").unlink()
    (copy / "_internal" / "libz.so.1").symlink_to("/usr/lib/libz.so.1")
    assert tree_digest(str(top)) != tree_digest(str(copy))
    (copy / "_internal" / "libz.so.1").unlink()
    (copy / "_internal" / "libz.so.1").symlink_to("libz.so.1.3")
    (copy / "oms").rename(copy / "oms2")
    assert tree_digest(str(top)) != tree_digest(str(copy))
    (copy / "oms2").rename(copy / "oms")
    (copy / "empty").mkdir()
    assert tree_digest(str(top)) != tree_digest(str(copy))  # an empty directory counts too


def test_a_link_is_named_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"secret")
    top = tmp_path / "bundle"
    top.mkdir()
    (top / "link").symlink_to(outside)
    before = tree_digest(str(top))
    outside.write_bytes(b"changed")
    assert tree_digest(str(top)) == before
    with pytest.raises(UnsafeFileError):
        file_digest(str(top / "link"))


def test_a_fifo_is_refused_not_read(tmp_path: Path) -> None:
    top = tmp_path / "bundle"
    top.mkdir()
    os.mkfifo(top / "pipe")
    with pytest.raises(UnsafeFileError, match="neither a file, a directory nor a link"):
        tree_digest(str(top))


def test_build_information_is_small_or_refused(tmp_path: Path) -> None:
    assert read_bundle_file(str(tmp_path / "absent.json")) is None
    (tmp_path / "info.json").write_bytes(b"{}")
    assert read_bundle_file(str(tmp_path / "info.json")) == b"{}"
    (tmp_path / "big.json").write_bytes(b" " * 5000)
    with pytest.raises(Exception, match="more than 4096 bytes"):
        read_bundle_file(str(tmp_path / "big.json"))
