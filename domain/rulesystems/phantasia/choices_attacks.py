"""PHANTÄSIA's candidates against a foe: the attack that hit or fumbled (its damage, its
fumble roll), attack and magic checks with each weapon and power (PHA-ACT-10, -11), and the
opposed checks of the action list (PHA-ACT-7, -8, -14, -18, PHA-STS-1)."""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Choice, choice
from domain.rulesystems.phantasia import attacks
from domain.rulesystems.phantasia.attack_state import AttackResult, PhantasiaAttack
from domain.rulesystems.phantasia.choices_fields import MODIFIERS
from domain.rulesystems.phantasia.state import StatusData
from domain.rulesystems.phantasia.stats import WEAPON_CODES, PhantasiaStats
from domain.rulesystems.phantasia.turns import is_player, options_of, pm_of, stats_of
from domain.state import CombatantState, EncounterState

CONTESTS = {  # PHA-ACT-7, -8, -14, -18, PHA-STS-1: the Spanish names of the action list
    "grab": ("grab", "Agarrar"),
    "snatch": ("snatch from", "Arrebatar"),
    "push": ("push", "Empujar"),
    "knock_down": ("knock down", "Tumbar"),
    "escape": ("break free of", "Liberarse"),
}


# -- an attack that hit or fumbled ---------------------------------------------------------


def open_attack(state: EncounterState) -> list[Choice]:
    """PHA-DMG-1: the damage of the attack that hit; PHA-CRIT-4, -5: first the d6 of a
    fumble (result 6: the fumbler loses PV, or 1 PM if he has one); PHA-DEF-3: a defender
    who fumbled a block may let his shield break for normal damage."""
    action = attacks.pending_attack(state)
    if action is None:
        return []
    who = state.combatants[action.combatant]
    attack = PhantasiaAttack.of(action)
    means = attack.means or "bare hands"
    out: list[Choice] = []
    if attack.fumble_due:
        out += _fumble(who, attack, means)
    if attack.hits:
        out += _damage(state, who, attack.hits, means)
    return out


def _fumble(who: CombatantState, attack: PhantasiaAttack, means: str) -> list[Choice]:
    """PHA-CRIT-4, -5: the d6 on the fumble table; one with PM may lose 1 PM on a 6."""
    rolls = ["fumble", *(["power lock"] if attack.power else []), "death"]
    if who.marks.sustaining is not None:  # result 6 hurts him
        rolls.append("concentration")
    out = [
        choice(
            "roll_fumble",
            who.id,
            {"type": "roll_fumble"},
            f"Roll {who.name}'s fumble with {means}: 1d6 on the fumble table (pifia)",
            rolls,
        )
    ]
    if pm_of(who) >= 1:
        out.append(
            choice(
                "roll_fumble",
                who.id,
                {"type": "roll_fumble", "choice": "pm"},
                f"Roll {who.name}'s fumble with {means} (pifia); on a 6 he loses 1 PM, not PV",
                rolls,
            )
        )
    return out


def _damage(
    state: EncounterState, who: CombatantState, hits: list[AttackResult], means: str
) -> list[Choice]:
    """PHA-DMG-1: the damage on every target hit; PHA-DEF-3: a fumbled block may break the
    shield for normal damage."""
    rolls = ["damage", "death"]
    hurt = [state.combatants[r.target] for r in hits] + [who]  # Maldición hurts him
    if any(w.marks.sustaining is not None for w in hurt):
        rolls.append("concentration")
    targets = ", ".join(state.combatants[r.target].name for r in hits)
    out = [
        choice(
            "roll_damage",
            who.id,
            {"type": "roll_damage"},
            f"Roll {who.name}'s damage with {means} on {targets}",
            rolls,
        )
    ]
    for r in hits:
        if r.blocked and r.fumble:
            target = state.combatants[r.target]
            out.append(
                choice(
                    "roll_damage",
                    who.id,
                    {"type": "roll_damage", "shield_breaks": [target.id]},
                    f"Roll {who.name}'s damage on {targets}; {target.name}'s shield breaks "
                    "for normal damage (PHA-DEF-3)",
                    rolls,
                )
            )
    return out


# -- attack and magic checks ---------------------------------------------------------------


def targets_of(state: EncounterState, who: CombatantState) -> list[CombatantState]:
    """The living creatures of the other sides (unconscious ones too: PHA-DTH-3); with no
    foe left standing, anyone else living (Chaos and Fascinated turn allies on allies)."""
    living = [w for w in state.combatants.values() if w is not who and not w.has("dead")]
    foes = [w for w in living if w.side != who.side]
    return foes or living


def _in_hand(who: CombatantState, stats: PhantasiaStats) -> list[str | None]:
    """His weapons he may attack with (not dropped, PHA-CRIT-5; none two-handed while
    Grabbed, PHA-STS-1), then bare hands (PHA-ATK-3)."""
    usable = [
        w.name
        for w in stats.weapons
        if who.marks.dropped != w.name and not (w.two_handed and who.has("grabbed"))
    ]
    return [*usable, None]


