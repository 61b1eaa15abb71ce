"""Layer 7: services, one per job (docs/architecture.md "Layers").

`setup` (init), `doctor`, `storeops` (verify, sweep). Later: `delivery`, `bridge`, `hooks`,
`conductor`, `pool`, `routing`.
"""
