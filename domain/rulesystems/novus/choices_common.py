"""What the Novus choices modules share: who may act, and on whom; the words of a choice."""

from __future__ import annotations

from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import combat
from domain.rulesystems.novus.state import NovusAction
from domain.rulesystems.novus.stats import NovusStats
from domain.state import ActionState, CombatantState, EncounterState

MODIFIERS = {
    "type": "object",
    "additionalProperties": {"type": "integer"},
    "description": "The GM's situational modifiers, by name.",
}


def living(state: EncounterState) -> list[CombatantState]:
    return [w for w in state.combatants.values() if not combat.is_dead(w)]


def foes_of(state: EncounterState, who: CombatantState) -> list[CombatantState]:
    """The living he may attack or block (NOV-ATK-1, NOV-HITS-5): those of other sides,
    or everyone else where sides are not set. An attack on a friend is the GM's to send
    (the `target` of `fields` lists every living combatant)."""
    others = [t for t in living(state) if t.id != who.id]
    return [t for t in others if t.side != who.side or not who.side] or others


def friends_of(state: EncounterState, who: CombatantState) -> list[CombatantState]:
    """The living of his side, himself left out."""
    return [t for t in living(state) if t.side == who.side and t.id != who.id and who.side]


def can_act(who: CombatantState) -> bool:
    """NOV-HITS-3, -5, NOV-COND-3: the dead, the helpless and the stunned do not act."""
    return not combat.is_dead(who) and not who.has("stunned") and who.hits > 0


def name_of(state: EncounterState, combatant: str | None) -> str:
    who = state.combatants.get(combatant or "")
    return who.name if who else "nobody"


def weapons_for(kind: str, stats: NovusStats, who: CombatantState) -> list[str | None]:
    """The weapons an attack may be made with (NOV-AP-1); disarmed, only unarmed ones
    (NOV-BOON-2). A Brawling attack needs none (NOV-BRAWL-2)."""
    if kind == "brawl":
        return [None]
    return [
        w.name
        for w in stats.weapons
        if w.kind in act.ATTACK_WEAPONS[kind] and not (who.has("disarmed") and w.kind != "unarmed")
    ]


def action_label(state: EncounterState, action: ActionState, *, on: bool = True) -> str:
    """`Basic Melee Attack on Goblin with the sword` (`on`: with its target)."""
    label = NovusAction.of(action).named(act.CATALOGUE[action.kind].label)
    if action.id.endswith(".lightning"):  # Default NOV-AMB-42
        label = "Lightning Attack"
    if on and action.target is not None and action.target != action.combatant:
        label += f" on {name_of(state, action.target)}"
    if action.weapon:
        label += f" with the {action.weapon}"
    return label
