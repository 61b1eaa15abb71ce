"""The delivery protocol's steps, as the spin models `tests/model/delivery.pml` and
`tests/model/hosts.pml` (cross-host delivery on an etcd store) name them (ADR 0014, ADR 0043).
Pure data.

`PROTOCOL_STEPS` maps each step of the model (an `inline` or `proctype` there) to the function of
the code it models, as `module:qualname`. `NOT_MODELLED` names the functions that write protocol
state (a record, a receipt, a lock, a pane, an exit or init record) but are left out of the model,
each with the reason. `tests/model/test_protocol_model.py` fails when the model gains or loses a
step this table lacks, when a function named here is gone, or when a function of the code starts
writing protocol state without being in one of the two tables: moving or renaming a function is one
line here.
"""

from __future__ import annotations

CONTEXT = "oms.services.delivery.context:DeliveryContext"
LAUNCHER = "oms.services.delivery.launch"
LIFECYCLE = "oms.services.delivery.lifecycle"

PROTOCOL_STEPS: tuple[tuple[str, str], ...] = (
    # the store: record CAS with operation ids, and the outbox
    ("_write", "oms.store.records:RecordStore._write"),
    ("_replay", "oms.store.records:RecordStore._replay"),
    ("lock", "oms.store.outbox:Outbox.lock"),
    ("commit_receipt", "oms.store.outbox:Outbox.commit_receipt"),
    # the store on etcd (hosts.pml): a lock under a lease, its create revision the fencing token
    # every write it protects compares
    ("acquire", "oms.adapters.etcd.store:acquire"),
    ("release", "oms.adapters.etcd.store:release"),
    ("publish_version", "oms.adapters.etcd.store:EtcdStore.publish_version"),
    ("create_once", "oms.adapters.etcd.store:EtcdStore.create_once"),
    # delivery
    ("deliver", "oms.services.delivery.once:deliver"),
    ("_check_binding", "oms.services.delivery.once:_check_binding"),
    ("_launch", f"{LAUNCHER}:launch_worker"),
    ("_earlier_launch", f"{LAUNCHER}:_earlier_launch"),
    ("leave_begun", "oms.store.panefiles:leave_begun"),
    ("_recover", "oms.services.delivery.once:_recover"),
    ("_park_worker", f"{LAUNCHER}:park"),
    ("_worker_step", "oms.services.chain.worker_moves:move"),
    ("_session_step", f"{CONTEXT}.session_step"),
    ("_end_worker", "oms.domain.workers:end"),
    ("ensure", "oms.adapters.panes:TmuxPanes.ensure"),
    ("stopped_meanwhile", "oms.services.delivery.start_guard:stopped"),
    ("_register_pane", "oms.services.delivery.registration:register_pane"),
    ("_register_session", "oms.services.delivery.registration:register_session"),
    ("activate", f"{LAUNCHER}:activate"),
    ("_after_failed_activation", f"{LAUNCHER}:_after_failed_activation"),
    # lifecycle requests
    ("park", f"{LIFECYCLE}:park"),
    ("resume", f"{LIFECYCLE}:resume"),
    ("stop", f"{LIFECYCLE}:stop"),
    ("observe", "oms.services.delivery.reconcile:observe"),
    ("reconcile", "oms.services.delivery.reconcile:reconcile"),
    ("_end", "oms.services.delivery.reconcile:_end"),
    ("_keep_resumable", "oms.services.delivery.reconcile:_keep_resumable"),
    # liveness and fences
    ("promote", "oms.services.chain.liveness:promote"),
    ("record_hook", "oms.services.chain.liveness:record_hook"),
    ("fence_park", "oms.services.chain.fence:park"),
    ("fence_require_live", "oms.services.chain.fence:require_live"),
    # the supervisor
    ("supervise", "oms.services.supervisor.supervise:supervise"),
    ("await_registration", "oms.services.delivery.start_guard:await_registration"),
    ("record_exit", "oms.services.supervisor.supervise:record_exit"),
    ("record_init", "oms.services.containment.reaper:record_init"),
    ("end_sandbox", "oms.services.containment.reaper:end_sandbox"),
    # results
    ("acknowledge_dispatch", "oms.services.doors.bridge:Tools.acknowledge_dispatch"),
    ("record_result", "oms.services.chain.results:record_result"),
    ("_finish_worker", "oms.services.chain.results:_finish_worker"),
)

NOT_MODELLED: tuple[tuple[str, str], ...] = (
    (
        "oms.store.records:RecordStore._decide_loop",
        "the read-decide-write loop of every record writer: each round is one `_write`, and a lost "
        "race is decided again on the latest version as each actor of the model re-reads",
    ),
    ("oms.store.records:RecordStore.write_next", "one round of `_decide_loop`: one `_write`"),
    (
        "oms.services.delivery.lifecycle:_launch_unstarted",
        "resume's launch of a never-launched worker: part of `resume`",
    ),
    (
        "oms.services.delivery.launch:_end_pane",
        "the model's pane and session registrations do not fail",
    ),
    (
        "oms.services.delivery.launch:start_pane",
        "the guard, the begun mark, the spec, then the pane: `_launch`'s steps",
    ),
    (
        "oms.services.delivery.native_resume:relaunch",
        "resume of a dead pane on the agent's own session: not modelled yet",
    ),
    (
        "oms.services.delivery.native_resume:_Relaunch.step",
        "the relaunch's steps (`domain/lifecycle.py` decides them): not modelled yet",
    ),
    (
        "oms.services.delivery.native_resume:_Relaunch.perform",
        "the relaunch's effects (`domain/lifecycle.py` decides them): not modelled yet",
    ),
    (
        "oms.services.delivery.lifecycle:_Request.stop_pane",
        "the kill marker, the pane and its sandbox ended: `stop`'s first step",
    ),
    (
        "oms.services.delivery.lifecycle:_Request.halt",
        "oms's own park of a run that cannot pause ends its pane after the park is recorded "
        "(`park`'s last step, ADR 0045 `halt`): its end keeps the park, as a pane's death would",
    ),
    (
        "oms.services.delivery.lifecycle:_Request.cleanup",
        "the stopped pane's files dropped once its end is recorded: `stop`'s last effect",
    ),
    (
        "oms.services.chain.results:_record_locked",
        "the body of `record_result` under its per-dispatch lock",
    ),
    (
        "oms.services.supervisor.supervise:_Run.end_sandbox",
        "the sandbox ended before the record: part of `supervise`",
    ),
    (
        "oms.services.delivery.reconcile:check_liveness",
        "silent channels park after a deadline: time",
    ),
    (
        "oms.services.supervisor.supervise:_Run._serve",
        "the hang-up escalation: one step of `supervise`",
    ),
    (
        "oms.services.supervisor.supervise:_Run._check",
        "a resource bound ends the sandbox: as `end_sandbox`",
    ),
    (
        "oms.services.supervisor.attempt_end:record_end",
        "an over attempt's end by its supervisor (ADR 0028): `stop`'s steps after `end_sandbox`",
    ),
    ("oms.services.supervisor.supervise:_Run._status", "bubblewrap naming its init: `record_init`"),
    (
        "oms.services.chain.liveness:_record",
        "the channels' proof events: flags set by `record_hook`/`acknowledge_dispatch`",
    ),
)
