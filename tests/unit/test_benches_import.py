"""Every benchmark in bench/ imports against the code as it is (a refactor once broke
`deliver_bench.py` unnoticed: benches are not run by the test command, their numbers go to
docs/performance.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.parametrize(
    "path", sorted(p for p in BENCH.glob("*.py") if p.name != "__init__.py"), ids=lambda p: p.name
)
def test_the_bench_imports(path: Path) -> None:
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(
        module
    )  # runs its imports; main() is behind `if __name__ == "__main__"`
    assert callable(getattr(module, "main", None)) or path.name == "_common.py"
