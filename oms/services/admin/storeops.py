"""`oms store verify` and `oms store sweep`."""

from __future__ import annotations

from oms.store.verify import Report, sweep, verify


def verify_state(state_root: str, config_root: str | None = None) -> Report:
    """Walk the state root and report every problem; with `config_root` whose committed `[store]`
    names etcd, walk that store's keys too (ADR 0043): each problem names its key."""
    report = verify(state_root)
    if config_root is None:
        return report
    from oms.adapters.etcd.store import printable_key, walk_keys
    from oms.errors import ConfigError
    from oms.services.workspace.backend import etcd_store
    from oms.services.workspace.committed import committed_config_if_any
    from oms.store import Store
    from oms.store.ledger import LineKey, line_key

    try:
        config = committed_config_if_any(config_root)
    except ConfigError as exc:  # the state root is checked all the same
        report.note(
            ".", f"the committed configuration is not readable, no etcd keys checked: {exc}"
        )
        return report
    if config is None or config.store.backend != "etcd":
        return report
    with Store.open(state_root) as store:
        key_id, public = store.state.meta.key_id, store.state.meta.public_key
        key = line_key(store.state.root)  # the ledger entries' MACs (ADR 0043, `etcdledger`)
    line = LineKey(key_id, lambda: key)
    backend = etcd_store(config, key_id, line, public)
    if backend is None:  # (backend == "etcd" always makes one)
        return report
    try:
        walked = walk_keys(backend)
    finally:
        backend.client.close()
    report.count("etcd keys", walked.read)
    report.count("etcd ledger entries", walked.entries)
    for problem in walked.problems:  # a key that is not UTF-8 is named by its bytes, escaped
        report.error(f"etcd:{printable_key(problem.key)}", problem.problem)
    for note in walked.notes:
        report.note("etcd", note)
    return report


def sweep_state(state_root: str) -> list[str]:
    """Remove debris left by dead processes; returns what was removed."""
    return sweep(state_root)
