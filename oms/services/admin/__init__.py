"""What a person runs on the state root as a whole: `oms init`, `oms doctor`, `oms status`, `oms
audit log`, `oms store verify|sweep|compact` (the conductor compacts too, on a schedule)."""
