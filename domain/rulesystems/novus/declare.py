"""Step 2: declarations, lowest IP first, within the AP budget; holding an action
(NOV-DECL-1..4, NOV-AP-1..4, NOV-HASTE-1..2, NOV-MOVE-1, NOV-HOLD-1..3, NOV-ERRATA-1,
NOV-PREP-1, NOV-RRI-1, NOV-FIM-1)."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain import events as ev
from domain.errors import RuleViolation
from domain.rulesystems.base import Context
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import combat, rounds
from domain.rulesystems.novus.situations import MULTI_ATTACK_AP, multiple_attacks, situation
from domain.state import ActionState, CombatantState, EncounterState

HOLD_COST = 1  # NOV-HOLD-1
ATTACK_FIELDS = (
    "called_shot",
    "defensive",
    "off_hand",
    "two_handed",
    "improvised",
    "mounted",
    "foe_mounted",
    "pace",
    "riding_tn",
    "ab_share",
    "move",
)


def declare(ctx: Context, cmd: c.Declare) -> None:
    state = ctx.state
    who = state.combatant(cmd.combatant)
    current = rounds.step(state)
    if current != "declaration":
        raise RuleViolation(
            "NOV-SEQ-1", f"declarations are made in step 2; the round is at '{current}'"
        )
    if not rounds.must_declare(who, state):
        why = (
            "has already declared this round"
            if who.id in state.declared
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
    stats = combat.stats_of(who)
    budget = rounds.ap_budget(state, who)
    kinds = [act.kind_of(a) for a in cmd.actions]
    costs = [
        budget if k.kind == "prepare_reroll" else act.cost_of(a, stats)
        for a, k in zip(cmd.actions, kinds, strict=True)
    ]
    if any(k.kind == "prepare_reroll" for k in kinds) and len(kinds) > 1:
        raise RuleViolation(
            "NOV-PREP-1", "preparing takes the whole round: no other action", field="actions"
        )
    if any(a.defensive for a in cmd.actions) and any(k.kind == "dodge" for k in kinds):
        raise RuleViolation(
            "NOV-FDEF-2", "Fighting Defensively never goes with a Dodge", field="actions.defensive"
        )
    shares: dict[int, int] = {}
    attacking = [k.attack for k in kinds]
    no_split = sum(attacking) == 1 or who.has("hasted") or stats.advanced_combat_training
    if no_split and any(a.ab_share is not None for a in cmd.actions):
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
                for a, k in zip(cmd.actions, kinds, strict=True)
            ]
            shares = multiple_attacks(list(cmd.actions), attacking, stats, weapons)
        index = [i for i, a in enumerate(attacking) if a]
        # Default NOV-AMB-13: 5 AP for all of them together, whatever grants them
        costs = [
            MULTI_ATTACK_AP if i == index[0] else 0 if i in index else c
            for i, c in enumerate(costs)
        ]
    paid = act.check_budget(kinds, costs, budget)
    declared, attacks, run_ap = [], 0, 0
    for i, (spec, kind, cost) in enumerate(zip(cmd.actions, kinds, costs, strict=True)):
        declared.append(_action(state, who, spec, kind, cost, ctx.first_position, i, attacks, paid))
        if i in shares:
            declared[-1]["params"]["ab_share"] = shares[i]
        attacks += kind.attack
        run_ap += cost if kind.kind == "run" else 0
    effects = []
    if run_ap:  # NOV-MOVE-1: −2 per AP run to his other actions; next round if he ran all
        rnd = state.round + 1 if run_ap >= budget else state.round
        effects.append(
            {
                "combatant": who.id,
                "name": "running",
                "applies_to": "act",
                "value": combat.RUN_PENALTY_PER_AP * run_ap,
                "first_round": rnd,
                "last_round": rnd,
            }
        )
    ctx.emit(
        ev.ActionsDeclared,
        combatant=who.id,
        round=state.round,
        actions=declared,
        ap_budget=budget,
        ap_spent=paid.spent,
        ap_carried=rounds.still_owed(state, who) + paid.carried,  # NOV-DECL-4
        effects=effects,
        out_of_order=out_of_order,
        hold_ip=cmd.hold_ip,
    )


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
    if who.id not in state.declared:
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
    if who.hold_ip is not None:
        raise RuleViolation("NOV-HOLD-1", f"{who.name} already holds", field="combatant")
    if cmd.ip is None:
        raise RuleViolation("NOV-HOLD-1", "name the IP to act at (`ip`)", field="ip")
    check_hold_ip(state, who, cmd.ip)
    budget = rounds.ap_budget(state, who) - HOLD_COST
    if who.ap_spent > budget:
        raise RuleViolation(
            "NOV-HOLD-1",
            f"holding costs 1 AP: the declared actions "
            f"({who.ap_spent} AP) no longer fit in {budget} AP",
        )
    ctx.emit(ev.ActionHeld, combatant=who.id, ip=cmd.ip, ap_cost=HOLD_COST, ap_budget=budget)


def _action(
    state: EncounterState,
    who: CombatantState,
    spec: c.ActionSpec,
    kind: act.ActionKind,
    cost: int,
    position: int,
    index: int,
    attacks_before: int,
    paid: act.Budget,
) -> dict[str, Any]:
    target = spec.target or (who.id if kind.kind == "first_aid" else None)
    if kind.needs_target and target is None:
        raise RuleViolation(kind.rule, f"{kind.label} needs a target", field="actions.target")
    if target is not None:
        aimed_at = state.combatant(target)
        if kind.attack and combat.is_dead(aimed_at):
            raise RuleViolation("NOV-HITS-5", f"{aimed_at.name} is dead", field="actions.target")
        if kind.attack and target == who.id:
            raise RuleViolation(
                "NOV-ATK-1", "a combatant does not attack himself", field="actions.target"
            )
    attack_only = [name for name in ATTACK_FIELDS if getattr(spec, name) not in (None, False, 0)]
    if spec.direction != "front":
        attack_only.append("direction")
    if attack_only and not kind.attack:
        raise RuleViolation(
            kind.rule,
            f"{', '.join(attack_only)} belong(s) to an attack, not to {kind.label}",
            field=f"actions.{attack_only[0]}",
        )
    params: dict[str, Any] = {"label": kind.label, "ab_mods": {}, "def_mods": {}}
    if spec.limb is not None:
        limb = who.limbs.get(spec.limb)
        if limb is not None and limb.useless:  # NOV-CALL-4
            raise RuleViolation(
                "NOV-CALL-4", f"{who.name}'s {spec.limb} is useless", field="actions.limb"
            )
        params["limb"] = spec.limb
    if kind.def_mod:
        params["def_mods"][kind.label] = kind.def_mod  # NOV-DECL-2: for the whole round
    if spec.wound is not None:
        params["wound"] = spec.wound
    if spec.casting_tn is None and (spec.spell_bonus is not None or spec.spell_damage is not None):
        raise RuleViolation(
            "NOV-ATK-6",
            "spell_bonus and spell_damage go with a casting_tn",
            field="actions.casting_tn",
        )
    if spec.casting_tn is not None:  # NOV-ATK-6: a spell cast against DEF
        if target is not None and (target == who.id or combat.is_dead(state.combatant(target))):
            raise RuleViolation(
                "NOV-ATK-6",
                "a spell against DEF needs a living foe as target",
                field="actions.target",
            )
        if not kind.spell or target is None or spec.spell_bonus is None:
            raise RuleViolation(
                "NOV-ATK-6",
                "a spell vs. DEF is a cast with a target, a "
                "casting TN and the caster's casting bonus",
                field="actions.casting_tn",
            )
        params.update(
            vs_def=True,
            casting_tn=spec.casting_tn,
            spell_bonus=spec.spell_bonus,
            spell_damage=spec.spell_damage or 0,
        )
    weapon = None
    if kind.attack:
        stats = combat.stats_of(who)
        armed = act.attack_weapon(spec, stats)
        weapon = armed.name if armed else None
        if who.has("disarmed") and armed is not None and armed.kind != "unarmed":
            raise RuleViolation(
                "NOV-BOON-2",
                f"{who.name} was disarmed (Disarm Foe): only "
                "unarmed attacks until the GM clears it",
                field="actions.kind",
            )
        move = act.move_of(spec, armed)
        found = situation(spec, stats, armed)
        params.update(
            move=spec.move or "basic",
            bd=move["bd"],
            scaled=move["scaled"],
            armour=move["armour"],
            primary=attacks_before == 0,
            bd_mods=found.bd,
            **found.params,
        )
        if move["ab"]:
            params["ab_mods"][spec.move] = move["ab"]
        params["ab_mods"].update(found.ab)
        if move["def"]:
            params["def_mods"][spec.move] = move["def"]
            params["label"] = f"{kind.label}: {spec.move}"
        params["def_mods"].update(found.def_)
        if spec.into_melee or spec.bystanders:
            if kind.kind != "missile_attack":
                raise RuleViolation(
                    "NOV-FIM-1",
                    "only a missile attack fires into melee",
                    field="actions.into_melee",
                )
            for b in spec.bystanders:
                state.combatant(b)
            params.update(into_melee=True, bystanders=list(spec.bystanders))
    elif spec.into_melee or spec.bystanders:
        raise RuleViolation(
            "NOV-FIM-1", "only a missile attack fires into melee", field="actions.into_melee"
        )
    if kind.kind in ("move", "run"):
        feet = combat.stats_of(who).base_movement
        if feet is not None:  # NOV-MOVE-1: Base Movement per AP, doubled at a run
            params["feet"] = feet * cost * (2 if kind.kind == "run" else 1)
    resolves = state.round
    if paid.carried:  # NOV-DECL-4: it resolves in the round its last AP is paid
        resolves += -(-paid.carried // act.BASE_AP)
    return ActionState(
        id=f"{position}.{index}",
        combatant=who.id,
        kind=kind.kind,
        round=resolves,
        declared_round=state.round,
        cost=cost,
        order=index,
        extra=kind.attack and attacks_before > 0,  # NOV-RES-2, NOV-MAR-1: further attacks last
        target=target,
        weapon=weapon,
        params=params,
        origin=position,
    ).model_dump()
