"""README's first command, as written, on a fresh HOME whose PATH lacks ~/.local/bin: `.ci/setup
--install` builds the frozen oms (or finds dist/ is this tree's build) and installs it, and the
installed binary runs `oms demo`. `oms version --verbose` of the installed binary names the digest
of what was installed (the one build/freeze.py wrote to dist/SHA256SUMS); installing again changes
nothing; README's uninstall line removes it all (docs/adr/0033)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.fsio.bundle import tree_digest
from tests.helpers import REPO

SETUP_TIMEOUT_S = 1500  # a build from scratch on a loaded two-core machine; dist/ reused: ~1 min


def readme_first_command() -> str:
    """The first command of README's opening sh block."""
    block = re.search(r"```sh\n(.*?)```", (REPO / "README.md").read_text(), re.S)
    assert block is not None
    return next(line for line in block.group(1).splitlines() if line and not line.startswith("#"))


def readme_uninstall() -> str:
    """The uninstall command README gives."""
    found = re.search(r"Uninstall: `([^`\n]+)`", (REPO / "README.md").read_text())
    assert found is not None
    return found.group(1)


def fresh_env(tmp_path: Path) -> dict[str, str]:
    """A fresh HOME (nothing in it) and a PATH without its ~/.local/bin, nor any oms."""
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "tmp").mkdir()
    path = [p for p in os.environ["PATH"].split(":") if p and not os.access(f"{p}/oms", os.X_OK)]
    return {
        "HOME": str(home),
        "PATH": ":".join(path),
        "TMPDIR": str(tmp_path / "tmp"),
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "USER": os.environ.get("USER", "root"),
    }


def bash(command: str, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    """Run one documented command line as a user would, in the checkout."""
    return subprocess.run(
        ["bash", "-c", command],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A folder as short as a fresh machine's /tmp holds: the demo's state root under it holds
    tmux's socket, whose whole path must fit in 107 bytes (pytest's tmp_path is too deep)."""
    top = Path(tempfile.mkdtemp(prefix="oms-in-"))
    yield top
    shutil.rmtree(top, ignore_errors=True)


@pytest.mark.timeout(SETUP_TIMEOUT_S * 2 + 600)
def test_readme_first_command_installs_the_binary_and_it_runs_the_demo(short_tmp: Path) -> None:
    env = fresh_env(short_tmp)
    home = Path(env["HOME"])
    command = readme_first_command()
    assert command == "./.ci/setup --install && ~/.local/bin/oms demo"
    done = bash(command, env, SETUP_TIMEOUT_S)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-6000:]
    assert "Result: dispatch dsp-" in done.stdout  # the demo, run by the installed binary
    link = home / ".local" / "bin" / "oms"
    assert f"== {link.parent} is not on your PATH: run it as {link}, or add" in done.stdout
    assert '\nexport PATH="$HOME/.local/bin:$PATH"\n' in done.stdout  # the one line to add

    installed = link.resolve().parent
    assert installed.parent == home / ".local" / "lib" / "oms"
    digest = tree_digest(str(installed))
    assert installed.name == digest[:16]
    assert f"{digest}  oms/\n" in (REPO / "dist" / "SHA256SUMS").read_text()  # what was built
    report = json.loads(bash("~/.local/bin/oms version --json", env, 120).stdout)
    assert report["running"] == "onedir"
    assert report["digest"]["value"] == digest
    assert report["executable"] == str(installed / "oms")
    verbose = bash("~/.local/bin/oms version --verbose", env, 120)
    assert f"\ndigest      sha256-tree {digest}\n" in verbose.stdout

    inode = installed.stat().st_ino, link.lstat().st_ino
    again = bash("./.ci/setup --install", env, SETUP_TIMEOUT_S)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"is already installed as {link} -> ../lib/oms/{digest[:16]}/oms\n" in again.stdout
    assert (installed.stat().st_ino, link.lstat().st_ino) == inode  # nothing was replaced
    with_path = {**env, "PATH": f"{home}/.local/bin:{env['PATH']}"}
    quiet = bash("./.ci/setup --install", with_path, SETUP_TIMEOUT_S)
    assert "not on your PATH" not in quiet.stdout
    assert bash("oms --version", with_path, 60).stdout == "oms 0.1.0\n"  # after the line is added

    gone = bash(readme_uninstall(), env, 60)
    assert gone.returncode == 0, gone.stderr
    assert not link.is_symlink()
    assert not (home / ".local" / "lib" / "oms").exists()
