"""What changed between two versions of an encounter, combatant by combatant."""

from __future__ import annotations

from typing import Any

WATCHED = ("round", "step")


def diff_views(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """{encounter: {field: [before, after]}, combatants: {id: {name, changes}}}."""
    encounter = {k: [before[k], after[k]] for k in WATCHED if before[k] != after[k]}
    old = {c["id"]: c for c in before["combatants"]}
    combatants: dict[str, Any] = {}
    for c in after["combatants"]:
        was = old.get(c["id"])
        if was is None:
            combatants[c["id"]] = {"name": c["name"], "added": True, "changes": {}}
            continue
        changes = {k: [was[k], v] for k, v in c.items() if was.get(k) != v}
        if changes:
            combatants[c["id"]] = {"name": c["name"], "changes": changes}
    for cid, was in old.items():
        if cid not in {c["id"] for c in after["combatants"]}:
            combatants[cid] = {"name": was["name"], "removed": True, "changes": {}}
    return {
        "from": before["version"],
        "to": after["version"],
        "encounter": encounter,
        "combatants": combatants,
    }
