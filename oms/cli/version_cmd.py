"""`oms version`: which oms runs; --verbose or --json: its digest and what it was built from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

import typer

from oms.cli.common import JsonOpt, emit

INSTALL = "`./.ci/setup --install`"

VerboseOpt = Annotated[
    bool,
    typer.Option("--verbose", help="Also the digest of what runs and what it was built from."),
]


def version(verbose: VerboseOpt = False, json_out: JsonOpt = False) -> None:
    """The version of oms; --verbose: how it runs (the installed onedir bundle, a onefile binary or
    source), the sha256 of its files (the onedir tree digest build/freeze.py writes to
    dist/SHA256SUMS), and the commit, Python and PyInstaller it was built with.

    Example: oms version --verbose"""
    from oms.version import __version__

    if not (verbose or json_out):
        typer.echo(f"oms {__version__}")
        return
    from oms.adapters.build import this_build

    build = this_build()
    if json_out:
        emit(build.to_json())
        return
    report = build.to_json()
    typer.echo(f"oms {report['version']}")
    for label, value in lines(report):
        typer.echo(f"{label:<11} {value}".rstrip())


def lines(report: Mapping[str, object]) -> list[tuple[str, str]]:
    """The human form of a `cli-version` document below its first line: (label, text) rows."""
    out: list[tuple[str, str]] = []
    digest, info = report["digest"], report["build"]
    if report["running"] == "source":
        out.append(("running", f"from source, Python {report['python']} ({report['executable']})"))
        out.append(("digest", f"none: not a build ({INSTALL} builds and installs one)"))
        return out
    out.append(("running", f"{report['running']} binary {report['executable']}"))
    if isinstance(digest, dict):
        out.append(("digest", f"{digest['algorithm']} {digest['value']}"))
        out.append(("", f"(of {digest['of']})"))
    if isinstance(info, dict):
        state = "with changes beside it" if info["dirty"] else "clean"
        commit = info["commit"] or "no git commit"
        out.append(("built from", f"{commit} ({state}), source sha256 {info['source_sha256']}"))
        epoch = info["source_date_epoch"]
        out.append(("built at", f"{info['built_at']} (SOURCE_DATE_EPOCH {epoch})"))
        out.append(
            (
                "built with",
                f"Python {info['python']}, PyInstaller {info['pyinstaller']}, "
                f"packages sha256 {info['packages_sha256']}",
            )
        )
    return out
