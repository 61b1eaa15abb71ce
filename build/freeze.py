"""Build the frozen oms (onedir dist/oms/ and onefile dist/oms-onefile) reproducibly; install it.

    python build/freeze.py                         # build into dist/
    python build/freeze.py --check-reproducible    # and again from a copy elsewhere: same digests
    python build/freeze.py --install [--prefix P]  # build unless dist/ is this tree's; install

SOURCE_DATE_EPOCH comes from the last commit (or 1700000000 outside git) and PYTHONHASHSEED=0, so
two builds of the same tree give the same bytes. The digests are written to dist/SHA256SUMS: the
onedir's is `oms.fsio.bundle.tree_digest`, the function `oms version` runs over the bundle it runs
from.

Each build carries `oms/_data/build-info.json` (schemas/build-info.schema.json): the commit,
whether the checkout had changes, a digest of the files it was built from and of the venv's
packages, the Python and PyInstaller versions and SOURCE_DATE_EPOCH. It is computed once per run,
so both builds of `--check-reproducible` carry the same bytes.

`--check-reproducible` builds the second time from a copy of this tree (the files git tracks or
would track) at another path, with a venv of its own there holding exactly this venv's packages:
nothing of the checkout's or the venv's path, nor how pip installed a package, may reach the bundle
(the spec drops pip's installation records from every `*.dist-info`: RECORD's hashes cover console
scripts whose shebang names the venv; REQUESTED depends on how the package was asked for).

`--install` (what `./.ci/setup --install` runs, docs/adr/0033) puts the onedir bundle in
`P/lib/oms/<digest>/` (P: `~/.local` by default) and links `P/bin/oms` to it. dist/ is reused when
it is this tree's build (its build information names these sources and packages, its tree matches
SHA256SUMS), else built first. The bundle is copied beside the others and checked against its digest
before it is renamed into place, and the link is replaced with one rename: `P/bin/oms` is always a
whole build, the old one or the new. The build it replaced is kept (a worker started before runs it
by its path), and so is any older one a process runs from; the rest are removed. Installing the
same build again changes nothing. Installs into one prefix take turns (a lock on `P/lib/oms`), and
so do builds into one dist/ (a lock on it): the second waits, then finds the work done.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import importlib.metadata
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from oms.fsio.bundle import file_digest, tree_digest
from oms.schemas import validate
from oms.services.workspace.launch_paths import printable
from oms.version import __version__

REPO = Path(__file__).resolve().parent.parent
SPEC = REPO / "build" / "oms.spec"
BUILD_INFO = Path("_internal", "oms", "_data", "build-info.json")  # in the onedir bundle
NAME_CHARS = 16  # an installed build's directory: the first characters of its digest
OTHER = "(choose another --prefix)"


def source_date_epoch() -> str:
    """The commit time of HEAD, so a rebuild of the same commit stamps the same time."""
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%ct"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        out = ""
    return out or "1700000000"


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout


def source_files() -> list[str]:
    """The files a build is made from: those git tracks or would track (present in the tree)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout
    return sorted(rel for rel in set(listed.decode().split("\0")) if rel and (REPO / rel).is_file())


