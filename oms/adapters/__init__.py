"""Layer 6: the outside world, each behind a small interface (docs/architecture.md "Layers").

`tools` probes git, tmux, codex and claude; `git` (object-level, no repository code), `panes` (tmux
on oms's own socket), `quoting`, `providers/*` (launch plans), the sandbox plan and the advisor
runner.
"""
