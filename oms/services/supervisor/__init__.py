"""`oms worker supervise`, the first process of a worker's pane: its sandbox's parent, its broker's
host, and the end of an attempt that is over (`attempt_end`)."""
