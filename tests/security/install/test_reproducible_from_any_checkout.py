"""Reproducible from any checkout (issue 10, case 10; SECURITY.md "The boundary, audited" 10).

Two builds in one clone were identical, but a clone at another path built another onedir: the
bundled `jsonschema-*.dist-info/RECORD` holds the hash of the venv's `bin/jsonschema`, whose shebang
names the venv. The bundle now leaves out pip's installation records (`build/bundle.py`, used by the
spec). Here the same wheels are installed into two venvs at different paths, as two checkouts'
`.ci/setup` would: what the bundle keeps of their dist-info must be byte-identical, and the control
(everything) must differ. The whole build from a copy at another path is CI's `build/freeze.py
--check-reproducible`.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[3]
BUNDLED = ("jsonschema", "attrs")  # the distributions whose dist-info PyInstaller's hooks bundle


def _bundle() -> ModuleType:
    spec = importlib.util.spec_from_file_location("oms_build_bundle", REPO / "build" / "bundle.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _install(venv: Path) -> dict[str, bytes]:
    """A venv at `venv` with this venv's versions of the bundled distributions; their dist-info
    files."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    wanted = [f"{name}=={metadata.version(name)}" for name in BUNDLED]
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q"]
        + ["--disable-pip-version-check", "--no-deps", *wanted],
        check=True,
        capture_output=True,
    )
    (site,) = (venv / "lib").glob("python3.*/site-packages")
    return {
        path.relative_to(site).as_posix(): path.read_bytes()
        for info in site.glob("*.dist-info")
        if info.name.split("-")[0].lower() in BUNDLED
        for path in info.rglob("*")
        if path.is_file()
    }


def test_what_the_bundle_keeps_of_an_installation_does_not_depend_on_its_path(
    tmp_path: Path,
) -> None:
    bundle = _bundle()
    first = _install(tmp_path / "one" / ".venv")
    second = _install(tmp_path / "another" / "checkout" / "at" / "a" / "longer" / "path" / ".venv")
    assert first.keys() == second.keys()
    differing = sorted(rel for rel in first if first[rel] != second[rel])
    assert any(rel.startswith("jsonschema-") and rel.endswith("/RECORD") for rel in differing), (
        differing
    )  # control
    assert all(bundle.is_installation_record(rel) for rel in differing), differing
    kept = {rel for rel in first if not bundle.is_installation_record(rel)}
    assert {rel.rsplit("/", 1)[-1] for rel in kept} >= {"METADATA"}  # versions still readable
    assert {rel: first[rel] for rel in kept} == {rel: second[rel] for rel in kept}


def test_only_pips_installation_records_are_left_out() -> None:
    bundle = _bundle()
    for name in ("RECORD", "REQUESTED", "INSTALLER", "direct_url.json"):
        assert bundle.is_installation_record(f"jsonschema-4.26.0.dist-info/{name}")
        assert not bundle.is_installation_record(
            f"jsonschema/{name}"
        )  # a package's own file of that name
    for name in ("METADATA", "WHEEL", "entry_points.txt", "licenses/COPYING"):
        assert not bundle.is_installation_record(f"jsonschema-4.26.0.dist-info/{name}")
