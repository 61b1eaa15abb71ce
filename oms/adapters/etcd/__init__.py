"""etcd v3 through its JSON gateway, with the stdlib (ADR 0043).

`client.Etcd` is a small client: range (one key, a prefix in pages), put, delete, a transaction with
compares on create or mod revision, leases (grant, keepalive, revoke) and one bounded watch read.
`records.EtcdVersions` keeps record versions in it for `oms/store/records.py`.
"""
