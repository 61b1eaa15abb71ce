"""Layer 1: no-follow file IO beneath a root (docs/architecture.md "Layers"; ADR 0003).

The only package that opens files under the state root or writes agent homes. See `root.py` for the
resolvers and publishers, `locks.py` for holder-named lock files (import them from there: an agent
hook never takes a lock and does not load them), `paths.py` for the path grammar.
"""

from __future__ import annotations

from oms.fsio.outside import enclosing_git, scratch_directory
from oms.fsio.paths import check_component, split_rel
from oms.fsio.procinfo import ProcessIdentity
from oms.fsio.root import FileId, FsioOptions, Publisher, Resolver, Root, is_temp_name, temp_owner

__all__ = [
    "FileId",
    "FsioOptions",
    "ProcessIdentity",
    "Publisher",
    "Resolver",
    "Root",
    "check_component",
    "enclosing_git",
    "is_temp_name",
    "scratch_directory",
    "split_rel",
    "temp_owner",
]
