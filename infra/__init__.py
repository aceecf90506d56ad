"""Wiring: the eventsourcing Application, SQLite/PostgreSQL, settings, dice from the OS."""
