"""Bug (ledger, ADR 0022), fixed: a refused `oms audit checkpoint --export FILE` changes nothing.

Before its fix, the command signed and published the in-root checkpoint before it checked FILE: an
export refused - inside the state root, or an existing file - still changed the state root."""

from __future__ import annotations

from pathlib import Path

from tests.chain import Chain
from tests.helpers import oms_command


def _checkpoints(chain: Chain) -> list[str]:
    folder = chain.state / "ledger" / "checkpoints"
    return sorted(p.name for p in folder.glob("*")) if folder.exists() else []


def test_a_refused_export_changes_nothing(chain: Chain, tmp_path: Path) -> None:
    chain.proposed()
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    existing = tmp_path / "already-there.json"
    existing.write_text("mine\n")
    before = _checkpoints(chain)
    for target in (str(existing), str(chain.state / "pin.json")):
        done = oms_command().run("audit", "checkpoint", "--export", target, *roots)
        assert done.returncode == 1, done.stderr
    assert existing.read_text() == "mine\n"
    assert not (chain.state / "pin.json").exists()
    assert _checkpoints(chain) == before, "a refused export wrote a checkpoint into the state root"
