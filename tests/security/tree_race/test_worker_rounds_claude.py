"""The tree race on a live worker's tree (`test_worker_rounds.py`: the same tests) with the real
Claude Code's Bash tool as the attacker's hand: one session for the module, claude's share of the
rounds (`rig.SHARES`)."""

from __future__ import annotations

from tests.security.tree_race.test_worker_rounds import (
    hand_fixture,
    race,
    test_a_salvage_never_reads_through_the_agents_links,
    test_committing_a_results_leftovers_never_reads_through_the_agents_links,
    test_deliverys_checkout_verification_never_reads_through_the_agents_links,
    test_the_restore_after_a_lapse_never_reads_or_removes_through_the_agents_links,
    test_what_the_agent_reads_back_of_the_repository_holds_no_host_byte,
)

attacker = hand_fixture("claude")

__all__ = [
    "attacker",
    "race",
    "test_a_salvage_never_reads_through_the_agents_links",
    "test_committing_a_results_leftovers_never_reads_through_the_agents_links",
    "test_deliverys_checkout_verification_never_reads_through_the_agents_links",
    "test_the_restore_after_a_lapse_never_reads_or_removes_through_the_agents_links",
    "test_what_the_agent_reads_back_of_the_repository_holds_no_host_byte",
]
