"""Layer 5: pure logic, no IO (docs/architecture.md "Layers").

Functions here take parsed data and return data or raise; they never open a file or start a process
(an import-linter contract forbids `oms.fsio`, `oms.store`, `oms.process` and `oms.adapters`).
`config` parses the oms configuration; beside it are the state machines of tickets, dispatches,
workers and sessions, intent capture, the role policy, and the conductor's and the pool's rules.
"""
