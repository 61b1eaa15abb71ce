"""The lexical grammar of paths beneath a root.

A relative path is 1..32 components joined by `/`; each component is 1..255 characters from
`[A-Za-z0-9._-]` and is neither `.` nor `..`. Absolute paths, empty components (`a//b`, a trailing
`/`), NUL and anything else are refused before any system call is made (SECURITY.md attack cases 1,
12). The check is lexical only: symlinks and races are the resolver's job.
"""

from __future__ import annotations

import re

from oms.errors import PathRejectedError
from oms.limits import LIMITS, Limits

_COMPONENT = re.compile(r"[A-Za-z0-9._-]+")


def split_rel(rel: str, limits: Limits = LIMITS) -> tuple[str, ...]:
    """Split `rel` into validated components, or raise `PathRejectedError` naming the reason."""
    if not isinstance(rel, str):
        raise PathRejectedError(f"path must be text (got {type(rel).__name__})")
    if rel == "":
        raise PathRejectedError("path is empty")
    if "\x00" in rel:
        raise PathRejectedError("path contains NUL")
    if rel.startswith("/"):
        raise PathRejectedError(f"path {rel[:80]!r} is absolute (expected relative to the root)")
    parts = tuple(rel.split("/"))
    if len(parts) > limits.path_components:
        raise PathRejectedError(
            f"path has {len(parts)} components (expected at most {limits.path_components})"
        )
    for part in parts:
        check_component(part, limits)
    return parts


def check_component(part: str, limits: Limits = LIMITS) -> str:
    """Validate one path component (a single directory entry name)."""
    if part == "":
        raise PathRejectedError("path has an empty component (a leading, doubled or trailing '/')")
    if part in (".", ".."):
        raise PathRejectedError(f"path component {part!r} is not allowed")
    if len(part.encode("utf-8", "surrogateescape")) > limits.path_component_bytes:
        raise PathRejectedError(
            f"path component is longer than {limits.path_component_bytes} bytes"
        )
    if _COMPONENT.fullmatch(part) is None:
        raise PathRejectedError(
            f"path component {part[:80]!r} has characters outside [A-Za-z0-9._-]"
        )
    return part
