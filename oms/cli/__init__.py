"""Layer 8: the command line (docs/architecture.md "Layers"). Thin: parse, call one service, render.

`entry.main` dispatches fast paths before Typer is imported (ADR 0006); `boundary` is the single
place that turns errors into exit codes; `app` holds the Typer commands. This package's `__init__`
imports nothing, so the fast paths stay fast.
"""
