"""Skirmish: a fourth rule system, tiny, that lives in the tests only (issue 17, item 2).

It proves a rule book is a package the rest of fraylog reaches through the registry alone:
registered with `domain.rulesystems.register(SkirmishRules())`, it is played over HTTP with
no shared module naming it. Its rules (rule ids SKR-…):

- SKR-STAT-1: a combatant has fight 1–6, guard 1–6 and 1–20 hits.
- SKR-INIT-1: initiative is 1d6 + fight, rolled once for the fight (or entered by the GM);
  the higher strikes first, equals in the order they joined.
- SKR-STR-1: in a round each combatant still up strikes once, in initiative order.
- SKR-STR-2: a strike is 1d6 + fight against the target's guard + 3; it hits on equal or
  more and takes 1 hit, 2 on a natural 6 (SKR-STR-3).
- SKR-DOWN-1: a combatant at 0 hits or fewer is down: he neither strikes nor is struck.
- SKR-RND-1: the GM ends the round; a strike not taken by then is lost.
"""
