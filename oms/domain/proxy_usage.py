"""Model tokens a proxied answer reports (issue 13, ADR 0020). Pure: bytes in, counts out.

A whole JSON answer carries `usage` (`usage_of_json`); a streamed one carries it in its events, read
as the bytes pass without holding more than one line (`SseUsage`): Anthropic's `message_start` and
`message_delta` (counts so far, not increments), the Responses API's `response.completed`. A
dispatch whose role has a token budget may not ask again once input and output together reach it
(`over_budget`); what a request may cost at most is reserved before it is forwarded (`reservation`).
"""

from __future__ import annotations

from dataclasses import dataclass

from oms.canonical.strict_json import loads_foreign
from oms.limits import LIMITS


@dataclass(frozen=True, slots=True)
class Usage:
    """Model tokens counted."""

    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )

    @property
    def total(self) -> int:
        """Input and output together (what a budget bounds)."""
        return self.input_tokens + self.output_tokens


def _int(value: object) -> int:
    return (
        value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53
        else 0
    )


def usage_in(doc: object) -> Usage | None:
    """The usage an API object reports: Anthropic and the Responses API (`input_tokens`,
    `output_tokens`, Anthropic's cache tokens counted as input), Chat Completions (`prompt_tokens`,
    `completion_tokens`)."""
    if not isinstance(doc, dict):
        return None
    usage = doc.get("usage")
    if not isinstance(usage, dict):
        return None
    inputs = _int(usage.get("input_tokens")) + _int(usage.get("prompt_tokens"))
    inputs += _int(usage.get("cache_creation_input_tokens")) + _int(
        usage.get("cache_read_input_tokens")
    )
    return Usage(inputs, _int(usage.get("output_tokens")) + _int(usage.get("completion_tokens")))


def usage_of_json(body: bytes) -> Usage | None:
    """The usage of a whole (non-streamed) JSON answer, or None."""
    if len(body) > LIMITS.proxy_usage_json_bytes:
        return None
    try:
        return usage_in(loads_foreign(body))
    except (ValueError, RecursionError):
        return None


class SseUsage:
    """Reads the usage of a streamed answer as its bytes pass (never holding more than one line):
    Anthropic's `message_start` (input, first output count) and `message_delta` (the output so far),
    the Responses API's `response.completed`. `usage` is the answer's usage so far."""

    __slots__ = ("_line", "_skipping", "final", "usage")

    def __init__(self) -> None:
        self._line = bytearray()
        self._skipping = False
        self.usage = Usage()
        self.final = (
            False  # the answer's last usage was seen (`message_delta`'s stop, `response.completed`)
        )

    def feed(self, chunk: bytes) -> None:
        """Take the next bytes of the stream."""
        for piece in chunk.splitlines(keepends=True):
            if self._skipping:
                self._skipping = not piece.endswith((b"\n", b"\r"))
                continue
            self._line += piece
            if len(self._line) > LIMITS.proxy_sse_line_bytes:
                self._line.clear()
                self._skipping = not piece.endswith((b"\n", b"\r"))
                continue
            if self._line.endswith((b"\n", b"\r")):
                self._take(bytes(self._line).rstrip(b"\r\n"))
                self._line.clear()

    def _take(self, line: bytes) -> None:
        if not line.startswith(b"data:"):
            return
        try:
            event = loads_foreign(line[5:])
        except (ValueError, RecursionError):
            return
        if not isinstance(event, dict):
            return
        kind = event.get("type")
        if kind == "message_start":
            found = usage_in(event.get("message"))
            if found is not None:
                self.usage = found
        elif kind == "message_delta":
            found = usage_in(event)
            if found is not None:  # counts so far, not increments
                self.usage = Usage(
                    found.input_tokens or self.usage.input_tokens, found.output_tokens
                )
                delta = event.get("delta")
                self.final = self.final or (
                    isinstance(delta, dict) and delta.get("stop_reason") is not None
                )
        elif kind == "message_stop":
            self.final = True
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            found = usage_in(event.get("response"))
            if found is not None:
                self.usage = found
            self.final = True


def requested_output(body: bytes) -> int:
    """The most output tokens a request asked for (`max_tokens`, `max_output_tokens`; 0: it names
    none)."""
    try:
        doc = loads_foreign(body) if len(body) <= LIMITS.proxy_usage_json_bytes * 8 else None
    except (ValueError, RecursionError):
        return 0
    if not isinstance(doc, dict):
        return 0
    return max(_int(doc.get("max_tokens")), _int(doc.get("max_output_tokens")))


def charged(counted: Usage, final: bool, requested: int) -> Usage:
    """What a streamed answer costs a dispatch's budget: what it reported, and, when its last usage
    never came (the worker hung up, the stream broke), at least the output the request asked for at
    most."""
    if final or requested <= counted.output_tokens:
        return counted
    return Usage(counted.input_tokens, requested)


def reservation(body: bytes, unasked: int) -> Usage:
    """What a request may cost at most, reserved before it is forwarded (ADR 0028): its body's bytes
    as input tokens (a token of text is at least a byte of it) and the output it asks for at most
    (`unasked` when it names no bound)."""
    return Usage(len(body), requested_output(body) or unasked)


def over_budget(used: Usage, budget: int | None, role_id: str | None) -> str | None:
    """Why a dispatch may not ask again (its role's budget is used up), or None."""
    if budget is None or used.total < budget:
        return None
    return (
        f"token budget exhausted: this dispatch used {used.total} "
        f"model tokens, role {role_id}'s budget is {budget}"
    )
