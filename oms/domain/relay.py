"""The relay protocol between an agent's doors and its broker (pure; ADR 0012).

Inside a sandbox, `oms hook provider` and `oms worker bridge` are relays: they carry bytes to the
pane's broker over its Unix socket and carry the answer back. They hold no authority: the broker
checks every binding value a relay sends against its own.

A connection starts with one header, NUL-framed so a relay needs no JSON encoder:

    b"oms-relay-1\\0" DOOR b"\\0" COUNT b"\\0" (WORD b"\\0") * COUNT

DOOR is `hook` or `bridge`, the WORDs are the relay's own argv (what the agent CLI ran). Then:
- `hook`: the hook's stdin follows until the relay shuts down its write side; the broker answers
  `STDERR_LINE b"\\n" STDOUT_BYTES` and closes (one request per connection);
- `bridge`: newline-delimited JSON-RPC in both directions until either side closes (one MCP session
  per connection: the protocol version negotiated by `initialize` lives as long as the connection).
"""

from __future__ import annotations

BROKER_VIEW = "/oms/broker.sock"  # where a sandbox sees its broker's socket
MAGIC = b"oms-relay-1\0"
HOOK_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "PreToolUse",
)  # oms registers one command for each
HOOK_OPTIONS = (
    "--event",
    "--provider",
    "--provider-version",
    "--dispatch-id",
    "--session-id",
    "--allowed-tools",
)
BRIDGE_OPTIONS = ("--dispatch-id", "--session-id")
DOORS = ("hook", "bridge")
BRIDGE_SERVER = "oms_worker"  # the MCP server name every agent configuration gives the bridge
BRIDGE_TOOLS = (
    "read_dispatch",
    "acknowledge_dispatch",
    "record_dispatch_result",
)  # the bridge's tools, all of them
BRIDGE_TOOL_PREFIX = f"mcp__{BRIDGE_SERVER}__"  # how an agent CLI names a bridge tool to its hooks
HEADER_CAP = 16 * 1024  # Limits.relay_header_bytes (a copy: a relay imports no typing, ADR 0010)
MAX_WORDS = 32  # Limits.relay_words (likewise)
WORD_CAP = 4096  # Limits.relay_word_bytes (likewise)


class RelayError(Exception):
    """A malformed or oversized relay frame."""


class Header:
    """A parsed relay header and how many bytes it took (a plain class: relays must not import
    typing)."""

    __slots__ = ("argv", "door", "size")

    def __init__(self, door: str, argv: tuple[str, ...], size: int) -> None:
        self.door = door
        self.argv = argv
        self.size = size

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Header) and (self.door, self.argv, self.size) == (
            other.door,
            other.argv,
            other.size,
        )

    def __hash__(self) -> int:
        return hash((self.door, self.argv, self.size))

    def __repr__(self) -> str:
        return f"Header({self.door!r}, {self.argv!r}, {self.size})"


def encode_header(door: str, argv: list[str] | tuple[str, ...]) -> bytes:
    """The header a relay sends (`RelayError` for what the broker would refuse anyway)."""
    if door not in DOORS:
        raise RelayError(f"unknown door {door[:20]!r}")
    if len(argv) > MAX_WORDS:
        raise RelayError(f"more than {MAX_WORDS} arguments")
    words = [w.encode("utf-8", "surrogateescape") for w in argv]
    if any(b"\0" in w or len(w) > WORD_CAP for w in words):
        raise RelayError("an argument is too long or holds NUL")
    out = (
        MAGIC
        + door.encode()
        + b"\0"
        + str(len(words)).encode()
        + b"\0"
        + b"".join(w + b"\0" for w in words)
    )
    if len(out) > HEADER_CAP:
        raise RelayError(f"header longer than {HEADER_CAP} bytes")
    return out


