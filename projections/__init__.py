"""Read models folded from events: the encounter view, the narrative log, exports."""
