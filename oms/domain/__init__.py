"""Layer 5: pure logic, no IO (DESIGN.md §2.5).

Functions here take parsed data and return data or raise; they never open a file or start a process
(an import-linter contract forbids `oms.fsio`, `oms.store`, `oms.process` and `oms.adapters`).
`config` parses the oms configuration. State machines for tickets, dispatches, workers and sessions,
intent capture and the role policy follow with the authority chain.
"""
