"""Notifications (ADR 0036): `[notify]` commands run outside every sandbox on what a person wants
to hear of — a ticket done, blocked or waiting for a person, a worker parked, a result merged.
`notices.py`: the claim (a receipt per notice, so each is notified once), the detached child that
runs the commands, and the conductor's phase that looks for notices."""
