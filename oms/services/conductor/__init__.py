"""The fleet's conductor: `oms conductor tick` (one pass, phase by phase: `tick.PHASES` is their
order, `tick.py`'s docstring says what each does and where it lives), `oms conductor run` (the
tick in a loop), and the worker pool whose free slots it fills. A new phase: docs/architecture.md
"How to add a conductor phase"."""
