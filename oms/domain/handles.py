"""What a person may type where oms asks for a ticket or a dispatch (issue 26). Pure.

A *handle* is a whole id, or a prefix that names exactly one id (as git takes a commit's prefix).
Where a dispatch (a worker: its id is its dispatch's) is meant, a ticket's handle names that
ticket's one attempt that matters: its one live attempt (`LIVE`), or, for a result, the one
attempt with a result (`RESULT`), or, for a look back (`LAST`: `oms worker log`, `observe`,
`oms dispatch show`), the live attempt or else the ticket's last one. A whole id always wins
over a longer id it is a prefix of (`tkt-1` is `tkt-1`, never `tkt-10`). None or several is an
error listing the candidates; none says which ids are near what was typed (`near`: a typo, "did
you mean"), never picking one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from oms.domain.dispatches import NON_TERMINAL
from oms.errors import AmbiguousIdError, RecordNotFoundError, one_line
from oms.limits import LIMITS

LOOK_ALIKE = str.maketrans("lio", "110")  # a letter typed for the digit it looks like: no edit
Titles = Callable[[], Mapping[str, str]]  # an id's title (a dispatch's: its ticket's), read lazily
_KIND = re.compile(r"[a-z]{2,8}-")  # an id's kind (`tkt-`, `dsp-`), compared apart


def _distance(a: str, b: str, bound: int) -> int:
    """Levenshtein distance of `a` and `b`, or `bound + 1` once it is past `bound`."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
        if min(row) > bound:
            return bound + 1
    return row[-1]


def near(handle: str, ids: Iterable[str], limit: int = LIMITS.handle_near_shown) -> list[str]:
    """The ids most like `handle`, best first, at most `limit`: of the same kind (`tkt-`), within
    a few edits of the whole id or of its start as long as what was typed (a typo: `tkt-12` for
    `tkt-13`, `dsp-3fb` for `dsp-3fa…`); one typed character allows none, and a typo of a few
    characters one. A letter for the digit it looks like (`tkt-l` for `tkt-1`, `o` for `0`) is no
    edit: such a one-character handle names the id it looks like."""
    kind = _KIND.match(handle)
    prefix = kind.group(0) if kind else ""
    rest = handle[len(prefix) :].translate(LOOK_ALIKE)
    bound = (len(rest) + 2) // 4
    if bound == 0 and rest == handle[len(prefix) :]:
        return []
    scored = []
    for candidate in set(ids):
        if not candidate.startswith(prefix) or candidate == handle:
            continue
        other = candidate[len(prefix) :].translate(LOOK_ALIKE)
        if not prefix and _KIND.match(candidate):
            continue  # a kind not typed: not a typo of this
        texts = {other} if bound == 0 else {other, other[: len(rest)]}  # one character: whole
        best = min(_distance(rest, text, bound) for text in texts)
        if best <= bound:
            scored.append((best, len(candidate), candidate))
    return [candidate for *_, candidate in sorted(scored)[:limit]]


def did_you_mean(handle: str, ids: Iterable[str], titles: Titles | None = None) -> str:
    """`; did you mean tkt-12 ('Fix the test'), tkt-2?`: the near ids, else the ids whose title
    holds what was typed (3 characters or more: `flaky`), each with its title when known, escaped
    (`repr`); or "" when there is none."""
    ids = list(ids)
    found = near(handle, ids)
    known: Mapping[str, str] = {}
    if titles is not None and (found or len(handle) >= 3):
        known = titles()
    if not found and len(handle) >= 3:
        words = handle.replace("-", " ").casefold()
        seen: set[str] = set()  # a ticket's attempts share its title: its shortest id only
        for i in sorted(ids, key=lambda i: (len(i), i)):
            title = known.get(i, "")
            if (
                words in title.casefold()
                and title not in seen
                and len(found) < LIMITS.handle_near_shown
            ):
                seen.add(title)
                found.append(i)
    if not found:
        return ""
    said = [f"{i} ({one_line(known[i], 40)!r})" if known.get(i) else i for i in found]
    return f"; did you mean {', '.join(said)}?"


class Want(StrEnum):
    """Which of a ticket's attempts a ticket's handle names."""

    LIVE = "live"  # the attempt that has not ended (a dispatch not resolved, rejected, cancelled)
    RESULT = "result"  # the attempt with a recorded result
    LAST = "last"  # the live attempt, else the ticket's latest (a look at one that has ended)