def packages() -> str:
    """The build venv's packages, as `pip freeze` gives them (oms itself, editable, left out)."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    return subprocess.run(
        [*pip, "freeze", "--exclude-editable"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def build_info(frozen_packages: str) -> dict[str, object]:
    """The build-info document of a build of this tree now (schemas/build-info.schema.json)."""
    sources = hashlib.sha256()
    for rel in source_files():
        path = REPO / rel
        mode = path.stat().st_mode & 0o777
        sources.update(f"{rel} {mode:o} {file_digest(str(path.resolve()))}\n".encode())
    commit = (_git("rev-parse", "--verify", "-q", "HEAD") or "").strip() or None
    epoch = int(source_date_epoch())
    info: dict[str, object] = {
        "format": "oms-build-v1",
        "version": __version__,
        "commit": commit,
        "dirty": bool((_git("status", "--porcelain") or "").strip()),
        "source_sha256": sources.hexdigest(),
        "packages_sha256": hashlib.sha256(frozen_packages.encode()).hexdigest(),
        "python": sys.version.split()[0],
        "pyinstaller": importlib.metadata.version("pyinstaller"),
        "source_date_epoch": epoch,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(epoch)),
    }
    validate("build-info", info, where="build-info.json")
    return info


def differing(a: Path, b: Path) -> list[str]:
    """The relative paths whose content, mode or presence differs between two directories."""

    def files(root: Path) -> dict[str, str]:
        out = {}
        for item in root.rglob("*"):
            if item.is_file() and not item.is_symlink():
                rel = item.relative_to(root).as_posix()
                out[rel] = f"{item.stat().st_mode & 0o777:o} {file_digest(str(item))}"
        return out

    left, right = files(a), files(b)
    return sorted(k for k in left.keys() | right.keys() if left.get(k) != right.get(k))


def build(
    dist: Path,
    work: Path,
    info: Path,
    repo: Path = REPO,
    python: str = sys.executable,
) -> dict[str, str]:
    """Run PyInstaller once (on the tree at `repo`, with `python`, carrying the build information
    at `info`); return the digests of both outputs."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": source_date_epoch(), "PYTHONHASHSEED": "0"}
    env["OMS_BUILD_INFO"] = str(info)
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
    onefile = file_digest(str(dist / "oms-onefile"))
    return {"oms/": tree_digest(str(dist / "oms")), "oms-onefile": onefile}


def elsewhere(scratch: Path, frozen_packages: str) -> tuple[Path, str]:
    """A copy of this tree at another path with its own venv (this venv's exact packages, oms
    editable from the copy, as `.ci/setup` makes it); (the copy, its python)."""
    copy = scratch / "elsewhere" / "checkout"
    for rel in source_files():  # a tracked file deleted in the working tree is not built either
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, copy / rel)
    venv = copy / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    (scratch / "requirements.txt").write_text(frozen_packages)
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    for args in (["-r", str(scratch / "requirements.txt")], ["--no-deps", "-e", str(copy)]):
        done = subprocess.run([*pip, *args], capture_output=True, text=True, check=False)
        if (
            done.returncode != 0
        ):  # pip's own output only when it failed (its warnings are noise here)
            sys.stderr.write(done.stdout + done.stderr)
            raise SystemExit(f"pip install {' '.join(args)} failed in the second venv")
    return copy, python


def write_sums(dist: Path, sums: dict[str, str]) -> None:
    """dist/SHA256SUMS: one line per output."""
    lines = "".join(f"{digest}  {name}\n" for name, digest in sorted(sums.items()))
    (dist / "SHA256SUMS").write_text(lines)


def current_build(dist: Path, info: dict[str, object]) -> str | None:
    """The digest of dist/oms when it is the build of `info` (these sources, these packages) and
    whole (its tree is the one SHA256SUMS names); None: build it."""
    try:
        lines = (dist / "SHA256SUMS").read_text().splitlines()
        sums = dict(line.split("  ", 1)[::-1] for line in lines)
        carried = json.loads((dist / "oms" / BUILD_INFO).read_text())
    except (OSError, ValueError):
        return None
    same = {k: v for k, v in info.items() if k != "dirty"}  # a file outside the sources: no matter
    if {k: v for k, v in carried.items() if k != "dirty"} != same or "oms/" not in sums:
        return None
    return sums["oms/"] if tree_digest(str(dist / "oms")) == sums["oms/"] else None


def _private(directory: Path) -> None:
    """Refuse a directory another user could write to, or one of its parents (ADR 0005: they could
    put another binary in its place); a sticky parent (/tmp) lets no one move what is yours. The
    parents of its real path are checked too: a link in the prefix (`P/lib -> /srv/open/lib`) leads
    where the path as written does not show."""
    real = directory.resolve()
    for place in dict.fromkeys((directory, *directory.parents, real, *real.parents)):
        try:
            st = place.stat()
        except OSError as exc:  # a link to nowhere, say
            why = f"{place}: {exc.strerror}, so oms is not installed under it {OTHER}"
            raise SystemExit(why) from None
        mine = st.st_uid in (0, os.geteuid())
        leaf = place in (directory, real)
        open_to_others = st.st_mode & (0o022 if leaf else 0o002)
        if not mine or (open_to_others and not (not leaf and st.st_mode & stat.S_ISVTX)):
            raise SystemExit(
                f"{place}: another user can write there, so oms is not installed under it {OTHER}",
            )


