"""Review before merge (`oms result show|diff|request-changes`): the pure parts.

- A person's comments on a result: `--comment TEXT` (about the result as a whole) or a file of
  `path:line: text` lines (`parse_comments`), bounded (`Limits.review_*`). Text with a control
  character (C0 but tab, DEL, C1, a bidirectional override) is refused, naming its line: a comment
  goes into the signed intent and is shown to an agent and to people, never escaped in one place
  and raw in another.
- What a follow-up attempt carries of the result it follows (`changes_requested`): the dispatch,
  its commit and summary, the person, the comments (part of the approved intent, docs/adr/0035).
- What a change does to what oms runs (`what_runs`): the files under `.oms/` (the configuration:
  the roles' commands, the checks; the role policy — never a `[notify]` command, which lives in
  the person's own settings, ADR 0036 as amended) and `.agents/`
  (the executor instructions), which take effect once a merge puts them at HEAD.
- Output someone else wrote (a diff: file contents an agent chose; a summary, a branch name),
  made safe for a terminal (`Escaper`, `for_terminal`): newlines and tabs kept, every other control
  character and every byte that is not UTF-8 shown as `\\xNN` (or `\\uNNNN`), so no escape sequence
  reaches the terminal or the pager.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from oms.canonical import JsonObject
from oms.errors import InvalidInputError
from oms.limits import LIMITS

# bidirectional overrides and isolates: text that reads other than it is
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_LINE = re.compile(r"(?P<path>[^:]+):(?P<line>[1-9][0-9]{0,8}):[ \t]*(?P<text>.*)")


def unsafe_char(c: str) -> bool:
    """A character a terminal may act on rather than show (tab and newline are not)."""
    o = ord(c)
    return (o < 0x20 and c not in "\t\n") or 0x7F <= o <= 0x9F or c in _BIDI or 0xD800 <= o < 0xE000


# every character `unsafe_char` names, as one class (a diff of megabytes is escaped at C speed)
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff" + re.escape("".join(sorted(_BIDI))) + "]"
)


# what oms reads at HEAD of the config root and runs by: config, policy, instructions
WHAT_RUNS = (".oms", ".agents")


def what_runs(paths: list[str] | tuple[str, ...]) -> list[str]:
    """The paths among `paths` that change what oms runs once merged (sorted, each once)."""
    return sorted({p for p in paths if any(p == d or p.startswith(d + "/") for d in WHAT_RUNS)})


def what_runs_line(paths: list[str]) -> str | None:
    """The one line `oms result show|merge` says it in (None: nothing that runs changes)."""
    if not paths:
        return None
    named = ", ".join(paths[:8]) + (f" and {len(paths) - 8} more" if len(paths) > 8 else "")
    return (
        f"changes what oms runs (config, policy, instructions: the roles' commands, the checks, "
        f"what agents are told): {named}"
    )


def for_terminal(text: str) -> str:
    """`text` (one that someone else wrote) safe to print: each unsafe character escaped."""
    return _UNSAFE.sub(lambda m: _escaped(m[0]), text)


def _escaped(c: str) -> str:
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{o - 0xDC00:02x}"
    return f"\\x{o:02x}" if o <= 0xFF else f"\\u{o:04x}"


def escape_bytes(data: bytes) -> bytes:
    """Bytes someone else wrote (whole lines), safe for a terminal, as UTF-8."""
    text = data.decode("utf-8", "surrogateescape")
    return for_terminal(text).encode("utf-8")


class Escaper:
    """Streamed output made safe line by line: `feed` returns what may be written now (whole lines,
    or a piece of a line longer than `Limits.review_line_bytes`), `end` what is left."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held = b""

    def feed(self, chunk: bytes) -> bytes:
        """The escaped whole lines so far."""
        data = self._held + chunk
        cut = data.rfind(b"\n") + 1
        if cut == 0 and len(data) > LIMITS.review_line_bytes:
            cut = _utf8_boundary(data, LIMITS.review_line_bytes)
        self._held = data[cut:]
        return escape_bytes(data[:cut]) if cut else b""

    def end(self) -> bytes:
        """The escaped rest (an unfinished last line)."""
        rest, self._held = self._held, b""
        return escape_bytes(rest)


class Kept:
    """Streamed output escaped (`Escaper`) and kept up to `limit` bytes, cut at a line's end (a
    line longer than `limit` alone: at a character's), then no more: `feed` answers False once it
    wants nothing more, which ends the writer. With `last`, it reads on to the end and keeps the
    last line too (a `--stat`'s summary, past what was kept)."""

    __slots__ = ("_escaper", "_kept", "_last", "_limit", "_tail", "truncated")

    def __init__(self, limit: int, *, last: bool = False) -> None:
        self._escaper = Escaper()
        self._limit = limit
        self._last = last
        self._kept = bytearray()
        self._tail = b""
        self.truncated = False

    def feed(self, chunk: bytes) -> bool:
        """Take `chunk`; False: nothing more is wanted."""
        return self._take(self._escaper.feed(chunk))

    def _take(self, data: bytes) -> bool:
        if not data:
            return True
        if self._last:
            self._tail = _last_line(self._tail + data)
        if self.truncated:
            return self._last
        room = self._limit - len(self._kept)
        if len(data) <= room:
            self._kept += data
            return True
        cut = data.rfind(b"\n", 0, room) + 1
        if cut == 0 and not self._kept:
            cut = _utf8_boundary(data, room, least=0) if room > 0 else 0
        self._kept += data[:cut]
        self.truncated = True
        return self._last

    def end(self) -> str:
        """What was kept (the writer is done): the escaped text, and, when cut with `last`, a line
        `...` and the last line (whole)."""
        self._take(self._escaper.end())
        kept = bytes(self._kept)
        if self.truncated and self._tail:
            kept += b"...\n" + self._tail
        return kept.decode("utf-8", "replace")


