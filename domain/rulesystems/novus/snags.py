"""The Snag table and what the combat snags do (NOV-SNAG-1, -2, NOV-CORE-7, NOV-AMB-40,
NOV-AMB-44)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.dice import Ask, roll_plain
from domain.errors import RuleViolation
from domain.rulesystems.base import Context
from domain.rulesystems.novus import combat
from domain.rulesystems.novus import commands as nc
from domain.rulesystems.novus import events as ne
from domain.rulesystems.novus.state import PendingPoints

STRAINED_ROUNDS = 120  # 10 minutes of 5-second rounds (NOV-SNAG-2)


@dataclass(frozen=True)
class Snag:
    name: str
    label: str
    cost: int
    recorded: bool = False


TABLE: dict[str, Snag] = {
    s.name: s
    for s in [
        Snag("fumble", "Fumble the object in hand (no action with it next round)", 1, True),
        Snag("harmless_spell", "Spell seems to work but is harmless", 1, True),
        Snag("strained_muscle", "Strained muscle: −1 to all actions for 10 minutes", 1),
        Snag("extra_round", "The task takes one extra round", 1, True),
        Snag("loud_noise", "A loud noise alerts foes within 100 ft", 1, True),
        Snag("hurt_yourself", "Hurt yourself: 1d10 hits, armour applies", 2),
        Snag("break_item", "Break the item in hand", 2, True),
        Snag("botched", "Botched: start the task over", 2, True),
        Snag("hit_friend", "Hit the nearest friend (a new attack roll)", 2),
        Snag("wrong_target_spell", "Spell lands on the wrong person", 2, True),
        Snag("weapon_breaks", "The weapon breaks: its wielder takes double its damage", 3),
        Snag("spell_backlash", "The caster takes Wil bonus × the spell's points", 3),
    ]
}


def record(
    ctx: Context, pending: PendingPoints, specs: list[nc.SnagSpec]
) -> tuple[int, list[tuple[Snag, nc.SnagSpec]]]:
    """NOV-SNAG-1: spent at once (the player picks, the GM approves by sending them);
    records SnagsSpent and the harm a snag does to the roller; returns its position and the
    snags chosen (a friend's hit is rolled by the attack module)."""
    chosen = _chosen(ctx, pending, specs)
    cost = sum(s.cost for s, _ in chosen)
    if cost > pending.points:
        raise RuleViolation(
            "NOV-SNAG-1",
            f"the Snags cost {cost} points but the roll earned {pending.points}",
            field="snags",
        )
    state = ctx.state
    who = state.combatants[pending.combatant]
    effects: list[dict[str, Any]] = []
    if any(s.name == "strained_muscle" for s, _ in chosen):  # NOV-SNAG-2: 120 rounds
        effects.append(
            {
                "combatant": who.id,
                "name": "strained muscle",
                "applies_to": "act",
                "value": -1,
                "first_round": state.round,
                "last_round": state.round + STRAINED_ROUNDS - 1,
            }
        )
    at = ctx.emit(
        ne.SnagsSpent,
        cause=pending.attack,
        combatant=who.id,
        points=pending.points,
        effects=effects,
        snags=[
            {
                "name": s.name,
                "label": s.label,
                "points": s.cost,
                "recorded": s.recorded,
                **spec.model_dump(exclude_none=True),
            }
            for s, spec in chosen
        ],
    )
    for snag, spec in chosen:
        _harm(ctx, pending, snag, spec, at)
    return at, chosen


def _chosen(
    ctx: Context, pending: PendingPoints, specs: list[nc.SnagSpec]
) -> list[tuple[Snag, nc.SnagSpec]]:
    """The Snags asked for, each from the table, once, with what it needs (NOV-SNAG-1, -2)."""
    chosen: list[tuple[Snag, nc.SnagSpec]] = []
    for spec in specs:
        snag = TABLE.get(spec.name)
        if snag is None:
            raise RuleViolation(
                "NOV-SNAG-1",
                f"unknown Snag {spec.name!r}; known: {', '.join(TABLE)}",
                field="snags",
            )
        if any(s.name == snag.name for s, _ in chosen):
            raise RuleViolation("NOV-SNAG-1", f"{snag.label} is taken once", field="snags")
        if snag.name == "hit_friend":
            _check_friend(ctx, pending, spec)
        if snag.name == "spell_backlash" and spec.spell_points is None:
            raise RuleViolation(
                "NOV-SNAG-2", "spell backlash needs the spell's points", field="snags.spell_points"
            )
        chosen.append((snag, spec))
    return chosen


def _check_friend(ctx: Context, pending: PendingPoints, spec: nc.SnagSpec) -> None:
    """NOV-SNAG-2: Hit the nearest friend names him: someone else on the roller's side, alive."""
    if spec.target is None or spec.target == pending.target:
        raise RuleViolation(
            "NOV-SNAG-2", "name the nearest friend to be hit (target)", field="snags.target"
        )
    friend = ctx.state.combatant(spec.target)
    roller = ctx.state.combatants[pending.combatant]
    if friend.id == roller.id or combat.is_dead(friend):
        raise RuleViolation(
            "NOV-SNAG-2", "the nearest friend is someone else, alive", field="snags.target"
        )
    if friend.side != roller.side:
        raise RuleViolation(
            "NOV-SNAG-2", f"{friend.name} is not on the roller's side", field="snags.target"
        )


def _harm(ctx: Context, pending: PendingPoints, snag: Snag, spec: nc.SnagSpec, at: int) -> None:
    """NOV-SNAG-2: the snags that hurt the roller."""
    who = ctx.state.combatants[pending.combatant]
    stats = combat.stats_of(who)
    weapon = stats.weapon(pending.weapon)
    if snag.name == "hurt_yourself":  # 1d10 hits, the worn armour's AR applies
        ask = Ask(who.id, f"{who.name}'s Snag, hurt yourself: 1d10 hits (armour applies)")
        roll = roll_plain(ctx.dice, "hurt_yourself", 1, 10, ask)
        dmg = combat.damage({"1d10": roll.total}, 0, {}, stats.ar)
        ctx.apply_damage(who.id, dmg, cause=at, rolls={"hurt_yourself": roll.to_dict()})
    elif snag.name == "weapon_breaks" and weapon is not None:  # Default NOV-AMB-44: 2 × BD
        bd = sum(combat.base_damage(who, weapon, {}).values())
        ctx.apply_damage(who.id, combat.damage({"2 × Base Damage": 2 * bd}, 0, {}, 0), cause=at)
    elif snag.name == "spell_backlash":
        amount = stats.bonuses.wil * (spec.spell_points or 0)
        damage = combat.damage({"Wil bonus × spell points": amount}, 0, {}, 0)
        ctx.apply_damage(who.id, damage, cause=at)
