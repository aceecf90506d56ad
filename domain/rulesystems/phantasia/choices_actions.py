"""What a PHANTÄSIA combatant may do with an action point in his turn (PHA-ACT-1, -6) or
as his one reaction outside it (PHA-RX): attacks and contests (choices_attacks), the other
actions of the list, a characteristic check, a jump; and a check the narrator calls for."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Choice, choice
from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.choices_attacks import attack_choices, contests, targets_of
from domain.rulesystems.phantasia.choices_fields import CHARACTERISTICS, MODIFIERS
from domain.rulesystems.phantasia.stats import PhantasiaStats, Power, Weapon
from domain.rulesystems.phantasia.turns import actions_left, stats_of
from domain.state import CombatantState, EncounterState

WHAT = {"type": "string", "maxLength": 200}  # what another action or an item does


def may_react(who: CombatantState) -> bool:
    """PHA-RX-1, -4: one action outside his turn until his next turn starts."""
    return not who.has("dead") and statuses.can_act(who) and not who.marks.reaction_used


def actions(state: EncounterState, who: CombatantState, *, reaction: bool) -> list[Choice]:
    """What `who` may do with an action point in his turn (PHA-ACT-1, -6), or as his one
    reaction outside it (PHA-RX)."""
    if who.has("dead") or not statuses.can_act(who):
        return []
    prepared = who.marks.prepared is not None
    out: list[Choice] = []
    if not reaction and actions_left(who) < 1:
        return jumps(who)  # PHA-JMP: a jump is part of moving, no action point of its own
    foes = targets_of(state, who)
    if reaction and not prepared:  # the plainest forms of a reaction
        out += attack_choices(state, who, foes, reaction=True, plain=True)
        out += contests(state, who, foes, reaction=True, plain=True)
        out += _acts(who, reaction=True, plain=True)
        out.append(_check_action(who, "agi", reaction=True, every=True))
        return out
    out += attack_choices(state, who, foes, reaction=reaction)
    out += contests(state, who, foes, reaction=reaction)
    out += _acts(who, reaction=reaction)
    out += [_check_action(who, ch, reaction=reaction) for ch in CHARACTERISTICS]
    if not reaction:
        out += jumps(who)
    return out


# -- the other actions ---------------------------------------------------------------------


def _acts(who: CombatantState, *, reaction: bool, plain: bool = False) -> list[Choice]:
    """The other actions for one action point: PHA-ACT-9, -13, -15..17, -19, PHA-RX-2,
    PHA-STS-19."""
    stats = stats_of(who)
    out = [_move(who, stats, reaction)]
    out.append(
        _act(
            who,
            reaction,
            "other",
            "another action (the narrator says what it does)",
            what="another action",
            fields={"what": WHAT, "offensive": {"type": "boolean"}},
        )
    )
    if plain:
        return out
    for weapon in stats.weapons:
        out += _weapon_acts(who, weapon, reaction)
    out.append(
        _act(
            who,
            reaction,
            "use_item",
            "use an item (Usar Ítem)",
            what="an item",
            fields={"what": WHAT, "offensive": {"type": "boolean"}},
        )
    )
    out += _defense(who, reaction)
    if who.has("prone"):
        out.append(_act(who, reaction, "stand_up", "stand up (Levantarse)"))
    if not reaction:  # PHA-RX-2: prepared on his own turn
        out.append(_prepare(who))
    return out + [_cast(who, power, reaction) for power in stats.powers]


def _act(
    who: CombatantState,
    reaction: bool,
    action: str,
    label: str,
    fields: dict[str, Any] | None = None,
    **more: Any,
) -> Choice:
    """One `act` candidate: `more` goes into the command, `fields` are the narrator's."""
    command = {"type": "act", "combatant": who.id, "action": action, **more}
    if reaction:
        command["reaction"] = True
    tag = "Reaction: " if reaction else ""
    return choice("act", who.id, command, f"{tag}{who.name}: {label}", [], fields=fields or {})


def _move(who: CombatantState, stats: PhantasiaStats, reaction: bool) -> Choice:
    """PHA-ACT-16: up to MO metres (halved on hard terrain, Default PHA-AMB-26)."""
    mo = max(0, stats.movement + sum(statuses.modifiers(who, "movement").values()))
    return _act(
        who,
        reaction,
        "move",
        f"Move up to {mo} m (Movimiento)",
        fields={
            "metres": {"type": "integer", "minimum": 0, "maximum": mo},
            "terrain": {"enum": ["normal", "climb", "swim", "stealth"]},
        },
    )


