"""Every reference in the repository resolves inside it (issue 25 item 5).

Someone who clones the repository must be able to follow what code, tests and docs cite:
- no document that is not in the repository (the original design notes and research notes oms was
  first written from are not shipped: what they said that still matters is in an ADR, SECURITY.md
  or docs/architecture.md, and is cited there);
- a `path:line` or `path:first-last` reference names a file of the repository that has that line;
- a `path::name` reference names a file of the repository that defines (or, outside tests, holds)
  that name;
- `ADR NNNN` names an ADR in docs/adr/, and a cited section of docs/architecture.md is a heading in
  it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from tests.helpers import REPO

SCANNED = (
    ".ci",
    "bench",
    "build",
    "docs",
    "oms",
    "policy",
    "schemas",
    "tests",
    "README.md",
    "SECURITY.md",
    "pyproject.toml",
)
SKIPPED_DIRS = {"__pycache__", ".venv", "node", "_data"}
THIS = Path(__file__).resolve()

# Spelled in pieces so that this file does not match itself.
_NOTES = "|".join(("sec", "tui", "codex", "mcp", "peers", "conductor", "style"))
OUTSIDE = re.compile(
    r"\bDESIGN"
    r"(?:\.md|\s+§)|\bSTYLE"
    r"\.md|\bresearch"
    r"/|(?<![\w/.-])(?:" + _NOTES + r")\.md\b"
)
_EXT = r"(?:py|md|toml|json|pml|sh|c|txt|yml|yaml|cfg|ini)"
LINE_REF = re.compile(
    r"(?<![\w/.-])(?P<path>(?:[\w.-]+/)*[\w-][\w.-]*\." + _EXT + r")"
    r"(?::(?P<line>\d+)(?:[-\u2013](?P<end>\d+))?|::(?P<name>[A-Za-z_]\w*))"
)
ADR_REF = re.compile(r"\bADRs? (?P<nums>\d{4}(?:(?:, | and | or |/)\d{4})*)")
SECTION_REF = re.compile(r"docs/architecture\.md,?\s+\*?\"(?P<section>[^\"]+)\"")

# Written on another branch of issue 25 at the same time; checked like any file once it is here.
WRITTEN_ELSEWHERE = frozenset({"docs/architecture.md"})


def _files() -> Iterator[Path]:
    for name in SCANNED:
        top = REPO / name
        if top.is_file():
            yield top
            continue
        for path in sorted(top.rglob("*")):
            parts = set(path.relative_to(REPO).parts)
            if path.is_file() and not parts & SKIPPED_DIRS and path.resolve() != THIS:
                yield path


def _texts() -> Iterator[tuple[str, str]]:
    for path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        yield path.relative_to(REPO).as_posix(), text


def _hits(pattern: re.Pattern[str]) -> Iterator[tuple[str, int, re.Match[str]]]:
    for rel, text in _texts():
        for match in pattern.finditer(text):
            yield rel, text.count("\n", 0, match.start()) + 1, match


def _by_name() -> dict[str, list[Path]]:
    index: dict[str, list[Path]] = {}
    for path in _files():
        index.setdefault(path.name, []).append(path)
    return index


def _candidates(ref: str, index: dict[str, list[Path]]) -> list[Path]:
    """The repository's files a reference may mean: the path from the root, or from `oms/` or
    `tests/` (`services/admin/audit.py`), or any file of that name when the reference is a bare
    name."""
    for base in (REPO, REPO / "oms", REPO / "tests"):
        if (base / ref).is_file():
            return [base / ref]
    return [] if "/" in ref else index.get(ref, [])


def test_no_reference_to_a_document_outside_the_repository() -> None:
    found = [f"{rel}:{line}: {m.group(0)}" for rel, line, m in _hits(OUTSIDE)]
    assert found == []


def test_every_line_and_name_reference_resolves() -> None:
    index = _by_name()
    bad = []
    for rel, line, m in _hits(LINE_REF):
        paths = _candidates(m.group("path"), index)
        if not paths:
            bad.append(f"{rel}:{line}: {m.group(0)} names no file of the repository")
            continue
        texts = [p.read_text(encoding="utf-8", errors="replace") for p in paths]
        if m.group("name"):
            name = re.escape(m.group("name"))
            test_file = m.group("path").rsplit("/", 1)[-1].startswith("test_")
            pattern = rf"^\s*(?:async )?(?:def|class) {name}\b" if test_file else rf"\b{name}\b"
            if not any(re.search(pattern, t, re.M) for t in texts):
                bad.append(f"{rel}:{line}: {m.group(0)}: no {m.group('name')} there")
        else:
            last = int(m.group("end") or m.group("line"))
            if not any(last <= len(t.splitlines()) for t in texts):
                bad.append(f"{rel}:{line}: {m.group(0)} is past the end of the file")
    assert bad == []


def test_every_adr_cited_exists() -> None:
    have = {p.name[:4] for p in (REPO / "docs" / "adr").glob("[0-9][0-9][0-9][0-9]-*.md")}
    cited = [
        (f"{rel}:{line}", num)
        for rel, line, m in _hits(ADR_REF)
        for num in re.findall(r"\d{4}", m.group("nums"))
    ]
    assert [f"{where}: ADR {num}" for where, num in cited if num not in have] == []


def test_every_cited_section_of_the_architecture_exists() -> None:
    doc = REPO / "docs" / "architecture.md"
    cited = list(_hits(SECTION_REF))
    if not doc.is_file():
        assert "docs/architecture.md" in WRITTEN_ELSEWHERE
        return
    found = re.findall(r"^#+\s+(?:\d+(?:\.\d+)*\.?\s+)?(.+?)\s*$", doc.read_text(), re.M)
    headings = set(found)
    bad = [
        f"{rel}:{line}: {m.group('section')}"
        for rel, line, m in cited
        if m.group("section") not in headings
    ]
    assert bad == []
