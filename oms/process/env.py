"""The environment a child process gets: built from an allow-list, never inherited wholesale.

When oms runs frozen, the PyInstaller bootloader points `LD_LIBRARY_PATH` at the bundle and keeps the
user's value in `LD_LIBRARY_PATH_ORIG`; children must get the user's value back (or none), or git and the
agent CLIs would load the bundle's libraries (research/sec.md §3).
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
    out = {key: env_in[key] for key in (*BASE_KEYS, *keep) if key in env_in and key not in _LOADER_KEYS}
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
