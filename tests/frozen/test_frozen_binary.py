"""Attack case 26 (SECURITY.md) and other facts of the frozen binary (needs build/freeze.py
output)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import REPO, eventually


def _binary(name: str) -> Path:
    env = os.environ.get("OMS_TEST_BINARY")
    path = (
        Path(env)
        if env and name == "oms"
        else REPO / "dist" / ("oms/oms" if name == "oms" else name)
    )
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it first with `python build/freeze.py`")
    return path


def _fake_git(tmp_path: Path) -> tuple[Path, Path]:
    """A `git` that records the environment it was given (the path is baked in: the env is
    allow-listed)."""
    out = tmp_path / "git-env.txt"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "git"
    script.write_text(f"#!/bin/sh\nenv > '{out}'\necho 'git version 2.39.5'\n")
    script.chmod(0o755)
    return bin_dir, out


@pytest.mark.parametrize("user_value", [None, "/opt/user-libs"])
def test_case26_children_never_inherit_the_bundle_library_path(
    tmp_path: Path, user_value: str | None
) -> None:
    bin_dir, out = _fake_git(tmp_path)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    if user_value:
        env["LD_LIBRARY_PATH"] = user_value
    result = subprocess.run(
        [str(_binary("oms")), "doctor", "--state-root", str(tmp_path / "s")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "git" in result.stdout
    child_env = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    if user_value:
        assert child_env.get("LD_LIBRARY_PATH") == user_value
    else:
        assert "LD_LIBRARY_PATH" not in child_env
    assert "_internal" not in child_env.get("LD_LIBRARY_PATH", "")
    assert not any(k.startswith("_PYI") or k == "LD_LIBRARY_PATH_ORIG" for k in child_env)


def _mei_dirs(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("_MEI"))


def test_case26_onedir_leaves_no_mei_after_sigkill(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [str(_binary("oms")), "doctor", "--state-root", str(tmp_path / "s")],
        env={"PATH": os.environ["PATH"], "TMPDIR": str(tmp), "HOME": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.15)  # the kill point: mid-run (doctor probes tools for ~1 s)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _mei_dirs(tmp) == []


def test_onefile_would_leak_mei_when_killed(tmp_path: Path) -> None:
    """Why onedir is primary (ADR 0005): the onefile bootloader, SIGKILLed, leaves its extraction
    behind."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [str(_binary("oms-onefile")), "doctor", "--state-root", str(tmp_path / "s")],
        env={"PATH": os.environ["PATH"], "TMPDIR": str(tmp), "HOME": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with contextlib.suppress(AssertionError):  # (the assertion below says what is missing)
        eventually(lambda: _mei_dirs(tmp), timeout=30, max_poll=0.01)  # kill it mid-run
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    leaked = _mei_dirs(tmp)
    assert leaked, "the onefile binary should have extracted itself under TMPDIR"
    subprocess.run(["rm", "-rf", *(str(tmp / d) for d in leaked)], check=True)


def test_frozen_binary_finds_its_schemas_as_package_data(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(_binary("oms")), "doctor", "--state-root", str(tmp_path / "s")],
        capture_output=True,
        text=True,
        check=False,
    )
    schemas = next(line for line in result.stdout.splitlines() if line.split()[1] == "schemas")
    assert schemas.startswith("OK")
    assert "_internal/oms/_data/schemas" in schemas


def test_each_build_names_the_digest_build_freeze_wrote_for_it() -> None:
    """`oms version --json` (docs/adr/0033) of dist/oms/oms and of dist/oms-onefile: the digest of
    the files that run, computed as they run, is the one in dist/SHA256SUMS."""
    import json

    lines = (REPO / "dist" / "SHA256SUMS").read_text().splitlines()
    sums = dict(line.split("  ")[::-1] for line in lines)
    builds = (("oms", "onedir", "sha256-tree"), ("oms-onefile", "onefile", "sha256"))
    for name, running, algorithm in builds:
        done = subprocess.run(
            [str(REPO / "dist" / ("oms/oms" if name == "oms" else name)), "version", "--json"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert (report["running"], report["digest"]["algorithm"]) == (running, algorithm)
        assert report["digest"]["value"] == sums["oms/" if name == "oms" else name]
        assert report["build"]["format"] == "oms-build-v1"


@contextlib.contextmanager
def _cgroups_given_to(uid: int) -> Iterator[list[Path]]:
    """As root: a cgroup beneath this process's own in each hierarchy oms bounds a sandbox with,
    owned by `uid` (the directory and the file that moves a process in), as an administrator gives
    an ordinary user on cgroup v1; removed after, its leftover processes moved back up first."""
    from oms.adapters import cgroups

    made: list[Path] = []
    try:
        for place in cgroups.where():
            given = Path(place.base) / f"oms-test-user-{os.getpid()}"
            given.mkdir()
            made.append(given)
            for path in (given, given / "cgroup.procs", given / "tasks"):
                if path.exists():
                    os.chown(path, uid, uid)
        yield made
    finally:
        for given in reversed(made):
            for child in sorted(given.rglob("*"), key=lambda p: len(p.parts), reverse=True):
                if child.is_dir():
                    _empty_into(child, given.parent)
                    child.rmdir()
            _empty_into(given, given.parent)
            given.rmdir()


def _empty_into(cgroup: Path, parent: Path) -> None:
    for pid in (cgroup / "cgroup.procs").read_text().split():
        with contextlib.suppress(ProcessLookupError, OSError):
            (parent / "cgroup.procs").write_text(pid)


def test_the_demo_runs_for_an_ordinary_user(tmp_path: Path) -> None:
    """The sandbox without root: bubblewrap makes an unprivileged user namespace (the path every
    user who is not root takes). As root, the frozen `oms demo` runs as `nobody` in a directory that
    user owns, inside cgroups an administrator made that user's (what `oms doctor` tells an ordinary
    user to ask for: ADR 0025); the worker is sandboxed and bounded, its result recorded, and `oms
    worker stop` leaves nothing."""
    import json
    import shutil
    import tempfile

    binary = _binary("oms")
    uid = os.geteuid()
    prefix: list[str] = []
    where = Path(tempfile.mkdtemp(prefix="oms-user-demo-", dir="/tmp"))
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, where, ignore_errors=True)
        if uid == 0:  # be an ordinary user: nobody, in a directory and cgroups of its own
            os.chown(where, 65534, 65534)
            given = stack.enter_context(_cgroups_given_to(65534))
            joins = " ".join(f"echo $$ > '{place}/cgroup.procs' &&" for place in given)
            nobody = 'exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"'
            prefix = ["sh", "-c", f"{joins} {nobody}", "sh"]
        env = {"PATH": os.environ["PATH"], "HOME": str(where), "LANG": "C.UTF-8"}
        done = subprocess.run(
            [*prefix, str(binary), "demo", "--dir", str(where / "demo"), "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        assert data["ok"] is True, data["reason"]
        stop = [
            *prefix,
            str(binary),
            "worker",
            "stop",
            str(data["dispatch_id"]),
            "--reason",
            "test over",
            "--state-root",
            str(data["state_root"]),
            "--config-root",
            str(data["repo"]),
            "--json",
        ]
        stopped = subprocess.run(
            stop, capture_output=True, text=True, env=env, timeout=120, check=False
        )
        assert stopped.returncode == 0, stopped.stderr
        assert json.loads(stopped.stdout)["pane_live"] is False
