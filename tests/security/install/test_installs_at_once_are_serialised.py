"""Two installs at once (`./.ci/setup --install` run twice, or from two checkouts into one prefix)
take turns (docs/adr/0033; SECURITY.md): each holds the prefix's lock while it copies, renames,
relinks and removes old builds. Without it the second rename of the same build onto its name
tracebacks (ENOTEMPTY), and one install could remove the build another had just linked, leaving
`P/bin/oms` naming nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from oms.fsio.bundle import tree_digest
from tests.helpers import REPO
from tests.integration.test_install import fake_bundle

INSTALLER = """
import os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[4])
from tests.integration.test_install import freeze
installer = freeze()
os.read(0, 1)  # the gate: every installer starts when the test closes its stdin
installer.install(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]))
"""
ROUNDS = 8  # each round: three installers at once into a fresh prefix, two of the same build


def test_installs_at_once_all_succeed_and_leave_one_whole_build_linked(tmp_path: Path) -> None:
    bundles = [fake_bundle(tmp_path / "dist", name) for name in ("a", "b")]
    digests = {digest for _, digest in bundles}
    failed: list[str] = []
    for n in range(ROUNDS):
        prefix = tmp_path / f"prefix{n}"
        installers = [
            subprocess.Popen(
                [sys.executable, "-c", INSTALLER, str(bundle), digest, str(prefix), str(REPO)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for bundle, digest in (bundles[0], bundles[0], bundles[1])
        ]
        for installer in installers:
            assert installer.stdin is not None
            installer.stdin.close()  # all three go
        for installer in installers:
            assert installer.stderr is not None
            with installer.stderr:
                err = installer.stderr.read()
            installer.wait(timeout=120)
            if installer.returncode != 0:
                failed.append(f"round {n}: {err.strip().splitlines()[-1:]}")
        link = prefix / "bin" / "oms"
        build = link.resolve().parent
        assert build.is_dir(), f"round {n}: {link} names {build}, which is gone"
        assert tree_digest(str(build)) in digests
        assert sorted(p.name for p in link.parent.iterdir()) == ["oms"]  # no staging link left
        left = [p.name for p in (prefix / "lib" / "oms").iterdir() if p.name.startswith(".")]
        assert left == []  # no staging copy left
    assert failed == []
