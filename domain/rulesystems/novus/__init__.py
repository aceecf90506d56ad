"""Novus: 5 AP a round, open-ended 2d10, declare low to high, resolve high to low."""
