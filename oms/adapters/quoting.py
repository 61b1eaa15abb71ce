"""Shell words and TOML strings, built only here (SECURITY.md invariant 4, attack cases 23-24).

* `shell_quote` accepts printable ASCII only (0x20-0x7E) and always single-quotes, escaping `'` as
  `'"'"'`. Newline, TAB, DEL, NUL and non-ASCII are refused: they are legal inside quotes but
  dangerous in logs, prompts and copy-paste, and NUL cannot pass `execve`.
* `toml_string` writes a TOML basic string: `"` and `\\` escaped, everything else literal; it
  refuses control characters (U+0000-U+001F, U+007F) and lone surrogates (TOML strings are Unicode
  scalar values).
* `check_arg` is the stricter rule for every argument oms writes into a hook command or an MCP
  server definition: printable ASCII only.

Property tests round-trip `shell_quote` through real `bash` and `shlex.split` and `toml_*` through
`tomllib`, and check that each refuses exactly its forbidden set.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from oms.errors import InvalidInputError

_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")
_TOML_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f]")


class QuotingError(InvalidInputError):
    """A value cannot be quoted safely."""

    code = "quoting"


def _show(value: str) -> str:
    return ascii(value[:40])


def check_arg(value: str, what: str = "argument") -> str:
    """Printable ASCII only (the rule for hook and MCP arguments)."""
    text: object = value
    if not isinstance(text, str) or _PRINTABLE_ASCII.fullmatch(text) is None:
        raise QuotingError(f"{what} {_show(str(value))} has control or non-ASCII characters")
    return value


def shell_quote(word: str) -> str:
    """One shell word, always single-quoted."""
    check_arg(word, "shell word")
    return "'" + word.replace("'", "'\"'\"'") + "'"


def shell_join(argv: Iterable[str]) -> str:
    """A command line of quoted words."""
    words = [shell_quote(w) for w in argv]
    if not words:
        raise QuotingError("empty command")
    return " ".join(words)


def toml_string(value: str) -> str:
    """A TOML basic string."""
    if not isinstance(value, str):
        raise QuotingError(f"TOML string must be text (got {type(value).__name__})")
    if _TOML_FORBIDDEN.search(value):
        raise QuotingError(f"TOML string {_show(value)} has control characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise QuotingError("TOML string has a lone surrogate") from exc
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def toml_key(key: str) -> str:
    """A TOML key: bare when it can be, quoted otherwise."""
    if re.fullmatch(r"[A-Za-z0-9_-]+", key):
        return key
    return toml_string(key)


def toml_value(value: object) -> str:
    """A TOML value (inline form) for str, bool, int, lists and dicts of those."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{toml_key(str(k))}={toml_value(v)}" for k, v in value.items()) + "}"
    raise QuotingError(f"cannot write {type(value).__name__} as TOML")
