"""An attempt's worktree: proven to be exactly the planned checkout before anything runs in it, made
ready for a new attempt, and its uncommitted work salvaged when an attempt ends."""