def attack_choices(
    state: EncounterState,
    who: CombatantState,
    targets: list[CombatantState],
    *,
    reaction: bool = False,
    free: bool = False,
    plain: bool = False,
) -> list[Choice]:
    """PHA-ACT-10, -11: an AT with each weapon in hand (or bare hands) and an AM with each
    power, on each living target; a target with a shield may block (PHA-DEF-2)."""
    stats = stats_of(who)
    weapons = _in_hand(who, stats)
    if plain:
        weapons = weapons[:1]
    powers = [] if plain else [p.name for p in stats.powers]
    base: dict[str, Any] = {"type": "attack_check", "combatant": who.id}
    if reaction:
        base["reaction"] = True
    if free:
        base["free"] = True
    tag = "Reaction: " if reaction else "Free attack (fumble result 5): " if free else ""
    out: list[Choice] = []
    for target in targets:
        for weapon in weapons:
            out += _weapon_attack(state, who, stats, target, weapon, base, tag)
        out += [_power_attack(state, who, target, power, base, tag) for power in powers]
    return out


def _weapon_attack(
    state: EncounterState,
    who: CombatantState,
    stats: PhantasiaStats,
    target: CombatantState,
    weapon: str | None,
    base: dict[str, Any],
    tag: str,
) -> list[Choice]:
    """An AT with one weapon (or bare hands), and the same blocked by his shield."""
    command = {**base, "targets": [target.id], **({"weapon": weapon} if weapon else {})}
    fields: dict[str, Any] = {"modifiers": MODIFIERS}
    held = stats.weapon(weapon) if weapon else None
    allowed = WEAPON_CODES[held.code]["at"] if held else ()
    if isinstance(allowed, tuple) and len(allowed) > 1:  # AMP, AA (PHA-ATK-1)
        fields["characteristic"] = {"enum": list(allowed)}
    means = weapon or "bare hands"
    label = f"{tag}{who.name} attacks {target.name} with {means} (AT)"
    rolls = _attack_rolls(state, who, target)
    out = [choice("attack_check", who.id, command, label, rolls, fields=fields)]
    if stats_of(target).shield is not None and not target.marks.shield_broken:
        out.append(
            choice(
                "attack_check",
                who.id,
                {**command, "block": [target.id]},
                f"{label}; {target.name} blocks with his shield (bloqueo)",
                rolls,
                fields=fields,
            )
        )
    return out


def _power_attack(
    state: EncounterState,
    who: CombatantState,
    target: CombatantState,
    power: str,
    base: dict[str, Any],
    tag: str,
) -> Choice:
    """An AM with one power; the narrator may add targets and name a critical one."""
    living = [w.id for w in state.combatants.values() if w is not who and not w.has("dead")]
    return choice(
        "attack_check",
        who.id,
        {**base, "targets": [target.id], "power": power},
        f"{tag}{who.name} casts {power} on {target.name} (AM)",
        _attack_rolls(state, who, target),
        fields={
            "targets": {"type": "array", "items": {"enum": living}, "uniqueItems": True},
            "critical_target": {"enum": living},
            "modifiers": MODIFIERS,
        },
    )


def _attack_rolls(state: EncounterState, who: CombatantState, target: CombatantState) -> list[str]:
    """PHA-CORE-1, PHA-DEF-6, Default PHA-AMB-50: a player rolls AT/AM against the
    narrator's creatures and DF/DM against them; creature on creature, the program rolls;
    a Paralysed or Asleep target is hit without a roll (PHA-ATK-4)."""
    if target.has("paralysed") or target.has("asleep"):
        return []
    if options_of(state).who_rolls == "attacker" or is_player(who) or not is_player(target):
        return ["attack"]
    return ["defense"]


# -- opposed checks ------------------------------------------------------------------------


def contests(
    state: EncounterState,
    who: CombatantState,
    targets: list[CombatantState],
    *,
    reaction: bool,
    plain: bool = False,
) -> list[Choice]:
    """PHA-ACT-7, -8, -14, -18 and PHA-STS-1: opposed checks, both sides rolling
    (PHA-CHK-4); push and knock down are FUE against FUE, the others may use AGI."""
    out: list[Choice] = []
    grab = who.conditions.get("grabbed")
    kinds = ["grab"] if plain else ["grab", "snatch", "push", "knock_down"]
    for target in targets:
        for kind in kinds:
            out.append(_contest(who, target, kind, reaction))
    if grab is not None:  # PHA-STS-1: break free of whoever holds him
        holder = state.combatants.get(StatusData.of(grab).by or "")
        held_by = [holder] if holder is not None else targets
        out += [_contest(who, h, "escape", reaction) for h in held_by if not h.has("dead")]
    return out


def _contest(who: CombatantState, target: CombatantState, kind: str, reaction: bool) -> Choice:
    verb, es = CONTESTS[kind]
    command: dict[str, Any] = {
        "type": "contest",
        "combatant": who.id,
        "kind": kind,
        "target": target.id,
    }
    if reaction:
        command["reaction"] = True
    fields: dict[str, Any] = {"phantasia_point": {"type": "boolean"}, "modifiers": MODIFIERS}
    if kind not in ("push", "knock_down"):
        fields |= {
            "characteristic": {"enum": ["fue", "agi"]},
            "target_characteristic": {"enum": ["fue", "agi"]},
        }
    if kind == "snatch":
        fields["item"] = {"type": "string", "maxLength": 60}
    tag = "Reaction: " if reaction else ""
    return choice(
        "contest",
        who.id,
        command,
        f"{tag}{who.name} tries to {verb} {target.name} ({es}): opposed FUE",
        ["attacker", "defender"],
        fields=fields,
    )