def _make(directory: Path) -> None:
    """Make `directory` and its missing parents, each 0755 whatever the umask (one another
    install makes at the same time is left as it made it)."""
    missing = []
    while not (directory.exists() or directory.is_symlink()):
        missing.append(directory)
        directory = directory.parent
    for place in reversed(missing):
        try:
            place.mkdir(mode=0o700)
        except FileExistsError:
            continue
        place.chmod(0o755)


def _ours(link: Path, lib: Path) -> bool:
    """Whether `link` is a link this installer made (into `lib`)."""
    if not link.is_symlink():
        return False
    target = (link.parent / os.readlink(link)).resolve()
    return target.parent.parent == lib.resolve()


@contextlib.contextmanager
def taking_turns(directory: Path, what: str) -> Iterator[None]:
    """Hold `directory`'s lock (flock on the directory itself: no lock file to plant or leave) while
    the block runs; another install or build of the same place waits its turn, then finds the work
    done. It is released when the process ends, however it ends."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"== waiting for another {what} of {directory} to end", flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def install(onedir: Path, digest: str, prefix: Path) -> tuple[Path, bool]:
    """Install the onedir bundle `onedir` (whose tree digest is `digest`) under `prefix`; (the
    link, whether anything changed). Installs into one prefix take turns."""
    for path in dict.fromkeys((str(prefix), str(prefix.resolve()))):
        if not printable(path):
            raise SystemExit(
                f"{path!a}: not printable ASCII, and every launch writes the path of oms on a "
                f"command line that holds only that {OTHER}"
            )
    lib, bindir = prefix / "lib" / "oms", prefix / "bin"
    for directory in (lib, bindir):
        _make(directory)
        _private(directory)
    with taking_turns(lib, "install"):
        return _install(onedir, digest, lib, bindir)


def _install(onedir: Path, digest: str, lib: Path, bindir: Path) -> tuple[Path, bool]:
    """`install`, under the lock of `lib`."""
    link, name = bindir / "oms", digest[:NAME_CHARS]
    if (link.exists() or link.is_symlink()) and not _ours(link, lib):
        raise SystemExit(f"{link} exists and is not an oms this installs: move it away first")
    target = lib / name
    planted = target.is_symlink() or (target.exists() and not target.is_dir())  # never followed
    damaged = planted or (target.exists() and tree_digest(str(target)) != digest)  # again
    changed = damaged or not target.exists()
    if changed:
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=lib))
        aside = staging.with_name(staging.name + "-old")
        try:
            shutil.copytree(onedir, staging, symlinks=True, dirs_exist_ok=True)
            staging.chmod(0o755)
            if tree_digest(str(staging)) != digest:
                raise SystemExit(f"the copy of {onedir} in {lib} differs from it: not installed")
            if damaged:
                target.rename(aside)
            staging.rename(target)  # whole, under its name at once
        finally:
            for left in (staging, aside):
                _remove(left)
    previous = os.readlink(link) if link.is_symlink() else None
    wanted = os.path.relpath(target / "oms", bindir)
    if previous != wanted:
        fresh = bindir / f".oms-{os.getpid()}"
        fresh.unlink(missing_ok=True)
        fresh.symlink_to(wanted)
        fresh.replace(link)  # one rename: the link names the old build or the new, never neither
        changed = True
    kept = {name, Path(previous).parent.name if previous else name}
    for old in lib.iterdir():
        if old.name in kept or len(old.name) != NAME_CHARS:
            continue
        if old.is_symlink():  # no build of ours: removed, never followed
            _remove(old)
            continue
        if not old.is_dir():
            continue
        users = running_from(old)
        if users:  # a worker's hooks name its build: gone, they would fail (and a hook fails open)
            print(f"== kept {old}: processes {', '.join(map(str, users[:5]))} run from it")
        else:
            shutil.rmtree(old)
    return link, changed


def _remove(path: Path) -> None:
    """Remove a directory tree, or the link or file in its place (never what a link names)."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def running_from(build: Path) -> list[int]:
    """The processes (that this user may look at) whose executable is in `build`."""
    inside, found = f"{build.resolve()}/", []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        if exe.startswith(inside):
            found.append(int(pid))
    return found


