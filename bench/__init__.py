"""Benchmarks of fraylog against the eventsourcing library alone (`python -m bench`).

Every figure is reported next to a ratio to a baseline measured in the same run, on
the same machine and database, because the machines this runs on are noisy.
"""
