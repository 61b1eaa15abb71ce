"""The environment a child process gets: built from an allow-list, never inherited wholesale.

When oms runs frozen, the PyInstaller bootloader points `LD_LIBRARY_PATH` at the bundle and keeps
the user's value in `LD_LIBRARY_PATH_ORIG`; children must get the user's value back (or none), or
git and the agent CLIs would load the bundle's libraries (ADR 0005; SECURITY.md attack case 26).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

BASE_KEYS = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TMPDIR",
    "TZ",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
    "OMS_ANCHOR_DIR",  # oms's own children anchor the ledger where the user said (ADR 0027)
    "OMS_HOST",  # ... and act as the host it named (ADR 0043, amendment `hosts`)
)
_LOADER_KEYS = ("LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT", "PYTHONHOME", "PYTHONPATH")


def is_frozen() -> bool:
    """True inside a PyInstaller bundle."""
    return bool(getattr(sys, "frozen", False))


def child_env(
    extra: Mapping[str, str] | None = None,
    *,
    keep: tuple[str, ...] = (),
    source: Mapping[str, str] | None = None,
    frozen: bool | None = None,
) -> dict[str, str]:
    """An environment for a child: the allow-listed keys (plus `keep`) from `source`, then `extra`.

    The dynamic loader's variables are never inherited, except the user's own `LD_LIBRARY_PATH`,
    which is restored from `LD_LIBRARY_PATH_ORIG` when frozen (or kept as-is when not frozen).
    """
    env_in = os.environ if source is None else source
    out = {
        key: env_in[key] for key in (*BASE_KEYS, *keep) if key in env_in and key not in _LOADER_KEYS
    }
    if frozen if frozen is not None else is_frozen():
        original = env_in.get("LD_LIBRARY_PATH_ORIG")
        if original:
            out["LD_LIBRARY_PATH"] = original
    elif env_in.get("LD_LIBRARY_PATH"):
        out["LD_LIBRARY_PATH"] = env_in["LD_LIBRARY_PATH"]
    if extra:
        for key, value in extra.items():
            if key in _LOADER_KEYS:
                raise ValueError(f"refusing to set {key} for a child process")
            out[key] = value
    return out


def oms_executable(env: Mapping[str, str]) -> str:
    """The real, absolute, non-symlink path of the oms executable that hooks, the MCP config and
    tree jobs run (`OMS_EXECUTABLE`, the frozen binary, this process's own `oms`)."""
    from oms.errors import ConfigError

    candidates = [env.get("OMS_EXECUTABLE", "")]
    if is_frozen():
        candidates.append(sys.executable)
    beside = os.path.join(os.path.dirname(sys.executable), "oms")
    candidates += [sys.argv[0] if sys.argv else "", beside]
    for candidate in candidates:
        if not candidate or (not os.path.isabs(candidate) and os.sep not in candidate):
            continue
        real = os.path.realpath(candidate)
        named = os.path.basename(real).startswith("oms")
        if os.path.isfile(real) and os.access(real, os.X_OK) and named:
            return real
    raise ConfigError(
        "cannot find the oms executable to write into hooks and MCP config",
        hint="set OMS_EXECUTABLE to the absolute path of the oms binary",
    )