@dataclass(frozen=True)
class Attempt:
    """What the resolver needs of one dispatch."""

    dispatch_id: str
    ticket_id: str
    state: str
    has_result: bool
    attempt: int = 0  # the ticket's attempt number it was proposed for (`LAST` takes the latest)


def matching(handle: str, ids: Iterable[str]) -> list[str]:
    """The ids `handle` names: itself when it is one of them, else every id it begins (sorted)."""
    known = set(ids)
    if handle in known:
        return [handle]
    return sorted(i for i in known if handle and i.startswith(handle))


def listed(ids: Sequence[str], limit: int = LIMITS.handle_candidates_shown) -> str:
    """`a, b, c` (and how many more past `limit`)."""
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def unique(
    handle: str, ids: Iterable[str], what: str, hint: str, titles: Titles | None = None
) -> str:
    """The one id of `ids` that `handle` names; `RecordNotFoundError` for none (naming the near
    ones), `AmbiguousIdError` listing them for several. `what` names the kind ("ticket")."""
    ids = list(ids)
    found = matching(handle, ids)
    if len(found) == 1:
        return found[0]
    if not found:
        raise RecordNotFoundError(
            f"no {what} {handle}{did_you_mean(handle, ids, titles)}", hint=hint
        )
    raise AmbiguousIdError(f"{what} {handle!r} names {len(found)}: {listed(found)}")


def dispatch_for(
    handle: str,
    ticket_ids: Iterable[str],
    attempts: Sequence[Attempt],
    want: Want,
    titles: Titles | None = None,
) -> str:
    """The dispatch `handle` names: a dispatch's id or prefix, or a ticket's (then its one attempt
    that `want` asks for). None names the ids near it (`titles`: theirs, read only then)."""
    dispatch_ids = [a.dispatch_id for a in attempts]
    tickets = list(ticket_ids)
    if handle in dispatch_ids:
        return handle
    if handle in tickets:
        ticket = handle
    else:
        by_dispatch, by_ticket = matching(handle, dispatch_ids), matching(handle, tickets)
        if len(by_dispatch) + len(by_ticket) > 1:
            found = by_ticket + by_dispatch
            raise AmbiguousIdError(f"{handle!r} names {len(found)}: {listed(found)}")
        if by_dispatch:
            return by_dispatch[0]
        if not by_ticket:
            nearby = did_you_mean(handle, [*tickets, *dispatch_ids], titles)
            raise RecordNotFoundError(
                f"no dispatch or ticket {handle}{nearby}",
                hint="give a dispatch's id or a ticket's (`oms dispatch list`, `oms ticket list`)",
            )
        ticket = by_ticket[0]
    return attempt_of(ticket, [a for a in attempts if a.ticket_id == ticket], want)


def attempt_of(ticket: str, attempts: Sequence[Attempt], want: Want) -> str:
    """The one attempt of `ticket` that `want` asks for, else why not (naming its attempts)."""
    if want is Want.LIVE:
        picked = [a for a in attempts if a.state in NON_TERMINAL]
        kind = "live attempt"
    elif want is Want.LAST:
        live = [a for a in attempts if a.state in NON_TERMINAL]
        number = max((a.attempt for a in attempts), default=0)
        latest = [a for a in attempts if a.attempt == number]
        # (a dispatch cancelled and proposed again shares its attempt: the one with a result)
        picked = live or [a for a in latest if a.has_result] or latest
        kind = "live attempt" if live or not attempts else "latest attempt"
    else:
        with_result = [a for a in attempts if a.has_result]
        # a result not yet acted on comes before one already resolved (merged or discarded)
        picked = [a for a in with_result if a.state in NON_TERMINAL] or with_result
        kind = "result"
    if len(picked) == 1:
        return picked[0].dispatch_id
    every = [f"{a.dispatch_id} ({a.state})" for a in attempts]
    if not picked:
        theirs = f"its dispatches: {listed(every)}" if every else "it has no dispatch"
        hint = "name the dispatch by its id (`oms dispatch list`)"
        if not every:  # nothing to name yet: the conductor (or `oms dispatch propose`) makes one
            hint = "no attempt has started yet: `oms status` says what the ticket waits for"
        raise RecordNotFoundError(f"ticket {ticket} has no {kind}; {theirs}", hint=hint)
    raise AmbiguousIdError(
        f"ticket {ticket} has {len(picked)} {kind}s: "
        f"{listed([f'{a.dispatch_id} ({a.state})' for a in picked])}",
        hint="name the dispatch by its id",
    )
