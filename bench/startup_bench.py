"""Start-up benchmark: the frozen `oms --version` against `node -e 0` and a frozen empty script.

    .venv/bin/python bench/startup_bench.py [--runs 40]

Needs dist/ from `python build/freeze.py`. Builds two frozen empty scripts here, so every number
comes from the same run on the same machine: PyInstaller's defaults (onedir, --strip: the issue's
baseline) and oms's own spec choices (no module archive, no inspect/pkgutil runtime hooks: the floor
oms starts on). The cases take turns run by run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import command_runner, median_ms, p90_ms, print_ratio, table, time_interleaved

REPO = Path(__file__).resolve().parent.parent


def _pyinstaller(scratch: Path, work: str, target: Path, *options: str) -> None:
    """Freeze `target` (a script or a spec) reproducibly, quietly, into `scratch/<work>-dist`."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "PYTHONHASHSEED": "0"}
    argv = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "ERROR", *options]
    argv += [
        "--workpath",
        str(scratch / work),
        "--distpath",
        str(scratch / f"{work}-dist"),
        str(target),
    ]
    subprocess.run(argv, cwd=scratch, env=env, check=True)


def _empty_script(scratch: Path) -> Path:
    script = scratch / "empty.py"
    script.write_text("pass\n")
    return script


def build_empty(scratch: Path) -> Path:
    """The empty script frozen with PyInstaller's defaults (onedir, --strip): the issue's
    baseline."""
    _pyinstaller(scratch, "default", _empty_script(scratch), "--onedir", "--strip")
    return scratch / "default-dist" / "empty" / "empty"


LEAN_SPEC = """
a = Analysis([{script!r}], noarchive=True, excludes=["multiprocessing"])
a.scripts = [e for e in a.scripts if e[0] not in {{"pyi_rth_inspect", "pyi_rth_pkgutil"}}]
exe = EXE(PYZ(a.pure), a.scripts, [], exclude_binaries=True, name="lean", strip=True, upx=False, \
console=True)
COLLECT(exe, a.binaries, a.datas, strip=True, upx=False, name="lean")
"""


def build_lean_empty(scratch: Path) -> Path:
    """The empty script frozen with oms's own choices (build/oms.spec: no module archive, no inspect
    or pkgutil runtime hooks): the floor of what oms's binary could start in."""
    spec = scratch / "lean.spec"
    spec.write_text(LEAN_SPEC.format(script=str(_empty_script(scratch))))
    _pyinstaller(scratch, "lean", spec)
    return scratch / "lean-dist" / "lean" / "lean"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    onedir, onefile = REPO / "dist" / "oms" / "oms", REPO / "dist" / "oms-onefile"
    if not onedir.is_file():
        print("dist/oms/oms is missing: run `python build/freeze.py` first", file=sys.stderr)
        return 1
    node = shutil.which("node")
    with tempfile.TemporaryDirectory(prefix="oms-startup-") as scratch:
        empty = build_empty(Path(scratch))
        lean = build_lean_empty(Path(scratch))
        cases = [
            ("frozen empty script (onedir)", [str(empty)]),
            ("frozen empty script, oms's spec choices", [str(lean)]),
            ("frozen `oms --version` (onedir)", [str(onedir), "--version"]),
            ("frozen `oms --version` (onefile)", [str(onefile), "--version"]),
            ("`python -m oms --version` (source)", [sys.executable, "-m", "oms", "--version"]),
            ("`python -I -S -c pass`", [sys.executable, "-I", "-S", "-c", "pass"]),
        ]
        if node:
            cases.insert(0, ("`node -e 0`", [node, "-e", "0"]))
        results = time_interleaved({name: command_runner(argv) for name, argv in cases}, args.runs)
    base_node = median_ms(results["`node -e 0`"]) if node else None
    base_empty = median_ms(results["frozen empty script (onedir)"])
    base_lean = median_ms(results["frozen empty script, oms's spec choices"])
    rows = []
    for name, samples in results.items():
        med = median_ms(samples)
        rows.append(
            [
                name,
                f"{med:.1f}",
                f"{p90_ms(samples):.1f}",
                f"{med / base_node:.2f}" if base_node else "-",
                f"{med / base_empty:.2f}",
                f"{med / base_lean:.2f}",
            ]
        )
    heads = [
        "p50 ms",
        "p90 ms",
        "\u00d7 `node -e 0`",
        "\u00d7 frozen empty",
        "\u00d7 empty, oms's choices",
    ]
    print(table(["command", *heads], rows))
    print()
    oms = median_ms(results["frozen `oms --version` (onedir)"])
    if base_node is not None:
        print_ratio("frozen `oms --version` (onedir)", oms, "`node -e 0`", base_node)
    lean, empty = "frozen empty script, oms's spec choices", "frozen empty script (onedir)"
    print_ratio("frozen `oms --version` (onedir)", oms, lean, base_lean)
    print_ratio(lean, base_lean, empty, base_empty)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
