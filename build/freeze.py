"""Build the frozen oms (onedir dist/oms/ and onefile dist/oms-onefile) reproducibly.

    python build/freeze.py                      # build into dist/
    python build/freeze.py --check-reproducible # build twice in different work dirs; digests must match

SOURCE_DATE_EPOCH comes from the last commit (or 1700000000 outside git) and PYTHONHASHSEED=0, so two
builds of the same tree give the same bytes. The digests are written to dist/SHA256SUMS.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SPEC = REPO / "build" / "oms.spec"


def source_date_epoch() -> str:
    """The commit time of HEAD, so a rebuild of the same commit stamps the same time."""
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%ct"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        out = ""
    return out or "1700000000"


def tree_digest(path: Path) -> str:
    """sha256 over every file of a directory: relative path, mode and content (or link target)."""
    h = hashlib.sha256()
    for item in sorted(path.rglob("*")):
        rel = item.relative_to(path).as_posix()
        st = item.lstat()
        if item.is_symlink():
            h.update(f"L {rel} {os.readlink(item)}\n".encode())
        elif item.is_file():
            h.update(f"F {rel} {st.st_mode & 0o777:o} {hashlib.sha256(item.read_bytes()).hexdigest()}\n".encode())
        else:
            h.update(f"D {rel}\n".encode())
    return h.hexdigest()


def file_digest(path: Path) -> str:
    """sha256 of one file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(dist: Path, work: Path) -> dict[str, str]:
    """Run PyInstaller once; return the digests of both outputs."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": source_date_epoch(), "PYTHONHASHSEED": "0"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--clean",
            "--log-level",
            "WARN",
            "--workpath",
            str(work),
            "--distpath",
            str(dist),
            str(SPEC),
        ],
        cwd=REPO,
        env=env,
        check=True,
    )
    return {"oms/": tree_digest(dist / "oms"), "oms-onefile": file_digest(dist / "oms-onefile")}


def write_sums(dist: Path, sums: dict[str, str]) -> None:
    """dist/SHA256SUMS: one line per output."""
    (dist / "SHA256SUMS").write_text("".join(f"{digest}  {name}\n" for name, digest in sorted(sums.items())))


def main() -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=REPO / "dist")
    parser.add_argument("--check-reproducible", action="store_true")
    args = parser.parse_args()
    generated = subprocess.run([sys.executable, str(REPO / "build" / "gen_validators.py"), "--check"], check=False)
    if generated.returncode != 0:  # the frozen binary must carry the validators the schemas give
        return 1
    with tempfile.TemporaryDirectory(prefix="oms-freeze-") as scratch:
        first = build(args.dist, Path(scratch) / "work-a")
        write_sums(args.dist, first)
        for name, digest in sorted(first.items()):
            print(f"{digest}  {name}")
        if not args.check_reproducible:
            return 0
        second_dist = Path(scratch) / "dist-b"
        second = build(second_dist, Path(scratch) / "elsewhere" / "work-b")
        shutil.rmtree(second_dist)
        for name in sorted(first):
            same = first[name] == second[name]
            print(f"{'same' if same else 'DIFFERENT'}  {name}  {first[name][:16]} vs {second[name][:16]}")
        return 0 if first == second else 1


if __name__ == "__main__":
    raise SystemExit(main())
