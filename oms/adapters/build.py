"""Which oms runs: the installed onedir bundle, a onefile binary or a source checkout; the digest
of what runs and what it was built from (`oms version`, docs/adr/0033).

The digest is computed over the files that run, every time (`fsio/bundle.py`), never read from a
file beside them: a bundle cannot carry its own digest, and a stamp could be edited. The build
information (commit, dirty or not, the source's and packages' digests, Python and PyInstaller,
the SOURCE_DATE_EPOCH time) is the `build-info` document build/freeze.py put in the bundle.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Literal

from oms.canonical import JsonObject, loads_object
from oms.errors import CanonicalJsonError, IntegrityError, SchemaValidationError, shown
from oms.fsio.bundle import file_digest, read_bundle_file, tree_digest
from oms.process import is_frozen
from oms.schemas import validate
from oms.version import __version__

BUILD_INFO = ("oms", "_data", "build-info.json")  # where the spec puts it in the bundle
REINSTALL = "build and install it again: ./.ci/setup --install"
Running = Literal["onedir", "onefile", "source"]


@dataclass(frozen=True, slots=True)
class Build:
    """What runs: how, the real path of its executable, the digest of its files, its build info."""

    running: Running
    executable: str
    digest_algorithm: str | None  # sha256-tree (onedir), sha256 (onefile), None from source
    digest: str | None
    digest_of: str | None  # the directory or file the digest covers
    info: JsonObject | None  # the build-info document; None from source

    def to_json(self) -> JsonObject:
        """The `cli-version` document (schemas/cli-version.schema.json)."""
        digest: JsonObject | None = None
        if self.digest is not None and self.digest_algorithm and self.digest_of:
            algorithm, of = self.digest_algorithm, self.digest_of
            digest = {"algorithm": algorithm, "value": self.digest, "of": of}
        return {
            "ok": True,
            "version": __version__,
            "running": self.running,
            "executable": self.executable,
            "python": sys.version.split()[0],
            "digest": digest,
            "build": self.info,
        }


def this_build() -> Build:
    """The oms of this process (frozen: hashes its bundle, ~50 MB, a fraction of a second)."""
    executable = os.path.realpath(sys.executable)
    if not is_frozen():
        return Build("source", executable, None, None, None, None)
    bundle = str(getattr(sys, "_MEIPASS", ""))
    top = os.path.dirname(executable)
    info = _build_info(os.path.join(bundle, *BUILD_INFO))
    if os.path.dirname(os.path.realpath(bundle)) == top:  # onedir: `_internal` beside the binary
        return Build("onedir", executable, "sha256-tree", tree_digest(top), top, info)
    return Build("onefile", executable, "sha256", file_digest(executable), executable, info)


def _build_info(path: str) -> JsonObject:
    data = read_bundle_file(path)
    if data is None:
        what = f"this oms carries no build information ({shown(path)})"
        raise IntegrityError(what, hint=REINSTALL)
    try:
        info = loads_object(data)
        validate("build-info", info, where=path)
    except (CanonicalJsonError, SchemaValidationError) as exc:
        what = f"this oms's build information is invalid: {exc.message}"
        raise IntegrityError(what, hint=REINSTALL) from exc
    return info
