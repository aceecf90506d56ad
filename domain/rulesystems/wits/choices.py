"""What can happen now in a Wits fight: the candidate commands of play (`RuleSystem.choices`).

Each candidate is a complete command, without dice. The application keeps those the
asking token may send and the rules accept (it runs each on a copy up to its first die),
so a candidate may be generous; but a command the rules would accept now must be here in
kind. The steps (`view._step`): `order` (roll_initiative), `turns` (the acting combatant's
actions, and a held one's, WIT-ORD-3), `attack` (the target's defenses, then roll_attack),
`end_round`. The GM's overrides of the order (`out_of_order`, WIT-ORD-4), of the outcome
(`hit`, `degree`) and of the situation (`modifiers`, `visible`, `physical`, `magical`) are
not candidates of their own: they are described in `fields`. A turn's candidates are
choices_turns.py's, the answers to an attack choices_answers.py's.
"""

from __future__ import annotations

from domain.rulesystems.base import Choice, choice
from domain.rulesystems.wits import turns
from domain.rulesystems.wits.choices_answers import answer
from domain.rulesystems.wits.choices_fields import MODIFIERS
from domain.rulesystems.wits.choices_turns import may_act, turn
from domain.rulesystems.wits.state import WitsAttack
from domain.state import CombatantState, EncounterState


def choices(state: EncounterState) -> list[Choice]:
    """Every candidate command of play now, the encounter's own last."""
    out = _order(state)
    attack = turns.pending_attack(state)
    if attack is not None:  # WIT-ATK-2, WIT-DEF-5: the target answers before the roll
        out += answer(state, attack)
    else:
        for who in turns.order(state):
            if may_act(state, who):
                out += turn(state, who)
    out += _knock_backs(state)
    if attack is None:  # WIT-ATK-4: a round does not end with an attack waiting
        out.append(
            choice(
                "end_round",
                None,
                {"type": "end_round"},
                f"End round {state.round}: the 2 seconds are over, unused actions are lost",
            )
        )
    return out


# -- order --------------------------------------------------------------------------------


def _order(state: EncounterState) -> list[Choice]:
    """WIT-ORD-1: everyone without a place takes his Wits; WIT-ORD-2: ties roll 1d6 each
    (Default WIT-AMB-15) or the GM orders them (`tie_order`)."""
    out: list[Choice] = []
    due = turns.unplaced(state)
    if due:
        out.append(
            choice(
                "roll_initiative",
                None,
                {"type": "roll_initiative"},
                "Place everyone not yet in the acting order by Wits (ties roll 1d6)",
                _tie_rolls(due),
            )
        )
        for who in due:
            wits = turns.stats_of(who).wits
            out.append(
                choice(
                    "roll_initiative",
                    who.id,
                    {"type": "roll_initiative", "combatant": who.id},
                    f"Place {who.name} in the acting order (Wits {wits})",
                )
            )
    by_wits: dict[int, list[CombatantState]] = {}
    for who in state.combatants.values():
        by_wits.setdefault(turns.stats_of(who).wits, []).append(who)
    rank = {w.id: i for i, w in enumerate(turns.order(state))}
    for wits, tied in sorted(by_wits.items(), reverse=True):
        if len(tied) < 2:
            continue
        ranked = sorted(tied, key=lambda w: (w.id not in rank, rank.get(w.id, w.entry)))
        ids = [w.id for w in ranked]
        out.append(
            choice(
                "roll_initiative",
                None,
                {"type": "roll_initiative", "tie_order": ids},
                f"The GM rules who completes first among those tied at Wits {wits}: "
                + ", ".join(w.name for w in ranked),
                fields={
                    "tie_order": {
                        "type": "array",
                        "items": {"enum": ids},
                        "minItems": len(ids),
                        "maxItems": len(ids),
                        "uniqueItems": True,
                        "description": "GM: every combatant tied at this Wits, first first",
                    }
                },
            )
        )
    return out


def _tie_rolls(due: list[CombatantState]) -> list[str]:
    """The roll-off's roll names: those placed together at the same Wits."""
    by_wits: dict[int, list[CombatantState]] = {}
    for who in due:
        by_wits.setdefault(turns.stats_of(who).wits, []).append(who)
    return [
        f"tie:{w.name}"
        for _, group in sorted(by_wits.items(), reverse=True)
        if len(group) > 1
        for w in group
    ]


# -- the GM's rulings -------------------------------------------------------------------


def _knock_backs(state: EncounterState) -> list[Choice]:
    """WIT-CHG-4 (Default WIT-AMB-10): a hit of this round the GM may rule knocked its
    target back, tested once; he needs a Strength."""
    out: list[Choice] = []
    for action in state.actions:
        if action.kind != "attack":
            continue
        attack = WitsAttack.of(action)
        if not attack.hit or attack.knocked_back:
            continue
        target = state.combatants.get(action.target or "")
        if target is None or turns.stats_of(target).strength is None:
            continue
        attacker = state.combatants[action.combatant]
        charge = " (a Charge: −5)" if attack.charge else ""
        out.append(
            choice(
                "knock_back",
                target.id,
                {"type": "knock_back", "combatant": target.id, "attack": action.id},
                f"The GM rules {attacker.name}'s hit knocked {target.name} back: "
                f"{target.name} tests Strength to stay on his feet{charge}",
                ["strength"],
                fields={"modifiers": MODIFIERS},
            )
        )
    return out