def parse_header(buf: bytes) -> Header | None:
    """The header at the start of `buf`; None while it is incomplete; `RelayError` when it cannot be
    one."""
    if len(buf) < len(MAGIC):
        if not MAGIC.startswith(buf):
            raise RelayError("not an oms relay")
        return None
    if not buf.startswith(MAGIC):
        raise RelayError("not an oms relay")
    fields: list[bytes] = []
    pos = len(MAGIC)
    need: int | None = None
    while need is None or len(fields) < need + 2:
        end = buf.find(b"\0", pos, HEADER_CAP + 1)
        if end < 0:
            if len(buf) > HEADER_CAP:
                raise RelayError(f"header longer than {HEADER_CAP} bytes")
            return None
        field = buf[pos:end]
        pos = end + 1
        fields.append(field)
        if len(fields) == 1 and field.decode("ascii", "replace") not in DOORS:
            raise RelayError(f"unknown door {field[:20]!r}")
        if len(fields) == 2:
            if not field.isdigit() or len(field) > 2 or int(field) > MAX_WORDS:
                raise RelayError("bad argument count")
            need = int(field)
        elif len(fields) > 2 and len(field) > WORD_CAP:
            raise RelayError("argument too long")
    try:
        argv = tuple(f.decode("utf-8") for f in fields[2:])
    except UnicodeDecodeError as exc:
        raise RelayError("argument is not UTF-8") from exc
    return Header(fields[0].decode("ascii"), argv, pos)


def hook_event(argv: tuple[str, ...] | list[str]) -> str | None:
    """The event a hook command line was registered for: its one `--event` value when that names one
    of `HOOK_EVENTS`, else None. The event comes from the command the CLI runs, never from the
    payload."""
    found = [argv[i + 1] for i in range(0, len(argv) - 1, 2) if argv[i] == "--event"]
    return found[0] if len(found) == 1 and found[0] in HOOK_EVENTS else None


def fails_closed(argv: tuple[str, ...] | list[str]) -> bool:
    """Whether a hook that cannot be answered must deny: it was registered for PreToolUse, or its
    command line names no event oms registers (oms never writes one; whoever ran it gets no
    allowance)."""
    return hook_event(argv) in (None, "PreToolUse")


UNVERIFIED = "oms: this tool call could not be verified"  # why a hook oms cannot answer denies


def denial(reason: str) -> dict[str, dict[str, str]]:
    """A PreToolUse denial in both agent CLIs' contract: the one shape oms denies a tool with."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason[:500],
        }
    }


# What a hook prints when it cannot be answered: `denial(UNVERIFIED)` as the compact JSON line the
# broker writes (spelled out: a relay imports no json; a test proves the two equal), or no
# decision.
DENIAL_LINE = (
    b'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",'
    b'"permissionDecisionReason":"' + UNVERIFIED.encode("ascii") + b'"}}\n'
)
NO_DECISION_LINE = b"{}\n"


def unanswered(argv: tuple[str, ...] | list[str] | None) -> bytes:
    """What a hook whose answer oms cannot give prints: `DENIAL_LINE` when it fails closed (or
    its command line is unknown, `None`), else `NO_DECISION_LINE`."""
    return DENIAL_LINE if argv is None or fails_closed(argv) else NO_DECISION_LINE


def encode_answer(stdout: bytes, stderr: str = "") -> bytes:
    """A hook answer: one stderr line (maybe empty), then what the hook prints."""
    line = " ".join(stderr.split())[:300]
    return line.encode("utf-8", "replace") + b"\n" + stdout


def parse_answer(data: bytes) -> tuple[bytes, str]:
    """(stdout bytes, stderr line) of a hook answer; `RelayError` without the separator."""
    head, sep, rest = data.partition(b"\n")
    if not sep:
        raise RelayError("truncated answer from the broker")
    return rest, head.decode("utf-8", "replace")


def options(argv: tuple[str, ...], names: tuple[str, ...]) -> dict[str, str]:
    """`--name value` pairs, each of `names` exactly once and nothing else (`RelayError`
    otherwise)."""
    if len(argv) % 2:
        raise RelayError("options must come in name/value pairs")
    values = dict(zip(argv[::2], argv[1::2], strict=True))
    if len(values) * 2 != len(argv) or sorted(values) != sorted(names):
        raise RelayError("expected " + " ".join(f"{n} VALUE" for n in names))
    return values
