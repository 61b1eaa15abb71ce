"""What a worker's broker serves outside its sandbox: the agent's hooks and its MCP bridge, behind
one `Doors` interface (`interface.py`)."""
