"""Every bound oms puts on input, in one place (ADR 0001).

A limit is a named field, never a literal at the call site, so a reviewer can see all of them at
once and a test can shrink them.
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
    handle_candidates_shown: int = 6  # an ambiguous or unresolvable handle lists this many ids
    folder_label_chars: int = 24  # a repository's name in the folders oms keeps for it (ADR 0032)
    tmux_socket_path_bytes: int = 107  # `<state root>/tmux.sock`: what an AF_UNIX address holds
    path_component_bytes: int = 255
    path_components: int = 32
    records_per_kind: int = 1_000_000
    versions_per_record: int = 100_000
    openat2_eagain_retries: int = 16
    process_timeout_s: float = 30.0
    process_output_bytes: int = 1024 * 1024
    probe_timeout_s: float = 10.0
    reason_chars: int = 512
    activation_ready_s: float = (
        30.0  # an agent CLI shows its ready marks within this after its pane starts
    )
    activation_confirm_s: float = (
        5.0  # ... and shows it took the instruction within this after Enter
    )
    ledger_file_bytes: int = 512 * 1024 * 1024  # the largest file the ledger covers (a bundle)
    ledger_tail_bytes: int = 4 * 1024  # read to find the ledger's last line (a line is under 1 KiB)
    anchor_bytes: int = 4 * 1024  # an anchor or a checkpoint (ADR 0027)
    attempt_check_s: float = 1.0  # a supervisor asks the rule at least this often (ADR 0028)
    proxy_unasked_output: int = 32_000  # output reserved for a request naming no bound (ADR 0028)
    # the model proxy (issue 24's soak: a proxy per state root, its log bounded)
    proxy_log_bytes: int = 16 * 1024 * 1024  # proxy.log grows to this, then is proxy.log.1
    proxy_serve_wait_s: float = 5.0  # a new proxy waits this long for the one before it to exit
    proxy_watch_s: float = 0.25  # a proxy checks it is the recorded one this often
    proxy_door_retry_s: float = 5.0  # a door that cannot open is tried again at most this seldom
    tree_job_bytes: int = 1024 * 1024  # a tree job's request on its stdin (docs/adr/0024)
    tree_answer_bytes: int = 1024 * 1024  # ... and its answer on its stdout
    tree_job_timeout_s: float = 300.0  # a tree job (staging thousands of files too) ends by then
    tree_file_bytes: int = 256 * 1024 * 1024  # one file a tree job stages (read whole, then a blob)
    tree_import_bytes: int = 64 * 1024 * 1024  # blob bytes handed to one `git fast-import`
    tree_stderr_bytes: int = 64 * 1024  # what a tree job may say on stderr beside its answer
    # a tree job's own cgroup (what an agent left must not take the host: a `.gitignore` is held
    # by git at ~5x its size; a staged file is read whole and deflated by fast-import)
    tree_job_memory_bytes: int = 2 * 1024 * 1024 * 1024
    tree_job_pids: int = 256  # oms, git (its threads), fast-import
    tree_job_file_bytes: int = 1024 * 1024 * 1024  # a pack fast-import writes (<= 256 MiB blobs)
    # `oms result verify`'s checkout: its tree listed at object level first (more is refused)
    checkout_listing_bytes: int = 64 * 1024 * 1024
    tree_import_blobs: int = 100_000  # blobs handed to one `git fast-import` at most
    tree_status_bytes: int = 4 * 1024 * 1024  # delivery's sandboxed `git status`: more is not clean
    tree_text_chars: int = 4096  # a path, ref, name or one-line reason in a tree job or its answer
    tree_message_chars: int = 64 * 1024  # a commit message in a tree job
    gitdir_pointer_bytes: int = 4096  # a worktree's `.git` file, its admin dir's `gitdir`
    salvage_refs: int = 1000  # salvage refs of one attempt (`<attempt>`, `-2`, ... `-1000`)
    restore_rounds: int = 2  # salvages and restores before a launch (a reset .gitignore uncovers)
    host_facts_s: float = 5.0  # a sandbox plan's host facts (/etc's masks) are read again after
    # a sandbox's cgroup and disk (issue 23, ADR 0025)
    cgroup_file_bytes: int = 64 * 1024  # a cgroup file, /proc/self/cgroup
    mountinfo_bytes: int = 4 * 1024 * 1024  # /proc/self/mountinfo (a container host has thousands)
    cgroup_adopt_rounds: int = 16  # v2: rounds moving a cgroup's processes (they fork) to its leaf
    cgroup_remove_s: float = 5.0  # killing what is left of a sandbox's cgroup and removing it
    cgroup_poll_s: float = 0.1  # how often a running sandbox's limit counters are read
    disk_walk_every_s: float = 5.0  # a worker's worktree and home: measured again this long after
    check_disk_every_s: float = 1.0  # a check's checkout: measured again this long after a walk
    disk_walk_share: float = 0.05  # ... or later: walking takes at most this share of the time
    disk_walk_slice: int = 250  # entries measured between two turns of the broker's loop (a few ms)
    disk_walk_entries: int = 2_000_000  # a tree with more entries counts as over its disk bound
    disk_walk_depth: int = 256  # ... and so does one deeper than this (one descriptor per level)
    disk_walk_links: int = 100_000  # hard-linked files remembered to count once (beyond: again)
    # a sandbox's share of each per-user kernel quota its host user has (inotify instances and
    # watches, fanotify groups and marks, POSIX message-queue bytes): at most 1/this of each
    sandbox_quota_share: int = 8
    # the frozen bundle (docs/adr/0033): its entries `oms version` digests, its build information
    bundle_entries: int = 100_000  # the onedir bundle has ~1,400
    build_info_bytes: int = 4 * 1024  # build-info.json (about 500 bytes)
    # review before merge (`oms result show|diff|request-changes`)
    review_comments: int = 100  # comments one request for changes carries
    review_comment_chars: int = 2000  # one comment's text
    review_comments_bytes: int = 64 * 1024  # a `--comments` file, and every comment together
    review_path_chars: int = 1024  # the path a comment names
    review_summary_chars: int = 8192  # the previous summary a follow-up's read_dispatch carries
    review_files_shown: int = 2000  # files `oms result show` lists (the rest are counted)
    review_numstat_bytes: int = 16 * 1024 * 1024  # `git diff --numstat` of a result
    review_check_output_bytes: int = 4096  # the tail of each check's output `oms result show` shows
    review_diff_timeout_s: float = 600.0  # `oms result diff` (its pager may stay open longer)
    review_line_bytes: int = 64 * 1024  # a diff line longer than this is escaped in pieces


LIMITS = Limits()
