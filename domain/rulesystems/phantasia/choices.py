"""What may happen now in a PHANTÄSIA fight: the candidate commands of play, each complete
(no dice), for the combatants who may act at this step, and the narrator's own forms.

Generous by design: the application keeps only the candidates the asking token may send
and the rules accept (each is run on a copy up to its first die), so the cheap tests here
only keep the list short; the rules decide. What is left out on purpose:

- the dead act no more (PHA-STS-13): nothing is offered for a dead combatant but the
  re-roll of his failed death check with a PHANTÄSIA point (PHA-DTH-6), and a dead
  creature is never offered as a target;
- the narrator's overrides of the step machine (`out_of_order`, an entered `hit` or
  `ip`, situational `modifiers`, `cover`, `offensive`, `doublings`) are described in
  `fields`, not offered as candidates of their own;
- a reaction (PHA-RX-1) of a combatant with no prepared action is offered in its plainest
  forms only (an attack with his weapon in hand on each foe, a grab, a move, another
  action, a check); one who prepared an action (PHA-RX-2) is offered every action as his
  reaction.

The candidates by topic: the step's own (choices_turns), against a foe (choices_attacks),
an action point's uses (choices_actions), the narrator's forms (choices_forms).
"""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Choice, choice
from domain.rulesystems.phantasia import attacks
from domain.rulesystems.phantasia.attack_state import PhantasiaAttack
from domain.rulesystems.phantasia.choices_actions import actions, free_check, may_react
from domain.rulesystems.phantasia.choices_attacks import attack_choices, open_attack
from domain.rulesystems.phantasia.choices_forms import overrides
from domain.rulesystems.phantasia.choices_turns import (
    before_initiative,
    end_turn,
    initiative,
    start_turn,
)
from domain.rulesystems.phantasia.stats import max_pm
from domain.rulesystems.phantasia.turns import acting, pm_of, pp_of, stats_of
from domain.state import CombatantState, EncounterState

__all__ = ["PLAY_TYPES", "choices", "overrides"]

# the command types of play this module offers (the narrator's own are forms: overrides)
PLAY_TYPES = (
    "declare_surprise",
    "roll_initiative",
    "start_turn",
    "attack_check",
    "roll_damage",
    "roll_fumble",
    "contest",
    "act",
    "check",
    "jump",
    "spend_phantasia_point",
    "end_turn",
)


def choices(state: EncounterState) -> list[Choice]:
    """Every candidate command of play now, in the order a screen would show them: the
    step's own (surprise, initiative, the next turn), what the acting combatant may do,
    what is open to the others (reactions, free checks, PHANTÄSIA points), the turn's end."""
    if not state.combatants:
        return []
    out: list[Choice] = []
    now = acting(state)
    out += before_initiative(state, now)
    out += initiative(state)
    if now is None:
        out += start_turn(state)
    out += open_attack(state)
    if now is not None:
        out += actions(state, now, reaction=False)
    for who in state.combatants.values():
        free = who.marks.free_attack
        if free is not None and not who.has("dead"):  # PHA-CRIT-5 result 5: on the fumbler, at once
            out += attack_choices(state, who, [state.combatants[free]], free=True)
    for who in state.combatants.values():
        if who is not now and may_react(who):
            out += actions(state, who, reaction=True)
    for who in state.combatants.values():
        if not who.has("dead"):
            out += free_check(who)
    out += _points(state)
    if now is not None:
        out.append(end_turn(state, now))
    return out


# -- PHANTÄSIA points -------------------------------------------------------------------


def _points(state: EncounterState) -> list[Choice]:
    """PHA-PP-2, -4: a point spent on himself or an ally (his side): to re-roll the last
    AT, DF, AM or DM check he made, in that turn (a); to re-roll a failed death check at
    once (PHA-DTH-6); to regain 1 PM (d, PHA-PM-3)."""
    last = attacks.last_attack(state)
    rollers = {
        r.roller
        for r in (PhantasiaAttack.of(last).results if last else [])
        if r.face is not None and not r.rerolled
    }
    out: list[Choice] = []
    for payer in state.combatants.values():
        if pp_of(payer) < 1:
            continue
        for helped in state.combatants.values():
            if helped.side != payer.side:
                continue
            if payer.has("dead") and helped is not payer:
                continue  # the dead act no more: his point only for his own death re-roll
            out += _point_uses(payer, helped, rollers)
    return out


def _point_uses(payer: CombatantState, helped: CombatantState, rollers: set[Any]) -> list[Choice]:
    """What `payer`'s point may do for `helped` (himself or an ally) now."""
    body: dict[str, Any] = {"type": "spend_phantasia_point", "combatant": payer.id}
    if helped is not payer:
        body["for_combatant"] = helped.id
    whom = "his" if helped is payer else f"{helped.name}'s"
    out: list[Choice] = []
    death = helped.marks.death_check
    if helped.has("dead") and death is not None and death.dies and not death.reroll:
        out.append(
            choice(
                "spend_phantasia_point",
                payer.id,
                {**body, "use": "death_reroll"},
                f"{payer.name} spends a PHANTÄSIA point to re-roll {whom} failed death check",
                ["death"],
            )
        )
    if helped.has("dead"):
        return out
    if helped.id in rollers:
        out.append(
            choice(
                "spend_phantasia_point",
                payer.id,
                {**body, "use": "reroll"},
                f"{payer.name} spends a PHANTÄSIA point to re-roll {whom} last check",
                ["reroll"],
            )
        )
    if pm_of(helped) < max_pm(stats_of(helped)) and not payer.has("dead"):
        out.append(
            choice(
                "spend_phantasia_point",
                payer.id,
                {**body, "use": "pm"},
                f"{payer.name} spends a PHANTÄSIA point: "
                f"{'he regains' if helped is payer else helped.name + ' regains'} 1 PM",
                [],
            )
        )
    return out
