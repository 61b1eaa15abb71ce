"""How build/freeze.py installs a onedir build (docs/adr/0033), on real files: a new build replaces
the old one with one rename of the link, so `P/bin/oms` always names a whole build, even to a reader
that looks while builds are installed one after another; the build it replaced is kept, older ones
removed; the same build again changes nothing; a damaged copy is installed again."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from oms.fsio.bundle import tree_digest
from tests.helpers import REPO

FILES = 40  # files in each fake bundle's _internal: a copy takes a while, a reader sees it


def freeze() -> ModuleType:
    """build/freeze.py, imported."""
    spec = importlib.util.spec_from_file_location("oms_build_freeze", REPO / "build" / "freeze.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_bundle(where: Path, name: str) -> tuple[Path, str]:
    """A onedir-shaped tree (an `oms` and `_internal/`) that says `name`; (it, its digest)."""
    top = where / name
    (top / "_internal").mkdir(parents=True)
    (top / "oms").write_text(f"#!/bin/sh\necho {name}\n")
    (top / "oms").chmod(0o755)
    for i in range(FILES):
        (top / "_internal" / f"part-{i:03}").write_text(f"{name} {i}\n" * 50)
    return top, tree_digest(str(top))


READER = """
import os, sys
link, stop, files = sys.argv[1], sys.argv[2], int(sys.argv[3])
looks, bad, seen = 0, [], set()
while not os.path.exists(stop):
    looks += 1
    try:
        target = os.readlink(link)
    except OSError as exc:
        bad.append(f"the link is missing: {exc}")
        continue
    build = os.path.join(os.path.dirname(link), os.path.dirname(target))
    try:
        parts = len(os.listdir(os.path.join(build, "_internal")))
    except FileNotFoundError:
        parts = -1
    try:
        again = os.readlink(link)
    except OSError as exc:
        bad.append(f"the link is missing: {exc}")
        continue
    if again == target:  # it was the current build all along
        seen.add(target)
        if parts != files:
            bad.append(f"{target}: {parts} of {files} files while current")
print(looks, len(seen), *sorted(set(bad))[:5], sep="\\n")
"""
SWAPS = 200  # link swaps between two installed builds: each a window a non-atomic swap would open


def test_a_reader_always_finds_a_whole_build_while_builds_replace_each_other(
    tmp_path: Path,
) -> None:
    installer = freeze()
    prefix = tmp_path / "prefix"
    bundles = [fake_bundle(tmp_path / "dist", f"build{i:02}") for i in range(12)]
    link, stop = prefix / "bin" / "oms", tmp_path / "stop"
    installer.install(*bundles[0], prefix)
    reader = subprocess.Popen(  # another process: it looks while the installer works, on any core
        [sys.executable, "-c", READER, str(link), str(stop), str(FILES)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        for bundle, digest in bundles[1:]:  # each copied in, then linked
            assert installer.install(bundle, digest, prefix) == (link, True)
        for i in range(SWAPS):  # the last two, both kept: only the link changes
            assert installer.install(*bundles[-2 + i % 2], prefix) == (link, True)
    finally:
        stop.touch()
        out, _ = reader.communicate(timeout=60)
    looks, seen, *bad = out.splitlines()
    assert bad == []
    assert int(looks) > SWAPS
    assert int(seen) > 1  # the reader looked while builds changed
    lib = prefix / "lib" / "oms"
    kept = sorted(p.name for p in lib.iterdir())
    assert kept == sorted(d[:16] for _, d in bundles[-2:])  # the current and the one it replaced
    assert sorted(p.name for p in link.parent.iterdir()) == ["oms"]  # no staging link left
    assert tree_digest(str(lib / bundles[-1][1][:16])) == bundles[-1][1]


def test_the_same_build_again_changes_nothing_a_damaged_copy_is_installed_again(
    tmp_path: Path,
) -> None:
    installer = freeze()
    prefix = tmp_path / "prefix"
    bundle, digest = fake_bundle(tmp_path / "dist", "only")
    link, changed = installer.install(bundle, digest, prefix)
    assert changed is True
    installed = prefix / "lib" / "oms" / digest[:16]
    before = (installed.stat().st_ino, link.lstat().st_ino)
    assert installer.install(bundle, digest, prefix) == (link, False)
    assert (installed.stat().st_ino, link.lstat().st_ino) == before
    (installed / "_internal" / "part-007").write_text("edited\n")
    assert installer.install(bundle, digest, prefix) == (link, True)
    assert tree_digest(str(installed)) == digest


def test_an_older_build_a_process_runs_from_is_kept_until_it_ends(tmp_path: Path) -> None:
    """A worker's hooks and bridge name the build it started from (`oms_executable` is a real
    path): removed under it, they would fail, and an agent CLI lets a failing hook's tool run."""
    installer = freeze()
    prefix = tmp_path / "prefix"
    bundles = [fake_bundle(tmp_path / "dist", f"build{i}") for i in range(4)]
    for bundle, _ in bundles:  # a real program as each build's `oms`: its path is the exe's
        (bundle / "oms").write_bytes(Path("/bin/sleep").read_bytes())
    bundles = [(bundle, tree_digest(str(bundle))) for bundle, _ in bundles]
    link, _ = installer.install(*bundles[0], prefix)
    worker = subprocess.Popen([str(link), "600"])  # runs from build0, by its real path
    lib = prefix / "lib" / "oms"
    try:
        installer.install(*bundles[1], prefix)
        installer.install(*bundles[2], prefix)  # build0 is two back now: kept, it is in use
        names = {d[:16] for _, d in bundles}
        assert {p.name for p in lib.iterdir()} == names - {bundles[3][1][:16]}
    finally:
        worker.kill()
        worker.wait()
    installer.install(*bundles[3], prefix)  # build0 and build1 go once nothing runs from them
    assert sorted(p.name for p in lib.iterdir()) == sorted(d[:16] for _, d in bundles[2:])
