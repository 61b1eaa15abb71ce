"""`domain/own_pane.decide`: a pane's supervisor starts only on a session of its dispatch that
names its own pane (ADR 0043 "branch `ownpane`", GAP_LOCAL_BEGUN)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import JsonObject
from oms.domain import own_pane
from oms.domain.own_pane import PaneProcess

BOOT = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
processes = st.builds(
    PaneProcess,
    st.sampled_from([BOOT, "11111111-2222-3333-4444-555555555555"]),
    st.integers(2, 6),
    st.integers(0, 3),
)


def _session(dispatch_id: str, pane: PaneProcess | None) -> JsonObject:
    doc: JsonObject = {"dispatch_id": dispatch_id, "tmux_pane_id": "%1"}
    if pane is not None:
        doc["pane_process"] = pane.to_json()
    return doc


@given(own=processes, named=st.none() | processes, relaunch=st.booleans(), ours=st.booleans())
def test_it_starts_only_on_a_session_of_its_dispatch_naming_it(
    own: PaneProcess, named: PaneProcess | None, relaunch: bool, ours: bool
) -> None:
    session = _session("dsp-1" if ours else "dsp-2", named)
    verdict, why = own_pane.decide(session, "dsp-1", (own,), relaunch=relaunch)
    if not ours:
        assert (verdict, why) == ("refuse", own_pane.ANOTHERS)
    elif named is None or (named == own and own.start_ticks > 0):  # None: written before
        assert verdict == "start"
    elif relaunch:  # the relaunch moves the session to this pane once it exists
        assert verdict == "wait"
    else:
        assert (verdict, why) == ("refuse", own_pane.ANOTHER_PANE)
    if verdict == "start" and named is not None:  # never another pane's, on any host or boot
        assert named == own


@given(own=processes, relaunch=st.booleans())
def test_no_session_yet_is_waited_for(own: PaneProcess, relaunch: bool) -> None:
    assert own_pane.decide(None, "dsp-1", (own,), relaunch=relaunch) == ("wait", "")


def test_a_stale_pane_refuses_the_session_the_other_pane_registered() -> None:
    first, stale = PaneProcess(BOOT, 100, 5000), PaneProcess(BOOT, 200, 5100)
    other_host = PaneProcess("11111111-2222-3333-4444-555555555555", 100, 5000)
    session = _session("dsp-1", first)
    assert own_pane.decide(session, "dsp-1", (first,)) == ("start", "")
    assert own_pane.decide(session, "dsp-1", (stale,)) == ("refuse", own_pane.ANOTHER_PANE)
    assert own_pane.decide(session, "dsp-1", (other_host,)) == ("refuse", own_pane.ANOTHER_PANE)
    reused_pid = PaneProcess(BOOT, 100, 9000)  # the pid again, a later process: not the pane
    assert own_pane.decide(session, "dsp-1", (reused_pid,)) == ("refuse", own_pane.ANOTHER_PANE)


def test_a_pane_whose_process_had_ended_is_no_one() -> None:
    gone = PaneProcess(BOOT, 100, 0)
    assert own_pane.decide(_session("dsp-1", gone), "dsp-1", (gone,))[0] == "refuse"


def test_a_onefile_supervisor_knows_its_pane_as_its_parent() -> None:
    """A onefile build's bootloader is the pane's first process and runs oms as its child."""
    pane, child = PaneProcess(BOOT, 100, 5000), PaneProcess(BOOT, 101, 5001)
    session = _session("dsp-1", pane)
    assert own_pane.decide(session, "dsp-1", (child, pane)) == ("start", "")
    stale = (PaneProcess(BOOT, 201, 5101), PaneProcess(BOOT, 200, 5100))
    assert own_pane.decide(session, "dsp-1", stale) == ("refuse", own_pane.ANOTHER_PANE)


def test_named_reads_what_to_json_writes() -> None:
    pane = PaneProcess(BOOT, 7, 42)
    assert own_pane.named(_session("dsp-1", pane)) == pane
    assert own_pane.named(_session("dsp-1", None)) is None
