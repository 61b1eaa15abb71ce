"""What becomes of a result (ADR 0021): `oms result verify|merge|discard`, and `oms worktree gc`."""
