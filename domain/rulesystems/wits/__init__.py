"""The Wits system: two actions a 2-second round, order by Wits, roll-up damage."""
