"""`adapters/github.parse_reviews` (`GET pulls/N/reviews`, ADR 0040 amended) takes whatever GitHub
(or anyone answering as it) sends: it never raises, and a review is carried into a request for
changes only when it asks (`CHANGES_REQUESTED` or `COMMENTED`, a body), its author may write and
it reviewed the result's commit (or GitHub did not say which);
what `publish.as_comments` makes of any of them is bounded and holds no control character."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from oms.adapters import github
from oms.domain import review as rules
from oms.limits import LIMITS
from oms.services.finishing import publish
from tests.strategies import profile_values, texts

STATES = st.sampled_from(
    ["APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING", "", "changes_requested"]
)
ASSOCIATIONS = st.sampled_from(
    ["OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIMER", "NONE", "", "owner"]
)
REVIEWED = "a" * 40  # the result commit a request for changes is of
reviews = st.fixed_dictionaries(
    {},
    optional={
        "user": st.fixed_dictionaries({}, optional={"login": texts | profile_values})
        | profile_values,
        "state": STATES | profile_values,
        "body": texts | st.text(max_size=3000) | profile_values,
        "author_association": ASSOCIATIONS | profile_values,
        "commit_id": st.sampled_from([REVIEWED, "b" * 40, ""]) | profile_values,
    },
)


@given(st.lists(reviews | profile_values, max_size=8) | profile_values)
def test_any_answer_parses_and_only_a_writers_asking_review_is_carried(doc: object) -> None:
    found = github.parse_reviews(doc)
    for r in found:
        assert r.carried == (
            r.state in ("CHANGES_REQUESTED", "COMMENTED")
            and bool(r.body.strip())
            and r.association in ("OWNER", "MEMBER", "COLLABORATOR")
        )
        assert r.carried_for(REVIEWED) == (r.carried and r.commit in (REVIEWED, ""))
    # more than a request may carry
    carried = publish.as_comments((), (), tuple(found * 40), commit=REVIEWED)
    count = sum(r.carried_for(REVIEWED) for r in found)
    assert len(carried) == min(LIMITS.review_comments, 40 * count)
    for c in carried:
        assert len(c.text) <= LIMITS.review_comment_chars
        assert not any(rules.unsafe_char(ch) for ch in c.text if ch != "\n")
        assert (c.path, c.line) == (None, None)  # a review's own body is on no line
