"""The authority chain (ADR 0008): tickets and their worktrees, dispatches (route, review,
acceptance, result), workers' moves, live authorisations, and whether an attempt may still act
(`authority`, `fence`)."""
