"""`oms web` (ADR 0041) attacked: the server, the token, what the page shows."""
