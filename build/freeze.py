"""Build the frozen oms (onedir dist/oms/ and onefile dist/oms-onefile) reproducibly.

    python build/freeze.py                      # build into dist/
    python build/freeze.py --check-reproducible # and again from a copy elsewhere; digests must match

SOURCE_DATE_EPOCH comes from the last commit (or 1700000000 outside git) and PYTHONHASHSEED=0, so two
builds of the same tree give the same bytes. The digests are written to dist/SHA256SUMS.

`--check-reproducible` builds the second time from a copy of this tree (the files git tracks or would
track) at another path, with a venv of its own there holding exactly this venv's packages: nothing of the
checkout's or the venv's path, nor how pip installed a package, may reach the bundle (the spec drops pip's
installation records from every `*.dist-info`: RECORD's hashes cover console scripts whose shebang names
the venv; REQUESTED depends on how the package was asked for).
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


def differing(a: Path, b: Path) -> list[str]:
    """The relative paths whose content, mode or presence differs between two directories."""

    def files(root: Path) -> dict[str, str]:
        out = {}
        for item in root.rglob("*"):
            if item.is_file() and not item.is_symlink():
                out[item.relative_to(root).as_posix()] = f"{item.stat().st_mode & 0o777:o} {file_digest(item)}"
        return out

    left, right = files(a), files(b)
    return sorted(k for k in left.keys() | right.keys() if left.get(k) != right.get(k))


def file_digest(path: Path) -> str:
    """sha256 of one file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(dist: Path, work: Path, repo: Path = REPO, python: str = sys.executable) -> dict[str, str]:
    """Run PyInstaller once (on the tree at `repo`, with `python`); return the digests of both outputs."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": source_date_epoch(), "PYTHONHASHSEED": "0"}
    env.pop("VIRTUAL_ENV", None)
    subprocess.run(
        [
            python,
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
            str(repo / SPEC.relative_to(REPO)),
        ],
        cwd=repo,
        env=env,
        check=True,
    )
    return {"oms/": tree_digest(dist / "oms"), "oms-onefile": file_digest(dist / "oms-onefile")}


def elsewhere(scratch: Path) -> tuple[Path, str]:
    """A copy of this tree at another path with its own venv (this venv's exact packages, oms editable
    from the copy, as `.ci/setup` makes it); (the copy, its python)."""
    copy = scratch / "elsewhere" / "checkout"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout
    for rel in filter(None, listed.decode().split("\0")):
        source = REPO / rel
        if source.is_file():  # a tracked file deleted in the working tree is not built either
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / rel)
    venv = copy / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    frozen = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--exclude-editable", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (scratch / "requirements.txt").write_text(frozen)
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    for args in (["-r", str(scratch / "requirements.txt")], ["--no-deps", "-e", str(copy)]):
        done = subprocess.run([*pip, *args], capture_output=True, text=True, check=False)
        if done.returncode != 0:  # pip's own output only when it failed (its warnings are noise here)
            sys.stderr.write(done.stdout + done.stderr)
            raise SystemExit(f"pip install {' '.join(args)} failed in the second venv")
    return copy, python


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
        copy, python = elsewhere(Path(scratch))
        print(f"building again from {copy} with its own venv")
        second_dist = Path(scratch) / "dist-b"
        second = build(second_dist, Path(scratch) / "work-b", copy, python)
        for rel in differing(args.dist / "oms", second_dist / "oms")[:20]:
            print(f"differs: oms/{rel}")
        shutil.rmtree(second_dist)
        for name in sorted(first):
            same = first[name] == second[name]
            print(f"{'same' if same else 'DIFFERENT'}  {name}  {first[name][:16]} vs {second[name][:16]}")
        return 0 if first == second else 1


if __name__ == "__main__":
    raise SystemExit(main())
