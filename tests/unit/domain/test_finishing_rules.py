"""The finishing rules (`domain/finishing.py`, issue 14): the settings parser never crashes and
falls back to its defaults; merge is refused, with its reason, for each way the evidence does not
cover the merge."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import JsonObject
from oms.domain import finishing
from oms.limits import LIMITS
from tests.strategies import profile_values

C1, C2, BASE, OTHER = "1" * 40, "2" * 40, "3" * 40, "4" * 40
GOOD: JsonObject = {
    "commit": C1,
    "passed": True,
    "mode": "merge-commit",
    "target": "main",
    "base": BASE,
}


@given(
    st.dictionaries(
        st.sampled_from(["verify", "merge", "worktrees", "x"]), profile_values, max_size=4
    )
)
def test_any_document_parses_to_settings(doc: JsonObject) -> None:
    fin = finishing.parse(doc)
    assert fin.timeout_s > 0
    assert fin.max_output > 0
    assert all(isinstance(a, tuple) for a in fin.commands)


def test_the_defaults_and_a_full_table() -> None:
    assert finishing.parse({}) == finishing.Finishing()
    doc: JsonObject = {
        "verify": {
            "commands": [["make", "test"]],
            "timeout_seconds": 5,
            "max_output_bytes": 2048,
            "show": ["/opt/t"],
        },
        "merge": {"into": "trunk", "mode": "fast-forward"},
        "worktrees": {"directory": "../w", "gc_after_days": 0, "archive_bundles": True},
    }
    fin = finishing.parse(doc)
    assert fin == finishing.Finishing(
        (("make", "test"),), 5, 2048, ("/opt/t",), "trunk", "fast-forward", 0, True
    )


@pytest.mark.parametrize(
    ("evidence", "why"),
    [
        (None, "no verification evidence"),
        ({**GOOD, "commit": C2}, "another commit"),
        ({**GOOD, "passed": False}, "verification failed"),
        ({**GOOD, "target": "release"}, "merge into release"),
        ({**GOOD, "mode": "fast-forward"}, "fast-forward merge"),
        ({**GOOD, "base": OTHER}, "the base moved"),
    ],
)
def test_merge_is_refused_for_each_gap_in_its_evidence(
    evidence: JsonObject | None, why: str
) -> None:
    found = finishing.merge_refusal(
        evidence=evidence, result_commit=C1, target="main", target_head=BASE, mode="merge-commit"
    )
    assert found is not None
    assert why in found
    assert (
        finishing.merge_refusal(
            evidence=GOOD, result_commit=C1, target="main", target_head=BASE, mode="merge-commit"
        )
        is None
    )


HOSTILE_TITLES = [
    "Fix it\n\nSigned-off-by: Eve <eve@evil.example>",
    "Fix it\nCo-authored-by: Eve <eve@evil.example>",
    "\x1b]52;c;ZXZpbA==\x07\x1b[2J\rFix it",
    "Fix it \u2028Signed-off-by: Eve\u0085Verified: refs/x \u202e",
    "caf\udcc3\udca9 \ufffd \xff\xfe",
    "x" * 1_000_000,
]


@given(st.text(max_size=2000) | st.sampled_from(HOSTILE_TITLES))
def test_a_merge_message_is_one_subject_line_and_its_one_trailer(title: str) -> None:
    """Whatever a ticket's title holds (issue 27 item 7: escapes, newlines, a `Signed-off-by:`
    line, a megabyte, text that is not UTF-8), the merge commit's message is its subject — one
    printable ASCII line, bounded — a blank line, and `Verified:`: nothing a title adds becomes
    a body line or a trailer."""
    message = finishing.merge_message("dsp-1", "tkt-1", title, "refs/oms/evidence/1")
    subject, blank, trailer = message.split("\n")
    assert (blank, trailer) == ("", "Verified: refs/oms/evidence/1")
    assert subject.startswith("Merge dsp-1 (tkt-1: ")
    assert subject.endswith(")")
    assert all(" " <= c <= "~" for c in subject)
    assert len(subject) <= len("Merge dsp-1 (tkt-1: )") + LIMITS.merge_title_chars
