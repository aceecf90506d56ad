"""Step 2: declarations, lowest IP first, within the AP budget; holding an action
(NOV-DECL-1..4, NOV-AP-1..4, NOV-HASTE-1..2, NOV-MOVE-1, NOV-HOLD-1..3, NOV-ERRATA-1,
NOV-PREP-1, NOV-RRI-1, NOV-FIM-1)."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain.errors import RuleViolation
from domain.rulesystems.base import Context
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import combat, rounds
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.novus import events as ne
from domain.rulesystems.novus.declared_action import declared_action
from domain.rulesystems.novus.situations import MULTI_ATTACK_AP, multiple_attacks
from domain.rulesystems.novus.state import NovusAction, has_declared, round_marks_of
from domain.rulesystems.novus.stats import NovusStats
from domain.state import CombatantState, EncounterState

HOLD_COST = 1  # NOV-HOLD-1


def declare(ctx: Context, cmd: nc.Declare) -> None:
    state = ctx.state
    who = state.combatant(cmd.combatant)
    out_of_order = _check_turn(state, who, cmd)
    stats = combat.stats_of(who)
    budget = rounds.ap_budget(state, who)
    kinds = [act.kind_of(a) for a in cmd.actions]
    costs, shares = _costs(who, cmd.actions, kinds, stats, budget)
    paid = act.check_budget(kinds, costs, budget)
    declared, attacks, run_ap = [], 0, 0
    for i, (spec, kind, cost) in enumerate(zip(cmd.actions, kinds, costs, strict=True)):
        action = declared_action(state, who, spec, kind, cost, ctx.first_position, i, attacks, paid)
        if i in shares:  # NOV-MAS-3
            facts = NovusAction.of(action)
            facts.ab_share = shares[i]
            action.params = facts.as_params()
        declared.append(action.model_dump())
        attacks += kind.attack
        run_ap += cost if kind.kind == "run" else 0
    ctx.emit(
        ne.ActionsDeclared,
        combatant=who.id,
        round=state.round,
        actions=declared,
        ap_budget=budget,
        ap_spent=paid.spent,
        ap_carried=rounds.still_owed(state, who) + paid.carried,  # NOV-DECL-4
        effects=_running(state, who, run_ap, budget),
        out_of_order=out_of_order,
        hold_ip=cmd.hold_ip,
    )


def _check_turn(state: EncounterState, who: CombatantState, cmd: nc.Declare) -> bool:
    """Whether he may declare now (NOV-SEQ-1, NOV-DECL-1, NOV-HITS-3, NOV-HOLD-2); whether
    he declares out of order, as the GM allows."""
    current = rounds.step(state)
    if current != "declaration":
        raise RuleViolation(
            "NOV-SEQ-1", f"declarations are made in step 2; the round is at '{current}'"
        )
    if not rounds.must_declare(who, state):
        why = (
            "has already declared this round"
            if has_declared(state, who)
            else "cannot act (stunned, dead or without IP)"
        )
        raise RuleViolation("NOV-DECL-1", f"{who.name} {why}", field="combatant")
    nxt = rounds.next_declarer(state)
    out_of_order = nxt is not None and nxt.id != who.id
    if out_of_order and not cmd.out_of_order:
        raise RuleViolation(
            "NOV-DECL-1",
            f"declarations go from the lowest IP up: {nxt.name} declares before {who.name}",
            field="combatant",
        )
    if who.hits <= 0 and any(
        a.kind != "first_aid" or (a.target or who.id) != who.id for a in cmd.actions
    ):
        raise RuleViolation(
            "NOV-HITS-3",
            f"{who.name} is helpless: his only possible action is First Aid on himself",
            field="actions",
        )
    if cmd.hold_ip is not None:
        check_hold_ip(state, who, cmd.hold_ip, "hold_ip")
    return out_of_order


def _costs(
    who: CombatantState,
    actions: list[nc.ActionSpec],
    kinds: list[act.ActionKind],
    stats: NovusStats,
    budget: int,
) -> tuple[list[int], dict[int, int]]:
    """Each action's AP (NOV-AP-1..4, NOV-PREP-1, Default NOV-AMB-13), and the share of AB
    each of several attacks takes (NOV-MAS), by its place in the declaration."""
    costs = [
        budget if k.kind == "prepare_reroll" else act.cost_of(a, stats)
        for a, k in zip(actions, kinds, strict=True)
    ]
    if any(k.kind == "prepare_reroll" for k in kinds) and len(kinds) > 1:
        raise RuleViolation(
            "NOV-PREP-1", "preparing takes the whole round: no other action", field="actions"
        )
    if any(a.defensive for a in actions) and any(k.kind == "dodge" for k in kinds):
        raise RuleViolation(
            "NOV-FDEF-2", "Fighting Defensively never goes with a Dodge", field="actions.defensive"
        )
    shares: dict[int, int] = {}
    attacking = [k.attack for k in kinds]
    no_split = sum(attacking) == 1 or who.has("hasted") or stats.advanced_combat_training
    if no_split and any(a.ab_share is not None for a in actions):
        raise RuleViolation(
            "NOV-MAS-3",
            "a share of AB splits several attacks; one attack uses its whole AB",
            field="actions.ab_share",
        )
    # more than one attack without Haste comes from high skill (NOV-MAS), unless Advanced
    # Combat Training replaces that rule (NOV-MAS-4: its own terms are GM-entered modifiers)
    if sum(attacking) > 1 and not who.has("hasted"):
        if not stats.advanced_combat_training:
            weapons = [
                act.attack_weapon(a, stats) if k.attack else None
                for a, k in zip(actions, kinds, strict=True)
            ]
            shares = multiple_attacks(list(actions), attacking, stats, weapons)
        index = [i for i, a in enumerate(attacking) if a]
        # Default NOV-AMB-13: 5 AP for all of them together, whatever grants them
        costs = [
            MULTI_ATTACK_AP if i == index[0] else 0 if i in index else c
            for i, c in enumerate(costs)
        ]
    return costs, shares


def _running(
    state: EncounterState, who: CombatantState, run_ap: int, budget: int
) -> list[dict[str, Any]]:
    """NOV-MOVE-1: −2 per AP run to his other actions; next round if he ran all."""
    if not run_ap:
        return []
    rnd = state.round + 1 if run_ap >= budget else state.round
    return [
        {
            "combatant": who.id,
            "name": "running",
            "applies_to": "act",
            "value": combat.RUN_PENALTY_PER_AP * run_ap,
            "first_round": rnd,
            "last_round": rnd,
        }
    ]


def check_hold_ip(state: EncounterState, who: CombatantState, ip: int, field: str = "ip") -> None:
    own = rounds.effective_ip(state, who)
    if own is None or ip >= own:  # NOV-HOLD-2, Default NOV-AMB-21: strictly lower
        raise RuleViolation(
            "NOV-HOLD-2",
            f"{who.name} may hold to an IP below his own ({own}), not {ip}",
            field=field,
        )


def hold(ctx: Context, cmd: c.Hold) -> None:
    """NOV-HOLD-1, NOV-ERRATA-1: deciding to hold after declaring costs 1 AP."""
    state = ctx.state
    who = state.combatant(cmd.combatant)
    if not has_declared(state, who):
        raise RuleViolation(
            "NOV-ERRATA-1",
            f"{who.name} has not declared; announce the hold "
            "with the declaration (hold_ip), which costs nothing",
            field="combatant",
        )
    mine = [a for a in state.actions if a.combatant == who.id and a.round == state.round]
    if any(a.status != "pending" for a in mine) or not mine:
        raise RuleViolation(
            "NOV-HOLD-1", f"{who.name} has no unresolved action to hold", field="combatant"
        )
    this_round = round_marks_of(who)
    if this_round.hold_ip is not None:
        raise RuleViolation("NOV-HOLD-1", f"{who.name} already holds", field="combatant")
    if cmd.ip is None:
        raise RuleViolation("NOV-HOLD-1", "name the IP to act at (`ip`)", field="ip")
    check_hold_ip(state, who, cmd.ip)
    budget = rounds.ap_budget(state, who) - HOLD_COST
    if this_round.ap_spent > budget:
        raise RuleViolation(
            "NOV-HOLD-1",
            f"holding costs 1 AP: the declared actions "
            f"({this_round.ap_spent} AP) no longer fit in {budget} AP",
        )
    ctx.emit(ne.ActionHeld, combatant=who.id, ip=cmd.ip, ap_cost=HOLD_COST, ap_budget=budget)
