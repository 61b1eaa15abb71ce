"""Git for review before merge (`oms result show|diff`): the change between two objects of the main
repository (the target's head and the tree a merge would make, or a result commit), never a
worktree. Hardened as everywhere (`adapters/git.py`: call after `refuse_unsafe_config`); no external
diff, no textconv (an agent's `.gitattributes` may name a driver: none is configured, and these
flags would not run one), no colour, no pager of git's own, the objects named by their ids after
`--end-of-options` (nothing from a record is read as an option).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from oms.adapters.git import GIT_ENV, HARDENING, git
from oms.errors import InvalidInputError, ProcessFailedError
from oms.fsio.trees import refuse_agent_tree
from oms.limits import LIMITS
from oms.process import child_env, stream

_OBJECT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
DIFF_FLAGS = ("--no-ext-diff", "--no-textconv", "--no-color", "--no-relative")


@dataclass(frozen=True, slots=True)
class Changed:
    """One file of a change: its path (as git quotes it), lines added and removed (None: binary)."""

    path: str
    added: int | None
    removed: int | None


def _ids(*names: str) -> tuple[str, ...]:
    for name in names:
        if not _OBJECT.fullmatch(name):
            raise InvalidInputError(f"{name[:80]!r} is not an object id")
    return names


def diff_stream(
    repo: str, old: str, new: str, sink: Callable[[bytes], bool], *, stat: bool = False
) -> None:
    """`git diff` of two objects (commits or trees), streamed to `sink` as git writes it."""
    refuse_agent_tree(repo, "run git")
    a, b = _ids(old, new)
    shape = ("--stat=200",) if stat else ("--patch",)
    argv = ("git", "-C", repo, *HARDENING, "diff", *DIFF_FLAGS, *shape, "--end-of-options", a, b)
    stream(argv, sink, env=child_env(GIT_ENV), timeout=LIMITS.review_diff_timeout_s)


def numstat(repo: str, old: str, new: str) -> list[Changed]:
    """Each file the change touches, with its counts (bounded: `Limits.review_numstat_bytes`)."""
    a, b = _ids(old, new)
    try:
        out = git(
            repo,
            "diff",
            *DIFF_FLAGS,
            "--numstat",
            "-z",
            "--no-renames",
            "--end-of-options",
            a,
            b,
            max_output=LIMITS.review_numstat_bytes,
            timeout=LIMITS.review_diff_timeout_s,
        ).stdout
    except ProcessFailedError as exc:
        if "more than" not in exc.message:
            raise
        raise InvalidInputError(
            f"the change lists more than {LIMITS.review_numstat_bytes} bytes of files"
        ) from exc
    return parse_numstat(out)


def parse_numstat(out: bytes) -> list[Changed]:
    """`git diff --numstat -z --no-renames`: `added TAB removed TAB path NUL` (`-` for binary)."""
    found: list[Changed] = []
    for item in out.split(b"\x00"):
        if not item:
            continue
        added, _, rest = item.partition(b"\t")
        removed, _, path = rest.partition(b"\t")
        found.append(
            Changed(
                path.decode("utf-8", "surrogateescape"),
                int(added) if added.isdigit() else None,
                int(removed) if removed.isdigit() else None,
            )
        )
    return found


def merge_base(repo: str, a: str, b: str) -> str | None:
    """Their best common ancestor (None: none)."""
    done = git(repo, "merge-base", "--end-of-options", *_ids(a, b), check=False)
    line = done.text()
    return line if done.returncode == 0 and _OBJECT.fullmatch(line) else None