def on_path(bindir: Path) -> bool:
    """Whether `bindir` is a directory of $PATH."""
    entries = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    return any(Path(p).resolve() == bindir.resolve() for p in entries if os.path.isabs(p))


def say_installed(link: Path, digest: str, changed: bool) -> None:
    """What was installed where, and the line to add when its directory is not on PATH."""
    target = os.readlink(link)
    if changed:
        print(f"== installed oms {__version__} ({digest}) as {link} -> {target}")
    else:
        print(f"== oms {__version__} ({digest}) is already installed as {link} -> {target}")
    if not on_path(link.parent):
        home = Path.home().resolve()
        where = link.parent.resolve()
        shown = f"$HOME/{where.relative_to(home)}" if where.is_relative_to(home) else str(where)
        where_to = "add this line to ~/.profile"
        print(f"== {link.parent} is not on your PATH: run it as {link}, or {where_to}")
        print(f'export PATH="{shown}:$PATH"')


def main() -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--dist", type=Path, default=REPO / "dist")
    parser.add_argument("--check-reproducible", action="store_true")
    parser.add_argument("--install", action="store_true", help="install the onedir build")
    parser.add_argument("--prefix", type=Path, default=Path.home() / ".local")
    args = parser.parse_args()
    for generator in ("gen_validators.py", "gen_payloads.py"):
        generated = subprocess.run(
            [sys.executable, str(REPO / "build" / generator), "--check"], check=False
        )
        if generated.returncode != 0:  # the frozen binary carries what the schemas give
            return 1
    args.dist.mkdir(parents=True, exist_ok=True)
    with taking_turns(args.dist, "build"):  # two builds into one dist/ would mix their files
        return _main(args)


def _main(args: argparse.Namespace) -> int:
    """`main`, holding the lock of the dist directory."""
    frozen_packages = packages()
    info = build_info(frozen_packages)
    if args.install and not args.check_reproducible:
        digest = current_build(args.dist, info)
        if digest is not None:
            print(f"== {args.dist / 'oms'} is this tree's build: not built again")
            link, changed = install(args.dist / "oms", digest, args.prefix.absolute())
            say_installed(link, digest, changed)
            return 0
    with tempfile.TemporaryDirectory(prefix="oms-freeze-") as scratch:
        info_file = Path(scratch) / "build-info.json"
        info_file.write_text(json.dumps(info, sort_keys=True, indent=1) + "\n")
        first = build(args.dist, Path(scratch) / "work-a", info_file)
        write_sums(args.dist, first)
        for name, digest in sorted(first.items()):
            print(f"{digest}  {name}")
        same = True
        if args.check_reproducible:
            copy, python = elsewhere(Path(scratch), frozen_packages)
            print(f"building again from {copy} with its own venv")
            second_dist = Path(scratch) / "dist-b"
            second = build(second_dist, Path(scratch) / "work-b", info_file, copy, python)
            for rel in differing(args.dist / "oms", second_dist / "oms")[:20]:
                print(f"differs: oms/{rel}")
            shutil.rmtree(second_dist)
            for name in sorted(first):
                alike = first[name] == second[name]
                both = f"{first[name][:16]} vs {second[name][:16]}"
                print(f"{'same' if alike else 'DIFFERENT'}  {name}  {both}")
            same = first == second
    if args.install and same:
        link, changed = install(args.dist / "oms", first["oms/"], args.prefix.absolute())
        say_installed(link, first["oms/"], changed)
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
