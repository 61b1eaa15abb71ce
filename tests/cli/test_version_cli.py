"""`oms version` (docs/adr/0033): from source it says so; frozen, it names the digest of the files
that run, computed over them (the digest build/freeze.py wrote to SHA256SUMS for dist/oms), and the
build information the bundle carries. Its `--json` is schemas/cli-version.schema.json."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from oms.fsio.bundle import tree_digest
from oms.schemas import validate
from tests.helpers import REPO, OmsCommand


def test_version_json_is_its_schema_and_names_what_runs(oms: OmsCommand) -> None:
    done = oms.run("version", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    validate("cli-version", report, where="oms version --json")
    assert report["version"] == "0.1.0"
    if not oms.frozen:
        assert (report["running"], report["digest"], report["build"]) == ("source", None, None)
        return
    binary = os.path.realpath(oms.argv[0])
    assert (report["running"], report["executable"]) == ("onedir", binary)
    top = os.path.dirname(binary)
    assert report["digest"] == {"algorithm": "sha256-tree", "value": tree_digest(top), "of": top}
    if Path(top) == (REPO / "dist" / "oms").resolve():  # what build/freeze.py wrote for it
        sums = (REPO / "dist" / "SHA256SUMS").read_text()
        assert f"{report['digest']['value']}  oms/\n" in sums
    build = report["build"]
    assert build["version"] == report["version"]
    assert build["python"] == report["python"]
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(build["source_date_epoch"]))
    assert build["built_at"] == stamp


def test_verbose_says_how_it_runs_and_its_digest(oms: OmsCommand) -> None:
    plain = oms.run("version")
    assert (plain.returncode, plain.stdout) == (0, "oms 0.1.0\n")
    verbose = oms.run("version", "--verbose")
    assert verbose.returncode == 0, verbose.stderr
    assert oms.run("--version", "--verbose").stdout == verbose.stdout
    lines = verbose.stdout.splitlines()
    assert lines[0] == "oms 0.1.0"
    report = json.loads(oms.run("--version", "--json").stdout)
    if not oms.frozen:
        assert lines[1].startswith("running     from source, Python ")
        assert "not a build (`./.ci/setup --install` builds and installs one)" in lines[2]
        return
    digest, build = report["digest"], report["build"]
    assert lines[1] == f"running     onedir binary {report['executable']}"
    assert lines[2] == f"digest      sha256-tree {digest['value']}"
    state = "with changes beside it" if build["dirty"] else "clean"
    assert f"built from  {build['commit']} ({state}), source sha256 " in verbose.stdout
    assert f"PyInstaller {build['pyinstaller']}" in verbose.stdout
