"""The fleet's conductor: `oms conductor tick` (one pass, phase by phase), `oms conductor run` (the
tick in a loop), and the worker pool whose free slots it fills."""
