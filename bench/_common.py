"""Small helpers shared by the benchmarks: timing, medians, tables."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

SCRATCH_GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "oms bench",
    "GIT_AUTHOR_EMAIL": "bench@oms.invalid",
    "GIT_COMMITTER_NAME": "oms bench",
    "GIT_COMMITTER_EMAIL": "bench@oms.invalid",
}


def pin_scratch_git() -> None:
    """Make the git of this process and its children independent of the user's: no system or
    global config (a signing key, a hook or an alias there must neither break nor slow a run) and
    an identity of its own (a HOME without one must not stop a bench that commits in its scratch
    repositories). oms's own git calls pin their environment themselves; this is for the set-up."""
    os.environ.update(SCRATCH_GIT_ENV)


def scratch_anchors() -> None:
    """Keep the ledger anchors (docs/adr/0027) of the bench's throwaway state roots out of the
    user's configuration: unless $OMS_ANCHOR_DIR names a folder, a temporary one, removed when the
    bench ends, for this process and its children. Without it every state root a bench makes
    leaves a folder behind in `~/.config/oms/anchors`."""
    if os.environ.get("OMS_ANCHOR_DIR"):
        return
    folder = tempfile.mkdtemp(prefix="oms-bench-anchors-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["OMS_ANCHOR_DIR"] = folder


def brokers_dir(state: Path) -> Path | None:
    """Where the brokers of the tree under test listen: `brokers/` in the state root's sandbox
    directory, which the record `sandboxes.json` names (docs/adr/0026; None until it is made), or,
    in a tree from before issue 23, `panes/` in the state root. The baseline of issue 23's speed
    target, ef568cd, is measured with the benches of a later tree (docs/performance.md): the two
    that time a broker (deliver, agent doors) must find it in either layout."""
    try:
        from oms.store.sandboxes import BROKERS, RECORD
    except ModuleNotFoundError:  # before issue 23: `panes/<dispatch>.sock` in the state root
        return state / "panes"
    record = state / RECORD
    if not record.is_file():
        return None
    return Path(json.loads(record.read_text())["path"]) / BROKERS


def time_calls(fn: Callable[[], object], repeat: int, warmup: int = 3) -> list[float]:
    """Seconds per call of `fn`, `repeat` samples after `warmup` discarded calls."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def time_interleaved(
    cases: Mapping[str, Callable[[], object]],
    repeat: int,
    warmup: int = 3,
    paced: frozenset[str] = frozenset(),
    gap_s: float = 0.0,
) -> dict[str, list[float]]:
    """Seconds per call of each case, the cases taking turns (round-robin), so that a slow spell of
    the machine lands on every case alike instead of on whichever ran then. The `paced` cases start
    at least `gap_s` apart (waiting outside the clock): a broker answers a worker's state-touching
    hooks only at a worker's rate (services/doors/worker_doors.py), and a bench must not measure its
    refusals."""
    last = [0.0]

    def pace(name: str) -> None:
        if name in paced:
            time.sleep(max(0.0, last[0] + gap_s - time.perf_counter()))
            last[0] = time.perf_counter()

    for name, fn in cases.items():
        for _ in range(warmup):
            pace(name)
            fn()
    out: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, fn in cases.items():
            pace(name)
            start = time.perf_counter()
            fn()
            out[name].append(time.perf_counter() - start)
    return out


def command_runner(argv: Sequence[str]) -> Callable[[], None]:
    """A call that runs a command to completion (output discarded)."""

    def once() -> None:
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    return once


def time_command(argv: Sequence[str], repeat: int, warmup: int = 3) -> list[float]:
    """Wall seconds per run of a command (output discarded)."""

    def once() -> None:
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    return time_calls(once, repeat, warmup)


def median_ms(samples: Sequence[float]) -> float:
    """Median in milliseconds."""
    return statistics.median(samples) * 1000


def p90_ms(samples: Sequence[float]) -> float:
    """90th percentile in milliseconds."""
    ordered = sorted(samples)
    return ordered[int(0.9 * (len(ordered) - 1))] * 1000


def _number(value: float) -> str:
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"


def ratio_line(
    case: str,
    value: float,
    baseline: str,
    base: float,
    *,
    unit: str = "ms",
    stat: str = "median",
) -> str:
    """A value against its baseline measured in the same run, in the one form every bench prints
    for each comparison it exists for (tests/bench/test_benches_run.py runs every bench and looks
    for these): `ratio: <case> / <baseline>: <r>x (<stat> <value> <unit> / <base> <unit>)`."""
    times = f"{value / base:.2f}x" if base > 0 else "undefined (the baseline is 0)"
    values = f"{stat} {_number(value)} {unit} / {_number(base)} {unit}"
    return f"ratio: {case} / {baseline}: {times} ({values})"


def print_ratio(
    case: str,
    value: float,
    baseline: str,
    base: float,
    *,
    unit: str = "ms",
    stat: str = "median",
) -> None:
    """Print `ratio_line(...)`."""
    print(ratio_line(case, value, baseline, base, unit=unit, stat=stat))


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
