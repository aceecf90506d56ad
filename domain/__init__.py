"""Pure rules and the Encounter aggregate: no I/O, no web, no SQL."""
