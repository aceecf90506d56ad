"""One action of a declaration (or a cancel's replacement), checked and recorded as the
action it becomes: its target (NOV-ATK-1, NOV-HITS-5), an attack's move and situations
(NOV-CMV-1, NOV-FIM-1), a spell against DEF (NOV-ATK-6), a limb that is useless (NOV-CALL-4),
the round it resolves in (NOV-DECL-4)."""

from __future__ import annotations

from domain.errors import RuleViolation
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import combat
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.novus.situations import situation
from domain.rulesystems.novus.state import NovusAction, marks_of
from domain.state import ActionState, CombatantState, EncounterState

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


def declared_action(
    state: EncounterState,
    who: CombatantState,
    spec: nc.ActionSpec,
    kind: act.ActionKind,
    cost: int,
    position: int,
    index: int,
    attacks_before: int,
    paid: act.Budget,
) -> ActionState:
    """One action of his declaration, checked, as the action it becomes."""
    target = _target(state, who, spec, kind)
    _check_attack_fields(spec, kind)
    facts = NovusAction(label=kind.label, ab_mods={}, def_mods={})
    if spec.limb is not None:
        limb = marks_of(who).limbs.get(spec.limb)
        if limb is not None and limb.useless:  # NOV-CALL-4
            raise RuleViolation(
                "NOV-CALL-4", f"{who.name}'s {spec.limb} is useless", field="actions.limb"
            )
        facts.limb = spec.limb
    if kind.def_mod:
        facts.def_mods[kind.label] = kind.def_mod  # NOV-DECL-2: for the whole round
    if spec.wound is not None:
        facts.wound = spec.wound
    _spell(state, who, spec, kind, target, facts)
    weapon = _attack(state, who, spec, kind, attacks_before, facts) if kind.attack else None
    if not kind.attack and (spec.into_melee or spec.bystanders):
        raise RuleViolation(
            "NOV-FIM-1", "only a missile attack fires into melee", field="actions.into_melee"
        )
    if kind.kind in ("move", "run"):
        feet = combat.stats_of(who).base_movement
        if feet is not None:  # NOV-MOVE-1: Base Movement per AP, doubled at a run
            facts.feet = feet * cost * (2 if kind.kind == "run" else 1)
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
        params=facts.as_params(),
        origin=position,
    )


def _target(
    state: EncounterState, who: CombatantState, spec: nc.ActionSpec, kind: act.ActionKind
) -> str | None:
    """Whom the action is aimed at (First Aid: himself, unless named)."""
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
    return target


def _check_attack_fields(spec: nc.ActionSpec, kind: act.ActionKind) -> None:
    """An attack's own fields go with an attack only."""
    attack_only = [name for name in ATTACK_FIELDS if getattr(spec, name) not in (None, False, 0)]
    if spec.direction != "front":
        attack_only.append("direction")
    if attack_only and not kind.attack:
        raise RuleViolation(
            kind.rule,
            f"{', '.join(attack_only)} belong(s) to an attack, not to {kind.label}",
            field=f"actions.{attack_only[0]}",
        )


def _spell(
    state: EncounterState,
    who: CombatantState,
    spec: nc.ActionSpec,
    kind: act.ActionKind,
    target: str | None,
    facts: NovusAction,
) -> None:
    """NOV-ATK-6: a spell cast against DEF, its facts added (none for any other action)."""
    if spec.casting_tn is None and (spec.spell_bonus is not None or spec.spell_damage is not None):
        raise RuleViolation(
            "NOV-ATK-6",
            "spell_bonus and spell_damage go with a casting_tn",
            field="actions.casting_tn",
        )
    if spec.casting_tn is None:
        return
    if target is not None and (target == who.id or combat.is_dead(state.combatant(target))):
        raise RuleViolation(
            "NOV-ATK-6",
            "a spell against DEF needs a living foe as target",
            field="actions.target",
        )
    if not kind.spell or target is None or spec.spell_bonus is None:
        raise RuleViolation(
            "NOV-ATK-6",
            "a spell vs. DEF is a cast with a target, a casting TN and the caster's casting bonus",
            field="actions.casting_tn",
        )
    facts.vs_def = True
    facts.casting_tn = spec.casting_tn
    facts.spell_bonus = spec.spell_bonus
    facts.spell_damage = spec.spell_damage or 0


def _attack(
    state: EncounterState,
    who: CombatantState,
    spec: nc.ActionSpec,
    kind: act.ActionKind,
    attacks_before: int,
    facts: NovusAction,
) -> str | None:
    """An attack's move, situations and targets added to its facts; its weapon's name."""
    stats = combat.stats_of(who)
    armed = act.attack_weapon(spec, stats)
    if who.has("disarmed") and armed is not None and armed.kind != "unarmed":
        raise RuleViolation(
            "NOV-BOON-2",
            f"{who.name} was disarmed (Disarm Foe): only unarmed attacks until the GM clears it",
            field="actions.kind",
        )
    move = act.move_of(spec, armed)
    found = situation(spec, stats, armed)
    facts.move = spec.move or "basic"
    facts.bd = int(move["bd"])
    facts.scaled = bool(move["scaled"])
    facts.armour = bool(move["armour"])
    facts.primary = attacks_before == 0
    facts.bd_mods = found.bd
    for name, value in found.facts.as_params().items():  # called shot, Riding roll, …
        setattr(facts, name, value)
    if move["ab"]:
        facts.ab_mods[spec.move or "basic"] = int(move["ab"])
    facts.ab_mods.update(found.ab)
    if move["def"]:
        facts.def_mods[spec.move or "basic"] = int(move["def"])
        facts.label = f"{kind.label}: {spec.move}"
    facts.def_mods.update(found.def_)
    if spec.into_melee or spec.bystanders:
        if kind.kind != "missile_attack":
            raise RuleViolation(
                "NOV-FIM-1",
                "only a missile attack fires into melee",
                field="actions.into_melee",
            )
        for b in spec.bystanders:
            state.combatant(b)
        facts.into_melee = True
        facts.bystanders = list(spec.bystanders)
    return armed.name if armed else None
