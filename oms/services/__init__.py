"""Layer 7: services, one per job (DESIGN.md §2.7).

`setup` (init), `doctor`, `storeops` (verify, sweep). Later: `delivery`, `bridge`, `hooks`,
`conductor`, `pool`, `routing`.
"""
