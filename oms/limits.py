"""Every bound oms puts on input, in one place (STYLE.md 5).

A limit is a named field, never a literal at the call site, so a reviewer can see all of them at once
and a test can shrink them.
"""

from __future__ import annotations

from typing import NamedTuple


class Limits(NamedTuple):
    """Byte, count and time bounds. The defaults are what oms ships with."""

    record_bytes: int = 256 * 1024
    event_bytes: int = 64 * 1024
    receipt_bytes: int = 64 * 1024
    evidence_bytes: int = 1024 * 1024
    journal_entry_bytes: int = 64 * 1024
    state_meta_bytes: int = 16 * 1024
    lock_bytes: int = 4 * 1024
    config_bytes: int = 256 * 1024
    policy_bytes: int = 256 * 1024
    proc_stat_bytes: int = 4 * 1024
    json_depth: int = 64
    id_length: int = 128
    path_component_bytes: int = 255
    path_components: int = 32
    records_per_kind: int = 1_000_000
    versions_per_record: int = 100_000
    openat2_eagain_retries: int = 16
    process_timeout_s: float = 30.0
    process_output_bytes: int = 1024 * 1024
    probe_timeout_s: float = 10.0
    reason_chars: int = 512
    activation_ready_s: float = 30.0  # an agent CLI shows its ready marks within this after its pane starts
    activation_confirm_s: float = 5.0  # ... and shows it took the instruction within this after Enter
    ledger_file_bytes: int = 512 * 1024 * 1024  # the largest file the ledger covers (a bundle)
    ledger_tail_bytes: int = 4 * 1024  # read to find the ledger's last line (a line is under 1 KiB)
    anchor_bytes: int = 4 * 1024  # an anchor or a checkpoint (ADR 0027)
    attempt_check_s: float = 1.0  # a supervisor asks the rule at least this often (ADR 0028)
    proxy_unasked_output: int = 32_000  # output reserved for a request naming no bound (ADR 0028)


LIMITS = Limits()
