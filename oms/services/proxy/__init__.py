"""The loopback model proxy (ADR 0020): it holds the real credentials, forwards a request only on a
live dispatch's token, and counts each dispatch's usage; oms starts, checks and stops it
(`control`)."""
