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
    probe_busy_timeout_s: float = 30.0  # a sandbox probe that ran out of time is asked again
    reason_chars: int = 512
    activation_ready_s: float = (
        30.0  # an agent CLI shows its ready marks within this after its pane starts
    )
    activation_confirm_s: float = (
        5.0  # ... and shows it took the instruction within this after Enter
    )
    # ... or within this after a second Enter: on a loaded machine (load 10 on two cores) a prompt
    # hook's process took longer than the first window, and the worker parked for a person
    activation_late_s: float = 15.0
    # an attempt's end waits this long for a message's typing or a result's recording
    # (chain/end_lock.py): more than twice (2 x enter_pause_s + activation_confirm_s +
    # activation_late_s)
    end_lock_wait_s: float = 45.0
    # a command that rewrites a settings file of the person's (`oms store pin-cluster`) waits this
    # long for another that is rewriting it (fsio/outside.user_file_lock)
    settings_lock_wait_s: float = 10.0
    ledger_file_bytes: int = 512 * 1024 * 1024  # the largest file the ledger covers (a bundle)
    ledger_tail_bytes: int = 4 * 1024  # read to find the ledger's last line (a line is under 1 KiB)
    ledger_line_bytes: int = 4 * 1024  # no line oms writes in the ledger is longer
    ledger_read_back_bytes: int = 64 * 1024  # `oms audit log` reads the ledger from its end so
    web_queue_rows: int = 200  # `oms web` shows this many tickets of the queue (and how many)
    web_audit_entries: int = 20  # `oms web` shows this many of the audit log's last entries
    web_poll_ms: int = 1000  # `oms web`'s page asks for the board this often (ADR 0041)
    web_url_bytes: int = 2048  # `oms web` refuses a longer request line
    web_header_s: float = 5.0  # a request's line and headers reach `oms web` within this
    web_connections: int = 32  # open connections `oms web` serves at once (one more: closed)
    web_post_bytes: int = 64 * 1024  # `oms web` refuses a longer action (a POST's body)
    web_streams: int = 8  # `oms web` keeps at most this many live streams open (more: 503)
    web_watch_ms: int = 200  # `oms web` looks this often whether the state changed (the ledger)
    web_refresh_ms: int = 5000  # ... and sends the board at least this often (ages move on)
    web_end_s: float = 2.0  # `oms web` ending waits this long for its streams to say so
    web_verifies: int = 4  # verifies `oms web` runs at once (more: refused), and ended ones shown
    web_timeline_entries: int = 100  # a worker's timeline on `oms web`: its last entries
    web_diff_bytes: int = 256 * 1024  # `oms web` shows this much of a result's diff (escaped)
    web_diff_stat_bytes: int = 32 * 1024  # ... and of its `--stat` (and its summary line)
    pane_log_tail_bytes: int = 16 * 1024  # `oms worker log` shows this much of a pane log at first
    pane_log_piece_bytes: int = 64 * 1024  # ... and reads it this much at a time
    pane_log_poll_s: float = 0.25  # `oms worker log --follow` looks for new lines this often
    dashboard_refresh_s: float = (
        0.5  # `oms conductor run`'s screen says what a tick does this often
    )
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
    # a person's message into a live agent's conversation (`oms worker send`), as read: its event
    # keeps it whole (an event is at most `event_bytes`; a newline is two bytes in JSON)
    send_text_bytes: int = 16 * 1024
    # ... typed by `tmux send-keys -l` in pieces of at most this many bytes (and a `\` before a
    # final `;`: `panes.literal`); tmux refuses a command whose arguments pass its message size
    # (16 KiB; 3.3a: "command too long" at 16,341 bytes)
    tmux_text_bytes: int = 4 * 1024
    # notifications (`[notify]`, the person's ~/.config/oms/notify.toml): time and output
    notify_timeout_s: float = 10.0
    notify_output_bytes: int = 16 * 1024  # its stdout and stderr each: more ends it (logged)
    notify_window_s: float = 3600.0  # record versions older than this are never notified
    notify_per_tick: int = 20  # notices claimed at one look (the rest: at the next tick)
    notify_children: int = (
        1  # `oms conductor notify` children a conductor runs at once (more: wait)
    )

    # moved here from the modules that use them (issue 25: every bound in one place)
    advisor_timeout_s: float = 600.0  # an advisor's CLI reviewing one intent ends by then
    advisor_output_bytes: int = 256 * 1024  # what an advisor's CLI may print (its verdict)
    bundle_bytes: int = 512 * 1024 * 1024  # a git bundle oms reads back (a result's export)
    sandbox_tmp_bytes: int = 1024 * 1024 * 1024  # a sandbox's /tmp and /var/tmp (RAM), each
    sandbox_empty_bytes: int = 64 * 1024  # a sandbox's read-only tmpfs of placeholders
    codex_auth_bytes: int = 64 * 1024  # Codex's `auth.json`, read for its login
    verify_timeout_s: int = 600  # `oms result verify`'s committed checks end by then
    verify_output_bytes: int = 1024 * 1024  # ... and what they may print
    stop_blocks: int = 3  # Stop hooks the gate blocks in a row before it lets the agent stop
    proxy_request_bytes: int = 32 * 1024 * 1024  # `[proxy] max_request_bytes`'s default
    provider_probe_timeout_s: float = 10  # a provider's quota probe ends by then
    provider_probe_output_bytes: int = 4096  # ... and what of its output is read
    schema_bytes: int = 256 * 1024  # one JSON Schema file shipped with oms
    launch_spec_bytes: int = 512 * 1024  # a launch spec, `panes/D.launch.json`
    bridge_line_bytes: int = 1024 * 1024  # one MCP line from a bridge client
    bridge_body_bytes: int = 64 * 1024  # a bridge tool's text answer (more is truncated)
    hook_stdin_bytes: int = 1024 * 1024  # a hook's payload on its stdin
    proxy_record_bytes: int = 4096  # the proxy's own record, `proxy/proxy.json`
    proxy_start_s: float = 10.0  # a proxy being started says it is ready within this
    proxy_hello_s: float = 3.0  # a proxy answers its hello (proof it is ours) within this
    proxy_header_s: float = 10.0  # a request's headers reach the proxy within this
    proxy_held_bytes: int = 512 * 1024 * 1024  # request bodies the proxy holds at once
    proxy_upstream_s: float = 600.0  # connect, and every read of a model's answer (it may think)
    proxy_drain_bytes: int = 64 * 1024 * 1024  # an answer read on after its worker left
    proxy_client_s: float = 900.0  # a proxy connection idle this long is closed
    proxy_token_bytes: int = 4096  # a dispatch's token file, `proxy/tokens/D.json`
    proxy_usage_bytes: int = 4096  # one usage file under `proxy/usage/D/`
    supervisor_log_bytes: int = 1024 * 1024  # a supervisor's log, `panes/D.log`
    instructions_bytes: int = 16 * 1024  # the committed executor instructions
    ledger_log_bytes: int = 512 * 1024 * 1024  # the ledger's log, `ledger/log`
    pane_file_bytes: int = 4096  # one pane file (`panes/D.json`, `D.kill.json`, ...)
    parsed_records: int = 50_000  # parsed record versions a process caches
    # the broker and its relays (ADR 0012); the relays inside a sandbox keep copies, because they
    # import no `typing` (ADR 0010): tests/unit/test_one_home.py proves the copies equal
    relay_answer_bytes: int = 4 * 1024 * 1024  # a broker's answer to a hook relay
    relay_hook_s: float = 9.5  # a hook relay waits this long (the CLIs give a hook 10 s)
    relay_header_bytes: int = 16 * 1024  # a relay's header on the broker socket
    relay_word_bytes: int = 4096  # ... and one argument in it
    relay_words: int = 32  # ... and its arguments
    broker_connections: int = 16  # connections one broker serves at once
    broker_header_s: float = 5.0  # a relay's header reaches the broker within this
    broker_hook_s: float = 10.0  # ... and a hook's whole request
    broker_out_bytes: int = 8 * 1024 * 1024  # answers waiting for a relay that does not read
    broker_out_s: float = 10.0  # ... and how long they wait there unread before it is dropped
    summary_bytes: int = 256 * 1024 * 1024  # a store summary file

    git_blob_bytes: int = (
        1024 * 1024
    )  # a blob oms reads whole from git (config, policy, instructions)
    git_person_chars: int = 256  # a commit's author or committer name and address
    person_name_chars: int = 128  # a person's name as their signed verdict keeps it (evidence)
    program_files: int = 16  # the files a program check may name
    ticket_input_bytes: int = 512 * 1024  # what `oms ticket` reads from a file or stdin
    ticket_body_bytes: int = 256 * 1024  # a ticket's body
    github_import_bytes: int = 512 * 1024  # a GitHub issue's JSON to import (or a list's)
    github_import_issues: int = 100  # the issues of one `oms ticket import` of a list
    proxy_error_body_bytes: int = 64 * 1024  # an error answer read before it is relayed (a quota?)
    proxy_sse_line_bytes: int = 1024 * 1024  # an SSE line read for usage (longer: relayed unread)
    proxy_usage_json_bytes: int = 4 * 1024 * 1024  # a JSON answer read for usage (likewise)
    cooldown_max_s: int = 8 * 24 * 3600  # a provider's rest (a weekly reset, a day to spare)
    admin_read_bytes: int = 1024 * 1024  # a stored file `oms audit log` or a compaction reads
    proxy_connections: int = 256  # open connections on the proxy's TCP port (a door has its own)
    proxy_descriptor_reserve: int = 24  # descriptors kept free for requests being answered
    proxy_hellos: int = 4  # handshakes being answered not closed to make room
    proxy_uploads_spared: int = 2  # admitted uploads of a dispatch not closed to make room
    archive_bytes: int = 64 * 1024 * 1024  # a compaction archive, compressed and expanded alike
    ticket_failures_kept: int = 10  # a ticket's failed attempts it remembers
    turns_without_result: int = 100  # turns without a result before a worker parks (default)
    minutes_without_result: int = 60  # ... and its minutes (default)
    record_race_rounds: int = 8  # a record write retried after losing a race (`RecordStore.update`)
    worker_move_rounds: int = 5  # ... a worker move (`services/chain/worker_moves.py`)
    hook_write_rounds: int = 3  # ... a hook's session heartbeat (`services/doors/hooks.py`)
    journal_append_rounds: int = 64  # a journal append retried after losing a race

    # the authority store on etcd (ADR 0043)
    etcd_call_s: float = 5.0  # one call to one endpoint answers within this, or the next is tried
    etcd_response_bytes: int = 16 * 1024 * 1024  # the largest answer read from one call
    etcd_range_page: int = 500  # keys read per page of a prefix range
    etcd_txn_ops: int = 128  # reads in one transaction (etcd's --max-txn-ops default)
    etcd_lock_ttl_s: int = 10  # a lock's lease lapses this long after its last keepalive
    etcd_lock_poll_s: float = 0.05  # a lock taken with a wait is asked for again this often
    etcd_watch_events: int = 10_000  # one watch read returns at most this many events
    etcd_wake_wait_s: float = 1.0  # a conductor's watch for a change waits this long at a time
    etcd_line_bytes: int = 16 * 1024 * 1024  # one line of a watch or keepalive stream
    etcd_tls_file_bytes: int = 1024 * 1024  # a CA bundle, client certificate or key read
    etcd_ledger_rounds: int = 200  # a write tried again after the keys' ledger moved under it
    etcd_ledger_backoff_s: float = 0.02  # ... waiting at most this long (random) between tries

    # hosts (ADR 0043, amendment `hosts`): a worker names its host; a host's conductor beats
    host_name_chars: int = 63  # a host's name (`[host] name`, OMS_HOST, the hostname)
    host_lease_s: int = 90  # a host whose conductor has not beaten for this long is unreachable
    host_beats_kept: int = 4  # a host's newest heartbeats kept (the older ones are removed)
    hosts_listed: int = 1000  # hosts whose heartbeats are read (more: the rest are not looked at)
    host_beat_bytes: int = 1024  # one heartbeat file
    host_claim_bytes: int = 1024  # a host name's binding to a state key (`names/<host>.json`)
    host_name_generations: int = 1000  # a host name is released (`oms host release-name`) fewer

    # review before merge (`oms result show|diff|request-changes`)
    review_comments: int = 100  # comments one request for changes carries
    review_comment_chars: int = 2000  # one comment's text
    review_comments_bytes: int = 64 * 1024  # a `--comments` file, and every comment together
    publish_body_chars: int = 60_000  # a pull request's body (the summary; GitHub keeps 65,536)
    publish_output_bytes: int = 4 * 1024 * 1024  # what `gh api` may answer one call with
    publish_labels: int = 20  # labels one publish sets on its pull request
    publish_shown_chars: int = 6000  # of a pull request's body its confirmation shows
    merge_begun_max: int = (
        20  # tries one result's merge may begin (each leaves a merge-begun event)
    )
    verify_records_max: int = 1000  # verifies of one result on an etcd store (a pointer event each)
    publish_pages: int = 10  # pages of check runs or review comments read (100 a page)
    review_path_chars: int = 1024  # the path a comment names
    review_summary_chars: int = 8192  # the previous summary a follow-up's read_dispatch carries
    review_files_shown: int = 2000  # files `oms result show` lists (the rest are counted)
    review_numstat_bytes: int = 16 * 1024 * 1024  # `git diff --numstat` of a result
    review_check_output_bytes: int = 4096  # the tail of each check's output `oms result show` shows
    review_diff_timeout_s: float = 600.0  # `oms result diff` (its pager may stay open longer)
    review_line_bytes: int = 64 * 1024  # a diff line longer than this is escaped in pieces

    # moved here from the modules that use them (issue 25 item 4: names that say a bound)
    # between an instruction's typed text and its Enter (ADR 0009 "Activation")
    enter_pause_s: float = 0.3
    # an agent CLI's screen is read this often while it is activated
    activation_poll_s: float = 0.05
    status_title_chars: int = 40  # `oms status` shows this much of a title
    # ... and at least this much of a reason, however narrow the terminal
    status_reason_min_chars: int = 20
    dashboard_queue_shown: int = 5  # `oms conductor run`'s screen lists this many queued tickets
    # a ticket's retry waits this long after its first failure (doubled after each)
    backoff_base_s: int = 10
    backoff_max_s: int = 300  # ... and at most this long
    quarantine_failures: int = 5  # failed attempts within the window that quarantine a ticket
    quarantine_window_s: int = 3600  # ... the window
    # a worker's wall-clock limit unless its role says otherwise (default)
    deadline_minutes: int = 480
    # `oms conductor run`'s interval unless the pool says otherwise (default)
    tick_seconds: int = 30
    # a dispatch waits this long for a person's approval, then the conductor rejects it (default)
    approval_wait_minutes: int = 240
    merge_title_chars: int = 100  # of a ticket's title a merge commit's subject carries
    gc_after_days: int = 7  # a finished worker's worktree is removed after this (default)
    compact_after_days: int = 30  # a closed ticket is compacted after this (default; 0: never)
    # a hook writes a session version no more often unless something new (domain/gate.py)
    hook_beat_ms: int = 5_000
    no_result_park_ms: int = 60_000  # a NO_RESULT park's `oms worker resume` is due this long after
    handle_near_shown: int = 3  # "did you mean" names at most this many ids
    # a rest at most this long the CLIs may wait out (their SDKs retry after it)
    retry_at_once_s: int = 60
    # a quota error stating no reset rests its provider this long (default)
    cooldown_minutes: int = 30
    transient_cooldown_s: int = 90  # ... and a rate limit stating no wait (default)
    # a session's heartbeat deadline: this long after its last sign of life
    session_heartbeat_ms: int = 15 * 60 * 1000
    # a session with no hook or bridge this long after it registered is silent
    channels_silent_ms: int = 120_000
    # `oms conductor run` looks for new entries between ticks this often
    conductor_poll_s: float = 0.25
    # a forced scale-down parks busy workers this long (`oms worker resume` earlier)
    force_park_ms: int = 24 * 3600 * 1000
    # a worker still running this long after its result was acted on is stopped
    result_grace_ms: int = 120_000
    compact_per_tick: int = 20  # tickets compacted at most per tick
    # a conductor looks for tickets due compaction at most this often
    compact_every_ms: int = 3600 * 1000
    left_cgroup_s: float = 0.5  # how long `end_sandbox` waits for what is left of a cgroup to end
    # a deliverer killed between the pane and the session: time for a re-delivery
    registration_wait_s: float = 60.0
    registration_poll_s: float = 0.05  # ... looked at this often
    # versions a conductor remembers looking at (more: it starts again)
    notify_looked_versions: int = 200_000
    proxy_stop_grace_s: float = 5.0  # `oms proxy stop` sends SIGKILL this long after SIGTERM
    proxy_doors_every_s: float = 0.1  # the proxy opens and closes dispatches' doors this often
    proxy_door_wait_s: float = 10.0  # a launch waits this long for its dispatch's door
    # the proxy closes connections past their deadline this often
    proxy_deadlines_every_s: float = 0.25
    proxy_drain_s: float = 120.0  # an answer read on after its worker hung up, this long at most
    proxy_flush_s: float = 1.0  # the proxy's usage book is written this often
    proxy_evicted_s: float = 1.0  # a new connection waits this long for the slot of one closed
    # the rule is asked this long after a request was served (its answer first)
    attempt_after_request_s: float = 0.05
    supervisor_grace_s: float = 2.0  # an over agent's group: SIGTERM, then SIGKILL this long after
    # generations raced for before an anchor gives up (another writer anchoring)
    anchor_rounds: int = 8
    shared_rollbacks_read: int = 256  # accepted rollbacks read off a cluster for the ticket floor
    # the ledger log's tail an anchor reads first to find an entry (then four times more)
    anchor_scan_bytes: int = 64 * 1024
    # a file time this close to the scan that saw it is looked at again
    summary_racy_ns: int = 2_000_000_000
    summary_full_scan_ns: int = 300_000_000_000  # every id directory is stat'ed at least this often

    # `oms conductor run`'s screen: a title's column, in terminal cells
    dashboard_title_cells: int = 28
    dashboard_recent: int = 5  # ... the recent ends (and skipped tickets) it lists
    # an MCP session remembers its last methods this many (each cut to 100 chars)
    bridge_log_methods: int = 64
    quota_skip_at: int = 95  # a provider this many percent into its quota is skipped (default)
    sandbox_pids: int = 2048  # a sandbox's pids limit (default; `[limits] pids`, ADR 0025)
    sandbox_memory_bytes: int = 4 * 1024 * 1024 * 1024  # ... its memory limit (never swap)
    sandbox_cpu_weight: int = 50  # ... its CPU weight (half a default share)
    sandbox_disk_bytes: int = 10 * 1024 * 1024 * 1024  # ... its worktree and home together
    sandbox_file_bytes: int = 4 * 1024 * 1024 * 1024  # ... any one file it writes (RLIMIT_FSIZE)
    # `oms worker netrelay` reads at most this much at a time (its copy: `netrelay.CHUNK`)
    netrelay_chunk_bytes: int = 64 * 1024
    proxy_door_connections: int = 16  # open connections at once on one dispatch's door
    proxy_read_bytes: int = 64 * 1024  # the proxy reads a model's answer this much at a time
    # state roots `left_behind` reads at most (only as a refusal is said)
    left_behind_roots: int = 64
    # records read again since the summary file was written: write a new one
    summary_persist_after: int = 64
    # ... or 1/this of the records, if more (20 entries written a read at most)
    summary_persist_share: int = 20
    # summary bytes allowed per record directory (an envelope: 0.6-3 KiB)
    summary_entry_bytes: int = 4096
    verify_runtime_depth: int = 3  # `oms store verify` checks the runtime areas' form this deep
    verify_tmp_entries: int = 200_000  # ... and this many entries of the homes' tmp directories

    # moved here from parameters' defaults (issue 25 item 4)
    advisor_said_chars: int = 200  # an advisor's last line of output, as a refusal quotes it
    git_timeout_s: float = 30.0  # a git command oms runs ends by then
    git_output_bytes: int = 4 * 1024 * 1024  # ... and what it may print
    tmux_timeout_s: float = 10.0  # a tmux command ends by then
    # ... and runs again at most this many times in all when the server it met was exiting
    tmux_lost_server_tries: int = 5
    # a pane's process group, waited for to end (its supervisor takes up to 4 s after a hang-up on
    # a quiet machine; a full CI run on two cores saw a demo's stop refused at 6 s)
    pane_group_end_s: float = 12.0
    demo_timeout_s: float = 60.0  # `oms demo` waits this long for the worker's result (`--timeout`)
    fleet_timeout_s: float = 300.0  # a demo fleet's run ends by then, unless told otherwise
    audit_log_entries: int = 200  # `oms audit log` shows the last this many entries (`--limit`)
    stream_stderr_bytes: int = 64 * 1024  # a streamed child's stderr kept (`process.stream`)


LIMITS = Limits()
