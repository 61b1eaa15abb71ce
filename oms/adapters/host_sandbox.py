"""The host's sandbox as a launch asks it before a pane (`services/delivery/interface.Sandbox`):
bubblewrap runs a sandbox of a worker's shape here (`bwrap.probe`), and a cgroup holding a role's
limits can be made (`cgroups.trial`). The simulator gives delivery another one (`tests/sim/`)."""

from __future__ import annotations

from oms.adapters import bwrap, cgroups
from oms.domain.sandbox_limits import SandboxLimits


class HostSandbox:
    """This machine's bubblewrap and cgroups."""

    def probe(self) -> None:
        """`SandboxUnavailableError` with the reason when no sandbox can run here."""
        bwrap.probe()

    def trial(self, limits: SandboxLimits) -> None:
        """`CgroupUnavailableError` when no cgroup holding `limits` can be made."""
        cgroups.trial(limits)
