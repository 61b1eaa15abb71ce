"""Which files a worker's launch runs, bound into the dispatch intent (`role_programs`; issue 10).

`role_argv` binds the words of a command role, not the files they name: a bare argv[0] is found on
the deliverer's PATH when delivery runs (a `bin/true` committed after approval and a PATH with the
project's `bin` first ran another program), and a script named by path can be edited after approval.
So the intent also carries, for the program argv[0] resolves to (for Codex and Claude Code: the
CLI), the interpreter its `#!` line names, and every other argument that is an absolute path to a
file, one line each: the real path and its identity (device, inode, size, modification and change
times). Any write to such a file changes its change time, which only the clock can set, so delivery
parks naming `role_programs` when what would run is not what was approved. Files inside the worktree
are git's: the checkout is verified against the start commit.
"""

from __future__ import annotations

import os
import stat

from oms.adapters.bwrap import interpreter
from oms.errors import ConfigError
from oms.limits import LIMITS
from oms.process import child_env, which
from oms.provider_names import CLI


def resolve(name: str) -> str:
    """The real path of the program `name` runs: an absolute path as given, a bare name on PATH
    (refused when only a relative PATH entry finds it: that depends on the directory delivery runs
    in)."""
    found = (
        name if name.startswith("/") else which(name, child_env()) if os.sep not in name else None
    )
    if found is None:
        raise ConfigError(f"argv[0] {name[:200]!r} is not an absolute path or a program on PATH")
    if not os.path.isabs(found):
        raise ConfigError(
            f"{name[:200]} is found through a relative PATH entry ({found[:200]}); refusing"
        )
    real = os.path.realpath(found)
    if not os.path.isfile(real):
        raise ConfigError(f"{real[:200]} is not a program on this machine")
    return real


def identity(path: str) -> str:
    """One line: the real path and what any change to the file changes."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{path[:200]} is not a regular file")
    return (
        f"{path} dev={st.st_dev} ino={st.st_ino} size={st.st_size} "
        f"mtime_ns={st.st_mtime_ns} ctime_ns={st.st_ctime_ns}"
    )


def approved(transport: str, argv: tuple[str, ...] | None) -> list[str]:
    """The `role_programs` of a worker role: what its launch would run, as it is now."""
    words = (CLI[transport],) if transport in CLI else tuple(argv or ())
    if not words:
        return []
    program = resolve(words[0])
    files = [program]
    script = interpreter(program)
    if script is not None:
        files.append(script)
    files += [os.path.realpath(w) for w in words[1:] if w.startswith("/") and os.path.isfile(w)]
    unique = list(dict.fromkeys(files))
    if len(unique) > LIMITS.program_files:
        raise ConfigError(
            f"the role's argv names {len(unique)} files (at most {LIMITS.program_files})"
        )
    return [identity(path) for path in unique]