def _weapon_acts(who: CombatantState, weapon: Weapon, reaction: bool) -> list[Choice]:
    """Taking a weapon in hand, or picking it up if he dropped it; reloading it."""
    if who.marks.dropped == weapon.name:  # PHA-CRIT-5: picking it up is Use Item
        out = [
            _act(
                who,
                reaction,
                "use_item",
                f"pick up his {weapon.name} (Usar Ítem)",
                weapon=weapon.name,
                what=f"picks up his {weapon.name}",
            )
        ]
    else:
        out = [
            _act(
                who,
                reaction,
                "switch_weapon",
                f"take his {weapon.name} in hand (Cambiar Arma)",
                weapon=weapon.name,
            )
        ]
    if weapon.crossbow_or_firearm:
        label = f"reload his {weapon.name} (Recargar)"
        out.append(_act(who, reaction, "reload", label, weapon=weapon.name))
    return out


def _defense(who: CombatantState, reaction: bool) -> list[Choice]:
    """PHA-ACT-13: DF +3 until his next turn; PHA-STK-3: with as many beneficial statuses
    as he may hold, one of them (or the one with least time left) ends for it."""
    held = statuses.beneficial(who)
    if "defense" not in held and len(held) >= statuses.MAX_BENEFICIAL:
        return [
            _act(who, reaction, "defense", f"Defense, ending {ending} (Defensa)", replace=ending)
            for ending in [*held, "least_time"]
        ]
    return [_act(who, reaction, "defense", "Defense: DF +3 until his next turn (Defensa)")]


def _prepare(who: CombatantState) -> Choice:
    """PHA-RX-2: an action prepared for a condition, taken as his reaction."""
    return _act(
        who,
        False,
        "prepare",
        "prepare an action for a condition (Preparar una acción)",
        trigger="when an enemy comes within reach",
        fields={
            "trigger": {"type": "string", "minLength": 1, "maxLength": 200},
            "what": WHAT,
        },
    )


def _cast(who: CombatantState, power: Power, reaction: bool) -> Choice:
    """PHA-ACT-15; beneficial magic needs no AM (PHA-MAG-2)."""
    return _act(
        who,
        reaction,
        "cast_power",
        f"cast {power.name} (Lanzar Poder)",
        power=power.name,
        fields={"sustain": {"type": "boolean"}, "offensive": {"type": "boolean"}},
    )


# -- checks and jumps ----------------------------------------------------------------------


def _check_action(
    who: CombatantState, characteristic: str, *, reaction: bool, every: bool = False
) -> Choice:
    """PHA-ACT-12: a characteristic check as an action (plain roll-under, PHA-CHK-1)."""
    command: dict[str, Any] = {
        "type": "check",
        "combatant": who.id,
        "characteristic": characteristic,
        "as_action": True,
    }
    if reaction:
        command["reaction"] = True
    tag = "Reaction: " if reaction else ""
    fields: dict[str, Any] = {
        "purpose": {"type": "string", "maxLength": 80},
        "phantasia_point": {"type": "boolean"},
        "modifiers": MODIFIERS,
    }
    if every:
        fields["characteristic"] = {"enum": list(CHARACTERISTICS)}
    return choice(
        "check",
        who.id,
        command,
        f"{tag}{who.name}: {characteristic.upper()} check as an action (Chequeo de Característica)",
        ["check"],
        fields=fields,
    )


def free_check(who: CombatantState) -> list[Choice]:
    """PHA-CHK-1, -5: a check the narrator calls for, outside the action list (no action
    point); a PHANTÄSIA point makes it succeed (PHA-PP-2 b), an ally's too (PHA-PP-4)."""
    fields: dict[str, Any] = {
        "characteristic": {"enum": list(CHARACTERISTICS)},
        "purpose": {"type": "string", "maxLength": 80},
        "phantasia_point": {"type": "boolean"},
        "helped_by": {"type": "string"},
        "power_user_level": {"type": "integer", "minimum": 1, "maximum": 100},
        "modifiers": MODIFIERS,
    }
    return [
        choice(
            "check",
            who.id,
            {"type": "check", "combatant": who.id, "characteristic": "fue"},
            f"{who.name}: a characteristic check the narrator calls for",
            ["check"],
            fields=fields,
        )
    ]


def jumps(who: CombatantState) -> list[Choice]:
    """PHA-JMP-1..4: a FUE check against the base distance (long FUE/2 m, high FUE/4 m);
    failing by 1, an AGI check to catch the edge."""
    if not who.marks.in_turn or who.has("dead") or not statuses.can_act(who):
        return []
    fue = stats_of(who).fue
    out = []
    for kind, base in (("long", fue // 2), ("high", fue // 4)):
        metres = max(1, base)
        out.append(
            choice(
                "jump",
                who.id,
                {"type": "jump", "combatant": who.id, "kind": kind, "metres": metres},
                f"{who.name}: {kind} jump of {metres} m (FUE check, base {base} m)",
                ["jump", "edge"],
                fields={
                    "metres": {"type": "integer", "minimum": 1, "maximum": 100},
                    "fall_m": {"type": "integer", "minimum": 0, "maximum": 1000},
                    "phantasia_point": {"type": "boolean"},
                },
            )
        )
    return out
