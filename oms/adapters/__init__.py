"""Layer 6: the outside world, each behind a small interface (DESIGN.md §2.6).

`tools` probes git, tmux, codex and claude. Later: `git` (probes, worktrees), `panes` (tmux on oms's
own socket), `quoting`, `providers/*` (launch plans).
"""
