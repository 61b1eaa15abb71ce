"""Start-up benchmark: the frozen `oms --version` against `node -e 0` and a frozen empty script.

    .venv/bin/python bench/startup_bench.py [--runs 40]

Needs dist/ from `python build/freeze.py`. Builds the frozen empty script here (same PyInstaller,
onedir, --strip) so every number comes from the same run on the same machine.
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

from bench._common import median_ms, p90_ms, table, time_command

REPO = Path(__file__).resolve().parent.parent


def build_empty(scratch: Path) -> Path:
    script = scratch / "empty.py"
    script.write_text("pass\n")
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "PYTHONHASHSEED": "0"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level",
            "ERROR",
            "--onedir",
            "--strip",
            "--workpath",
            str(scratch / "w"),
            "--distpath",
            str(scratch / "d"),
            str(script),
        ],
        cwd=scratch,
        env=env,
        check=True,
    )
    return scratch / "d" / "empty" / "empty"


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
        cases = [
            ("frozen empty script (onedir)", [str(empty)]),
            ("frozen `oms --version` (onedir)", [str(onedir), "--version"]),
            ("frozen `oms --version` (onefile)", [str(onefile), "--version"]),
            ("`python -m oms --version` (source)", [sys.executable, "-m", "oms", "--version"]),
            ("`python -I -S -c pass`", [sys.executable, "-I", "-S", "-c", "pass"]),
        ]
        if node:
            cases.insert(0, ("`node -e 0`", [node, "-e", "0"]))
        results = {name: time_command(argv, args.runs) for name, argv in cases}
    base_node = median_ms(results["`node -e 0`"]) if node else None
    base_empty = median_ms(results["frozen empty script (onedir)"])
    rows = []
    for name, samples in results.items():
        med = median_ms(samples)
        rows.append(
            [
                name,
                f"{med:.1f}",
                f"{p90_ms(samples):.1f}",
                f"{med / base_node:.2f}" if base_node else "n/a",
                f"{med / base_empty:.2f}",
            ]
        )
    print(table(["command", "median ms", "p90 ms", "x node -e 0", "x frozen empty"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