def _last_line(data: bytes) -> bytes:
    """The last line of `data` that has any text, ended (a summary line is short: of its last 4
    KiB)."""
    line = data[-4096:].rstrip(b"\n").rsplit(b"\n", 1)[-1]
    return line + b"\n" if line else b""


def _utf8_boundary(data: bytes, at: int, *, least: int = 1) -> int:
    """`at`, moved back (at most 3 bytes) so as not to split a UTF-8 character, and not below
    `least` (a stream must move on; a bound that keeps less than one character keeps nothing)."""
    for back in range(4):
        i = at - back
        if i <= 0 or (data[i] & 0xC0) != 0x80:
            return max(i, least)
    return at


# ------------------------------------------------------------------ comments
@dataclass(frozen=True, slots=True)
class Comment:
    """One comment: on a line of a file (`path`, `line`), or on the result as a whole (both
    None)."""

    text: str
    path: str | None = None
    line: int | None = None

    def to_json(self) -> JsonObject:
        """As the intent and `read_dispatch` carry it."""
        return {"path": self.path, "line": self.line, "text": self.text}

    def rendered(self) -> str:
        """One line, as a person wrote it."""
        return self.text if self.path is None else f"{self.path}:{self.line}: {self.text}"


def _check_text(text: str, where: str) -> str:
    text = text.strip()
    if not text:
        raise InvalidInputError(f"{where}: a comment needs text")
    bad = next((c for c in text if unsafe_char(c) and c != "\t"), None)
    if bad is not None:
        raise InvalidInputError(
            f"{where}: a comment may not hold the control character {_escaped(bad)}"
        )
    if len(text) > LIMITS.review_comment_chars:
        raise InvalidInputError(
            f"{where}: a comment is at most {LIMITS.review_comment_chars} characters"
        )
    return text


def comment(text: str) -> Comment:
    """A comment on the result as a whole (`--comment TEXT`); one line or several."""
    if "\n" in text.strip():
        for n, line in enumerate(text.strip().splitlines(), 1):  # names the line that is refused
            if line.strip():
                _check_text(line, f"--comment line {n}")
    return Comment(_check_text(text, "--comment"))


def parse_comments(data: bytes) -> tuple[Comment, ...]:
    """A file of comments: one `path:line: text` a line (blank lines and `#` lines skipped), UTF-8,
    bounded. The first line that is not one is refused, naming it."""
    if len(data) > LIMITS.review_comments_bytes:
        raise InvalidInputError(f"the comments are over {LIMITS.review_comments_bytes} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"the comments are not UTF-8 (byte {exc.start})") from None
    found: list[Comment] = []
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.removesuffix("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.fullmatch(line)
        if m is None:
            raise InvalidInputError(f"comments line {n}: not `path:line: text`")
        path = m["path"].strip()
        if not path or len(path) > LIMITS.review_path_chars or any(unsafe_char(c) for c in path):
            raise InvalidInputError(f"comments line {n}: not a path oms can carry")
        found.append(Comment(_check_text(m["text"], f"comments line {n}"), path, int(m["line"])))
        if len(found) > LIMITS.review_comments:
            raise InvalidInputError(f"more than {LIMITS.review_comments} comments")
    if not found:
        raise InvalidInputError("the comments file holds no `path:line: text` line")
    return tuple(found)


def render_comments(comments: tuple[Comment, ...]) -> bytes:
    """A comments file `parse_comments` reads back as `comments` (the comments on lines)."""
    return "".join(c.rendered() + "\n" for c in comments).encode("utf-8")


def changes_requested(
    *,
    dispatch_id: str,
    commit: str,
    summary: str,
    person: str,
    comments: tuple[Comment, ...],
) -> JsonObject:
    """What a follow-up attempt carries of the result it follows (the ticket keeps it; its next
    dispatch's intent copies it)."""
    if not comments:
        raise InvalidInputError("a request for changes needs a comment")
    if len(comments) > LIMITS.review_comments:
        raise InvalidInputError(f"more than {LIMITS.review_comments} comments")
    total = sum(len(c.text.encode()) + len((c.path or "").encode()) for c in comments)
    if total > LIMITS.review_comments_bytes:
        raise InvalidInputError(f"the comments are over {LIMITS.review_comments_bytes} bytes")
    cut = summary[: LIMITS.review_summary_chars]
    return {
        "dispatch_id": dispatch_id,
        "result_commit": commit,
        "previous_summary": cut,
        "summary_truncated": len(cut) < len(summary),
        "person": person,
        "comments": [c.to_json() for c in comments],
    }
