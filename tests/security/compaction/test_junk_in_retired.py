"""Attack (compaction, ADR 0022): a non-directory in `compacted/retired/` does not stop compaction.

Before its fix, anything that is not a directory in `compacted/retired/` (an empty regular file: one
`touch` by a state-root writer) made every `oms store compact` fail before it looked at a single
ticket: `sweep_retired` handed it to `remove_tree`, which refuses a non-directory, and the error
rose out of `compact`. Meanwhile `oms store verify` said the store was ok, with a mere note that
"the next [compaction] removes it", and the error's own hint sent the user to that same `oms store
verify`. Nothing was ever compacted again and nothing said why. Now `oms store verify` names it as a
problem, and compaction removes it as a name and goes on."""

from __future__ import annotations

from tests.chain import Chain
from tests.helpers import oms_command
from tests.integration.test_compaction import _compact, _ended


def test_a_non_directory_in_retired_does_not_silently_stop_every_compaction(chain: Chain) -> None:
    ticket_a, _ = _ended(chain)
    chain.clock.advance(2 * 24 * 60)
    retired = chain.state / "compacted" / "retired"
    retired.parent.mkdir(mode=0o700, exist_ok=True)
    retired.mkdir(mode=0o700)
    (retired / "worker.y").write_bytes(b"")
    (retired / "worker.y").chmod(0o600)
    verified = oms_command().run("store", "verify", "--state-root", str(chain.state))
    assert (
        verified.returncode != 0
    )  # named as a problem, not as something the next compaction removes
    assert "compacted/retired/worker.y: not something compaction leaves" in verified.stdout
    done = _compact(chain)  # (in-process: the chain's clock has moved two days on)
    assert [r["ticket_id"] for r in done.compacted] == [ticket_a]
    assert not (retired / "worker.y").exists()  # removed as a name
    assert oms_command().run("store", "verify", "--state-root", str(chain.state)).returncode == 0
