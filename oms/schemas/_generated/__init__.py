"""Which module holds each schema's predicate. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

SOURCE_SHA256 = '6326ef9fe92ae306e44ba683a4d53f211ce1a7cd94031eff4c3243b46b2bf526'

# entry (a schema, or `schema#/$defs/key`) -> the module that holds its predicate
MODULES: dict[str, str] = {
    'advisor-request': 'advisor_request',
    'advisor-verdict': 'advisor_verdict',
    'authorization': 'authorization',
    'bridge-tools': 'bridge_tools',
    'bridge-tools#/$defs/acknowledge_dispatch_input': 'bridge_tools',
    'bridge-tools#/$defs/acknowledge_dispatch_output': 'bridge_tools',
    'bridge-tools#/$defs/read_dispatch_input': 'bridge_tools',
    'bridge-tools#/$defs/read_dispatch_output': 'bridge_tools',
    'bridge-tools#/$defs/record_dispatch_result_input': 'bridge_tools',
    'bridge-tools#/$defs/record_dispatch_result_output': 'bridge_tools',
    'config': 'config',
    'defs': 'defs',
    'defs#/$defs/abs_path': 'defs',
    'defs#/$defs/actor': 'defs',
    'defs#/$defs/base64': 'defs',
    'defs#/$defs/branch': 'defs',
    'defs#/$defs/capability': 'defs',
    'defs#/$defs/commit': 'defs',
    'defs#/$defs/count': 'defs',
    'defs#/$defs/engine': 'defs',
    'defs#/$defs/model_endpoint': 'defs',
    'defs#/$defs/model_endpoint_or_null': 'defs',
    'defs#/$defs/model_id': 'defs',
    'defs#/$defs/opaque_id': 'defs',
    'defs#/$defs/pane_id': 'defs',
    'defs#/$defs/person': 'defs',
    'defs#/$defs/public_key': 'defs',
    'defs#/$defs/reason': 'defs',
    'defs#/$defs/repository': 'defs',
    'defs#/$defs/role_id': 'defs',
    'defs#/$defs/sandbox': 'defs',
    'defs#/$defs/sha256': 'defs',
    'defs#/$defs/text': 'defs',
    'defs#/$defs/timestamp': 'defs',
    'defs#/$defs/title': 'defs',
    'defs#/$defs/token': 'defs',
    'defs#/$defs/transport': 'defs',
    'defs#/$defs/url': 'defs',
    'defs#/$defs/uuid': 'defs',
    'defs#/$defs/version': 'defs',
    'dispatch': 'dispatch',
    'dispatch-intent': 'dispatch_intent',
    'event': 'event',
    'evidence': 'evidence',
    'evidence-envelope': 'evidence_envelope',
    'journal-entry': 'journal_entry',
    'kill-marker': 'kill_marker',
    'op-index': 'op_index',
    'outbox-receipt': 'outbox_receipt',
    'pane-exit': 'pane_exit',
    'pane-registry': 'pane_registry',
    'record-envelope': 'record_envelope',
    'role-policy': 'role_policy',
    'session': 'session',
    'state-meta': 'state_meta',
    'ticket': 'ticket',
    'ticket-content': 'ticket_content',
    'worker': 'worker',
    'worktree-record': 'worktree_record',
}
