"""The delivery protocol's steps, as the spin model `tests/model/delivery.pml` names them (ADR 0014). Pure data.

`PROTOCOL_STEPS` maps each step of the model (an `inline` or `proctype` there) to the function of the code it
models, as `module:qualname`. `NOT_MODELLED` names the functions that write protocol state (a record, a
receipt, a lock, a pane, an exit or init record) but are left out of the model, each with the reason.
`tests/model/test_protocol_model.py` fails when the model gains or loses a step this table lacks, when a
function named here is gone, or when a function of the code starts writing protocol state without being in
one of the two tables: moving or renaming a function is one line here.
"""

from __future__ import annotations

DELIVERY = "oms.services.delivery:Delivery"
LAUNCHER = "oms.services.launcher"
LIFECYCLE = "oms.services.lifecycle"

PROTOCOL_STEPS: tuple[tuple[str, str], ...] = (
    # the store: record CAS with operation ids, and the outbox
    ("_write", "oms.store.records:RecordStore._write"),
    ("_replay", "oms.store.records:RecordStore._replay"),
    ("lock", "oms.store.outbox:Outbox.lock"),
    ("commit_receipt", "oms.store.outbox:Outbox.commit_receipt"),
    # delivery
    ("deliver", "oms.services.deliver:deliver"),
    ("_check_binding", "oms.services.deliver:_check_binding"),
    ("_launch", f"{LAUNCHER}:launch_worker"),
    ("_earlier_launch", f"{LAUNCHER}:_earlier_launch"),
    ("leave_begun", "oms.store.panefiles:leave_begun"),
    ("_recover", "oms.services.deliver:_recover"),
    ("_park_worker", f"{LAUNCHER}:park"),
    ("_worker_step", "oms.services.worker_moves:move"),
    ("_session_step", f"{DELIVERY}.session_step"),
    ("_end_worker", "oms.domain.workers:end"),
    ("ensure", "oms.adapters.panes:Panes.ensure"),
    ("stopped_meanwhile", "oms.services.launch_guards:stopped"),
    ("_register_pane", "oms.services.registration:register_pane"),
    ("_register_session", "oms.services.registration:register_session"),
    ("activate", f"{LAUNCHER}:activate"),
    ("_after_failed_activation", f"{LAUNCHER}:_after_failed_activation"),
    # lifecycle requests
    ("park", f"{LIFECYCLE}:park"),
    ("resume", f"{LIFECYCLE}:resume"),
    ("stop", f"{LIFECYCLE}:stop"),
    ("observe", "oms.services.reconcile:observe"),
    ("reconcile", "oms.services.reconcile:reconcile"),
    ("_end", "oms.services.reconcile:_end"),
    ("_keep_resumable", "oms.services.reconcile:_keep_resumable"),
    # liveness and fences
    ("promote", "oms.services.liveness:promote"),
    ("record_hook", "oms.services.liveness:record_hook"),
    ("fence_park", "oms.services.fence:park"),
    ("fence_require_live", "oms.services.fence:require_live"),
    # the supervisor
    ("supervise", "oms.services.supervise:supervise"),
    ("await_registration", "oms.services.launch_guards:await_registration"),
    ("record_exit", "oms.services.supervise:record_exit"),
    ("record_init", "oms.services.reaper:record_init"),
    ("end_sandbox", "oms.services.reaper:end_sandbox"),
    # results
    ("acknowledge_dispatch", "oms.services.bridge:Tools.acknowledge_dispatch"),
    ("record_result", "oms.services.results:record_result"),
    ("_finish_worker", "oms.services.results:_finish_worker"),
)

NOT_MODELLED: tuple[tuple[str, str], ...] = (
    ("oms.services.lifecycle:_launch_unstarted", "resume's launch of a never-launched worker: part of `resume`"),
    ("oms.services.launcher:_after_pane_failure", "the model's pane and session registrations do not fail"),
    ("oms.services.launcher:start_pane", "the guard, the begun mark, the spec, then the pane: `_launch`'s steps"),
    ("oms.services.relaunch:relaunch", "resume of a dead pane on the agent's own session: not modelled yet"),
    ("oms.services.results:_record_locked", "the body of `record_result` under its per-dispatch lock"),
    ("oms.services.supervise:_Run.end_sandbox", "the sandbox ended before the record: part of `supervise`"),
    ("oms.services.reconcile:check_liveness", "silent channels park after a deadline: time"),
    ("oms.services.supervise:_Run._serve", "the hang-up escalation: one step of `supervise`"),
    ("oms.services.supervise:_Run._check", "a resource bound ends the sandbox: as `end_sandbox`"),
    (
        "oms.services.attempt_end:record_end",
        "an over attempt's end by its supervisor (ADR 0028): `stop`'s steps after `end_sandbox`",
    ),
    ("oms.services.supervise:_Run._status", "bubblewrap naming its init: `record_init`"),
    ("oms.services.liveness:_record", "the channels' proof events: flags set by `record_hook`/`acknowledge_dispatch`"),
)
