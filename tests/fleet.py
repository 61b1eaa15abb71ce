"""A fleet for conductor tests: the demo's scratch repository, state root and scripts
(`demo/scratch.py`), with a worker that records the result its ticket's title asks for (`failed`
when the title says "fail", `blocked` when it says "block", none when it says "hang": it sleeps,
else `completed`) and then exits or waits in its pane. Real git, a real tmux server on the state
root's socket, real panes and sandboxes; the clock can be moved forward so a backoff or a deadline
passes without waiting for it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from oms.adapters import git
from oms.canonical import add_ms
from oms.canonical import now as wall_clock
from oms.demo import scratch as demo
from oms.services.chain import tickets
from oms.services.conductor import tick as conductor
from oms.services.conductor.tick import Tick
from oms.services.workspace import Workspace
from tests.helpers import eventually


@dataclass
class Fleet:
    """A demo repository and state root worked by the conductor."""

    base: Path
    repo: str
    state: str
    shift_ms: int = 0
    reports: list[Tick] = field(default_factory=list)

    def now(self) -> str:
        return add_ms(wall_clock(), self.shift_ms)

    def workspace(self) -> Workspace:
        return Workspace.open(self.state, self.repo, clock=self.now)

    def add(self, title: str, priority: int | None = None) -> str:
        with self.workspace() as ws:
            return tickets.add(ws, title, "do it", priority).record_id

    def tick(self) -> Tick:
        with self.workspace() as ws:
            report = conductor.tick(ws)
        self.reports.append(report)
        return report

    def tickets(self) -> dict[str, tuple[str, dict[str, object]]]:
        with self.workspace() as ws:
            return {t.record_id: (t.state, dict(t.payload)) for t in tickets.list_all(ws)}

    def until(self, done: Callable[[], bool], timeout: float = 90.0) -> None:
        """Tick until `done()` holds (each tick is a real pass; the workers run between them)."""

        def settled() -> bool:
            if done():
                return True
            self.tick()
            assert done(), f"the fleet did not settle; last tick: {self.reports[-1:]}"
            return True

        eventually(settled, timeout=timeout, what="the fleet settles")

    def kill_tmux(self) -> None:
        subprocess.run(
            ["tmux", "-S", f"{self.state}/tmux.sock", "kill-server"],
            capture_output=True,
            check=False,
        )


def make_fleet(
    base: Path, *, after: str = "exit", max_workers: int = 2, role: str = ""
) -> Iterator[Fleet]:
    """The fleet in `base` (its worker ends after its result, or waits: `after`; `role`: more lines
    of the worker's role)."""
    run = demo._prepare(str(base))
    script = Path(base, "worker.sh")
    text = script.read_text()
    text = text.replace(
        'reply=$(tool record_dispatch_result \'{"status":"completed","summary":"Added a '
        "CHANGELOG line.\"}')",
        'case "$title" in *fail*) st=failed ;; *block*) st=blocked ;; '
        "*hang*) exec sleep 600 ;; *) st=completed ;; "
        "esac\n"
        'reply=$(tool record_dispatch_result "{\\"status\\":\\"$st\\",\\"summary\\":\\"$st by '
        'the test worker\\"}")',
    )
    script.chmod(0o700)
    script.write_text(text)
    config = Path(run.repo, ".oms/config.toml")
    body = config.read_text().replace('worker.sh"]', f'worker.sh", "full", "{after}"]')
    body = body.replace("max_workers = 2", f"max_workers = {max_workers}")
    body = body.replace(
        '[roles."oms.command-executor"]\n', f'[roles."oms.command-executor"]\n{role}'
    )
    config.write_text(body)
    git.commit_all(run.repo, "the conductor's test worker")
    old = os.environ.get("OMS_EXECUTABLE")
    binary = os.environ.get("OMS_TEST_BINARY")
    os.environ["OMS_EXECUTABLE"] = (
        os.path.abspath(binary) if binary else str(Path(sys.executable).parent / "oms")
    )
    fleet = Fleet(base, run.repo, run.state_root)
    try:
        yield fleet
    finally:
        fleet.kill_tmux()
        if old is None:
            os.environ.pop("OMS_EXECUTABLE", None)
        else:
            os.environ["OMS_EXECUTABLE"] = old
