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
"""

from __future__ import annotations

from typing import Any

from domain.rulesystems.base import Choice, choice
from domain.rulesystems.phantasia import attacks, statuses, turns
from domain.rulesystems.phantasia.stats import (
    WEAPON_CODES,
    PhantasiaStats,
    max_phantasia_points,
    max_pm,
)
from domain.rulesystems.phantasia.turns import (
    acting,
    actions_left,
    is_player,
    next_up,
    options_of,
    pm_of,
    pp_of,
    stats_of,
    surprise_due,
    unplaced,
)
from domain.rulesystems.phantasia.upkeep import END_CHECKS
from domain.state import CombatantState, EncounterState

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
CHARACTERISTICS = ("fue", "agi", "int", "vit", "sue", "ca")
CONTESTS = {  # PHA-ACT-7, -8, -14, -18, PHA-STS-1: the Spanish names of the action list
    "grab": ("grab", "Agarrar"),
    "snatch": ("snatch from", "Arrebatar"),
    "push": ("push", "Empujar"),
    "knock_down": ("knock down", "Tumbar"),
    "escape": ("break free of", "Liberarse"),
}
MODIFIERS = {"type": "object", "additionalProperties": {"type": "integer"}}  # the GM's


def choices(state: EncounterState) -> list[Choice]:
    """Every candidate command of play now, in the order a screen would show them: the
    step's own (surprise, initiative, the next turn), what the acting combatant may do,
    what is open to the others (reactions, free checks, PHANTÄSIA points), the turn's end."""
    if not state.combatants:
        return []
    out: list[Choice] = []
    now = acting(state)
    out += _before_initiative(state, now)
    out += _initiative(state)
    if now is None:
        out += _start_turn(state)
    out += _open_attack(state)
    if now is not None:
        out += _actions(state, now, reaction=False)
    for who in state.combatants.values():
        free = who.marks.get("free_attack")
        if free and not who.has("dead"):  # PHA-CRIT-5 result 5: on the fumbler, at once
            out += _attacks(state, who, [state.combatants[free]], free=True)
    for who in state.combatants.values():
        if who is not now and _may_react(who):
            out += _actions(state, who, reaction=True)
    for who in state.combatants.values():
        if not who.has("dead"):
            out += _free_check(who)
    out += _points(state)
    if now is not None:
        out.append(_end_turn(state, now))
    return out


# -- the step's own ------------------------------------------------------------------------


def _before_initiative(state: EncounterState, now: CombatantState | None) -> list[Choice]:
    """PHA-SURP-1 (Default PHA-AMB-39): before any initiative the narrator may rule that
    some act once first; one candidate per combatant, the rest in `fields`."""
    if now is not None or any(w.ip is not None for w in state.combatants.values()):
        return []
    living = [w for w in state.combatants.values() if not w.has("dead")]
    return [
        choice(
            "declare_surprise",
            w.id,
            {"type": "declare_surprise", "combatants": [w.id]},
            f"Surprise! {w.name} acts once before initiative (sorpresa)",
            [],
            fields={"combatants": _some_of([x.id for x in living], 1)},
        )
        for w in living
    ]


def _some_of(ids: list[str], least: int) -> dict[str, Any]:
    """A field naming `least` or more of `ids`, each once."""
    return {"type": "array", "items": {"enum": ids}, "minItems": least, "uniqueItems": True}


def _initiative(state: EncounterState) -> list[Choice]:
    """PHA-INIT-1, -4, -5: each combatant without initiative rolls (a late joiner too),
    or everyone at once; the narrator may roll once for a group of his creatures; tied
    on initiative and AGI, the narrator may order them or let them act at once (PHA-INIT-3)."""
    agi_order = options_of(state).initiative == "agi_order"
    out: list[Choice] = []
    fields: dict[str, Any] = {"simultaneous": {"type": "boolean"}}
    if not agi_order:
        fields |= {"ip": {"type": "integer"}, "modifiers": MODIFIERS}
    for who in state.combatants.values():
        if who.ip is not None:
            continue
        agi = stats_of(who).agi
        label = (
            f"Place {who.name} by his AGI {agi} (PHA-INIT-4)"
            if agi_order
            else f"Roll {who.name}'s initiative: 1d12 + AGI {agi}"
        )
        rolls = [] if agi_order else ["initiative", *_tie_rolls(state, [who])]
        out.append(
            choice(
                "roll_initiative",
                who.id,
                {"type": "roll_initiative", "combatant": who.id},
                label,
                rolls,
                fields=fields,
            )
        )
    due = unplaced(state)
    if due:
        names = [f"initiative:{w.name}" for w in due] if len(due) > 1 else ["initiative"]
        out.append(
            choice(
                "roll_initiative",
                None,
                {"type": "roll_initiative"},
                "Initiative for everyone without it: "
                + ", ".join(w.name for w in due)
                + ("" if agi_order else " (1d12 + AGI each)"),
                [] if agi_order else [*names, *_tie_rolls(state, due)],
                fields=fields,
            )
        )
    creatures = [w for w in due if not is_player(w)]
    if len(creatures) >= 2 and not agi_order:  # PHA-INIT-1: one roll for a group
        out.append(
            choice(
                "roll_initiative",
                None,
                {"type": "roll_initiative", "group": [w.id for w in creatures]},
                "One initiative roll for the group " + ", ".join(w.name for w in creatures),
                ["initiative", *_tie_rolls(state, creatures)],
                fields={
                    "group": _some_of([w.id for w in creatures], 2),
                    **fields,
                },
            )
        )
    tied: dict[tuple[int, int], list[CombatantState]] = {}
    for w in turns.order(state):
        tied.setdefault((w.ip or 0, stats_of(w).agi), []).append(w)
    for group in tied.values():  # PHA-INIT-3: the narrator's order, or at the same time
        if len(group) < 2:
            continue
        ids = [w.id for w in group]
        names = ", ".join(w.name for w in group)
        for simultaneous in (False, True):
            out.append(
                choice(
                    "roll_initiative",
                    None,
                    {"type": "roll_initiative", "tie_order": ids, "simultaneous": simultaneous},
                    f"Tied on initiative and AGI: {names} "
                    + ("act at the same time" if simultaneous else "act in this order"),
                    [],
                    fields={"tie_order": _some_of(ids, 2)},
                )
            )
    return out


def _tie_rolls(state: EncounterState, placing: list[CombatantState]) -> list[str]:
    """The tie re-rolls a placing may ask for: those who share an AGI score with another
    (PHA-INIT-3: ties on the result go by AGI, then a re-roll)."""
    agis = [stats_of(w).agi for w in state.combatants.values() if w.ip is not None]
    agis += [stats_of(w).agi for w in placing]
    return [
        f"tie:{w.name}"
        for w in state.combatants.values()
        if (w.ip is not None or w in placing) and agis.count(stats_of(w).agi) > 1
    ]


def _start_turn(state: EncounterState) -> list[Choice]:
    """PHA-INIT-2: the next in the order (a surprising one first, PHA-SURP-1); the start
    of his turn rolls his Fear check (PHA-STS-18) and suffocation (PHA-SUF)."""
    if unplaced(state) and not surprise_due(state):
        return []
    up = next_up(state)
    if up is None:
        return []
    rolls = []
    if up.has("fear"):
        rolls.append("fear")
    if up.has("suffocating"):
        rolls += ["suffocation", "death"]
        if up.marks.get("sustaining"):
            rolls.append("concentration")
    surprise = up.marks.get("surprise") == "due"
    return [
        choice(
            "start_turn",
            up.id,
            {"type": "start_turn", "combatant": up.id},
            f"Start {up.name}'s {'surprise action' if surprise else 'turn'}",
            rolls,
        )
    ]


def _end_turn(state: EncounterState, now: CombatantState) -> Choice:
    """His end-of-turn checks (PHA-STS-2, -3, -14, -20) and durations (PHA-STS-0); the
    round ends after the last turn."""
    rolls: list[str] = []
    for name, cond in now.conditions.items():
        status = cond.data.get("status", name)
        if status in END_CHECKS and (cond.count is None or status == "poisoned"):
            rolls.append(name)
            if status == "poisoned":
                rolls += ["poison damage", "death"]
    if rolls and now.marks.get("sustaining"):
        rolls.append("concentration")
    return choice(
        "end_turn",
        now.id,
        {"type": "end_turn", "combatant": now.id},
        f"End {now.name}'s turn",
        rolls,
    )


# -- an attack that hit or fumbled ---------------------------------------------------------


def _open_attack(state: EncounterState) -> list[Choice]:
    """PHA-DMG-1: the damage of the attack that hit; PHA-CRIT-4, -5: first the d6 of a
    fumble (result 6: the fumbler loses PV, or 1 PM if he has one); PHA-DEF-3: a defender
    who fumbled a block may let his shield break for normal damage."""
    action = attacks.pending_attack(state)
    if action is None:
        return []
    who = state.combatants[action.combatant]
    params = action.params
    means = params.get("power") or params.get("weapon") or "bare hands"
    out: list[Choice] = []
    if attacks.fumble_due(action):
        rolls = ["fumble", *(["power lock"] if params.get("power") else []), "death"]
        if who.marks.get("sustaining"):  # result 6 hurts him
            rolls.append("concentration")
        out.append(
            choice(
                "roll_fumble",
                who.id,
                {"type": "roll_fumble"},
                f"Roll {who.name}'s fumble with {means}: 1d6 on the fumble table (pifia)",
                rolls,
            )
        )
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
    hits = [r for r in params["results"] if r["hit"]]
    if hits:
        rolls = ["damage", "death"]
        hurt = [state.combatants[r["target"]] for r in hits] + [who]  # Maldición hurts him
        if any(w.marks.get("sustaining") for w in hurt):
            rolls.append("concentration")
        targets = ", ".join(state.combatants[r["target"]].name for r in hits)
        out.append(
            choice(
                "roll_damage",
                who.id,
                {"type": "roll_damage"},
                f"Roll {who.name}'s damage with {means} on {targets}",
                rolls,
            )
        )
        for r in hits:
            if r.get("blocked") and r.get("fumble"):
                target = state.combatants[r["target"]]
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


# -- a combatant's actions -----------------------------------------------------------------


def _may_react(who: CombatantState) -> bool:
    """PHA-RX-1, -4: one action outside his turn until his next turn starts."""
    return not who.has("dead") and statuses.can_act(who) and not who.marks.get("reaction_used")


def _actions(state: EncounterState, who: CombatantState, *, reaction: bool) -> list[Choice]:
    """What `who` may do with an action point in his turn (PHA-ACT-1, -6), or as his one
    reaction outside it (PHA-RX)."""
    if who.has("dead") or not statuses.can_act(who):
        return []
    prepared = bool(who.marks.get("prepared"))
    out: list[Choice] = []
    if not reaction and actions_left(who) < 1:
        return _jumps(who)  # PHA-JMP: a jump is part of moving, no action point of its own
    foes = _targets(state, who)
    if reaction and not prepared:  # the plainest forms of a reaction
        out += _attacks(state, who, foes, reaction=True, plain=True)
        out += _contests(state, who, foes, reaction=True, plain=True)
        out += _acts(state, who, reaction=True, plain=True)
        out.append(_check_action(who, "agi", reaction=True, every=True))
        return out
    out += _attacks(state, who, foes, reaction=reaction)
    out += _contests(state, who, foes, reaction=reaction)
    out += _acts(state, who, reaction=reaction)
    out += [_check_action(who, ch, reaction=reaction) for ch in CHARACTERISTICS]
    if not reaction:
        out += _jumps(who)
    return out


def _targets(state: EncounterState, who: CombatantState) -> list[CombatantState]:
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
        if who.marks.get("dropped") != w.name and not (w.two_handed and who.has("grabbed"))
    ]
    return [*usable, None]


def _attacks(
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
    out: list[Choice] = []
    base: dict[str, Any] = {"type": "attack_check", "combatant": who.id}
    if reaction:
        base["reaction"] = True
    if free:
        base["free"] = True
    tag = "Reaction: " if reaction else "Free attack (fumble result 5): " if free else ""
    living = [w.id for w in state.combatants.values() if w is not who and not w.has("dead")]
    for target in targets:
        shield = stats_of(target).shield is not None and not target.marks.get("shield_broken")
        for weapon in weapons:
            command = {**base, "targets": [target.id], **({"weapon": weapon} if weapon else {})}
            fields: dict[str, Any] = {"modifiers": MODIFIERS}
            held = stats.weapon(weapon) if weapon else None
            allowed = WEAPON_CODES[held.code]["at"] if held else ()
            if isinstance(allowed, tuple) and len(allowed) > 1:  # AMP, AA (PHA-ATK-1)
                fields["characteristic"] = {"enum": list(allowed)}
            means = weapon or "bare hands"
            label = f"{tag}{who.name} attacks {target.name} with {means} (AT)"
            rolls = _attack_rolls(state, who, target)
            out.append(choice("attack_check", who.id, command, label, rolls, fields=fields))
            if shield:
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
        for power in powers:
            command = {**base, "targets": [target.id], "power": power}
            label = f"{tag}{who.name} casts {power} on {target.name} (AM)"
            fields = {
                "targets": {"type": "array", "items": {"enum": living}, "uniqueItems": True},
                "critical_target": {"enum": living},
                "modifiers": MODIFIERS,
            }
            out.append(
                choice(
                    "attack_check",
                    who.id,
                    command,
                    label,
                    _attack_rolls(state, who, target),
                    fields=fields,
                )
            )
    return out


def _attack_rolls(state: EncounterState, who: CombatantState, target: CombatantState) -> list[str]:
    """PHA-CORE-1, PHA-DEF-6, Default PHA-AMB-50: a player rolls AT/AM against the
    narrator's creatures and DF/DM against them; creature on creature, the program rolls;
    a Paralysed or Asleep target is hit without a roll (PHA-ATK-4)."""
    if target.has("paralysed") or target.has("asleep"):
        return []
    if options_of(state).who_rolls == "attacker" or is_player(who) or not is_player(target):
        return ["attack"]
    return ["defense"]


def _contests(
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
        holder = state.combatants.get(grab.data.get("by") or "")
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


def _acts(
    state: EncounterState, who: CombatantState, *, reaction: bool, plain: bool = False
) -> list[Choice]:
    """The other actions for one action point: PHA-ACT-9, -13, -15..17, -19, PHA-RX-2,
    PHA-STS-19."""
    stats = stats_of(who)
    tag = "Reaction: " if reaction else ""
    out: list[Choice] = []

    def act(action: str, label: str, **more: Any) -> None:
        fields = more.pop("fields", {})
        command = {"type": "act", "combatant": who.id, "action": action, **more}
        if reaction:
            command["reaction"] = True
        out.append(choice("act", who.id, command, f"{tag}{who.name}: {label}", [], fields=fields))

    mo = max(0, stats.movement + sum(statuses.modifiers(who, "movement").values()))
    act(  # PHA-ACT-16: up to MO metres (halved on hard terrain, Default PHA-AMB-26)
        "move",
        f"Move up to {mo} m (Movimiento)",
        fields={
            "metres": {"type": "integer", "minimum": 0, "maximum": mo},
            "terrain": {"enum": ["normal", "climb", "swim", "stealth"]},
        },
    )
    act(
        "other",
        "another action (the narrator says what it does)",
        what="another action",
        fields={"what": {"type": "string", "maxLength": 200}, "offensive": {"type": "boolean"}},
    )
    if plain:
        return out
    for weapon in stats.weapons:
        if who.marks.get("dropped") == weapon.name:  # PHA-CRIT-5: picking it up is Use Item
            act(
                "use_item",
                f"pick up his {weapon.name} (Usar Ítem)",
                weapon=weapon.name,
                what=f"picks up his {weapon.name}",
            )
        else:
            act(
                "switch_weapon",
                f"take his {weapon.name} in hand (Cambiar Arma)",
                weapon=weapon.name,
            )
        if weapon.crossbow_or_firearm:
            act("reload", f"reload his {weapon.name} (Recargar)", weapon=weapon.name)
    act(
        "use_item",
        "use an item (Usar Ítem)",
        what="an item",
        fields={"what": {"type": "string", "maxLength": 200}, "offensive": {"type": "boolean"}},
    )
    held = statuses.beneficial(who)
    if "defense" not in held and len(held) >= statuses.MAX_BENEFICIAL:  # PHA-STK-3
        for ending in [*held, "least_time"]:
            act("defense", f"Defense, ending {ending} (Defensa)", replace=ending)
    else:
        act("defense", "Defense: DF +3 until his next turn (Defensa)")
    if who.has("prone"):
        act("stand_up", "stand up (Levantarse)")
    if not reaction:  # PHA-RX-2: prepared on his own turn
        act(
            "prepare",
            "prepare an action for a condition (Preparar una acción)",
            trigger="when an enemy comes within reach",
            fields={
                "trigger": {"type": "string", "minLength": 1, "maxLength": 200},
                "what": {"type": "string", "maxLength": 200},
            },
        )
    for power in stats.powers:  # PHA-ACT-15; beneficial magic needs no AM (PHA-MAG-2)
        act(
            "cast_power",
            f"cast {power.name} (Lanzar Poder)",
            power=power.name,
            fields={"sustain": {"type": "boolean"}, "offensive": {"type": "boolean"}},
        )
    return out


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


def _free_check(who: CombatantState) -> list[Choice]:
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


def _jumps(who: CombatantState) -> list[Choice]:
    """PHA-JMP-1..4: a FUE check against the base distance (long FUE/2 m, high FUE/4 m);
    failing by 1, an AGI check to catch the edge."""
    if not who.marks.get("in_turn") or who.has("dead") or not statuses.can_act(who):
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


# -- PHANTÄSIA points -------------------------------------------------------------------


def _points(state: EncounterState) -> list[Choice]:
    """PHA-PP-2, -4: a point spent on himself or an ally (his side): to re-roll the last
    AT, DF, AM or DM check he made, in that turn (a); to re-roll a failed death check at
    once (PHA-DTH-6); to regain 1 PM (d, PHA-PM-3)."""
    out: list[Choice] = []
    last = attacks.last_attack(state)
    rollers = {
        r.get("roller")
        for r in (last.params["results"] if last else [])
        if r.get("face") is not None and not r.get("rerolled")
    }
    for payer in state.combatants.values():
        if pp_of(payer) < 1:
            continue
        for helped in state.combatants.values():
            if helped.side != payer.side:
                continue
            if payer.has("dead") and helped is not payer:
                continue  # the dead act no more: his point only for his own death re-roll
            body: dict[str, Any] = {"type": "spend_phantasia_point", "combatant": payer.id}
            if helped is not payer:
                body["for_combatant"] = helped.id
            whom = "his" if helped is payer else f"{helped.name}'s"
            death = helped.marks.get("death_check") or {}
            if helped.has("dead") and death.get("dies") and not death.get("reroll"):
                out.append(
                    choice(
                        "spend_phantasia_point",
                        payer.id,
                        {**body, "use": "death_reroll"},
                        f"{payer.name} spends a PHANTÄSIA point to re-roll {whom} failed death "
                        "check",
                        ["death"],
                    )
                )
            if helped.has("dead"):
                continue
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


# -- the narrator's forms ----------------------------------------------------------------


def overrides(state: EncounterState, base: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The base forms that apply to PHANTÄSIA (not set_modifier: its lasting changes are
    statuses, PHA-STK-1; a status's count is his own turns, PHA-STS-0) and the book's own:
    statuses (PHA-STS), healing (PHA-DTH-5), falls (PHA-DMG-8), PM (PHA-PM-4, -5), awards
    (PHA-PP-1, -3), the load (PHA-WPN-7)."""
    named = sorted(n for n in statuses.NAMES if n != statuses.MAGIC)
    forms: list[dict[str, Any]] = []
    for form in base:
        if form["type"] in ("set_modifier", "clear_modifier"):
            continue
        if form["type"] == "set_condition":
            form = {
                **form,
                "fields": {
                    "condition": {"enum": named},
                    "count": {"type": "integer", "minimum": 1},
                    "reason": {"type": "string"},
                },
            }
        forms.append(form)
    load_rule = options_of(state).load_rule
    ids = list(state.combatants)
    for who in state.combatants.values():
        stats = stats_of(who)
        forms.append(
            {
                "type": "apply_status",
                "combatant": who.id,
                "fields": {
                    "status": {"enum": sorted(statuses.NAMES)},
                    "turns": {"type": "integer", "minimum": 1},
                    "name": {"type": "string", "maxLength": 60},
                    "beneficial": {"type": "boolean"},
                    "item": {"type": "boolean"},
                    "modifiers": MODIFIERS,
                    "damage": {"type": "string"},
                    "reduction": {"type": "integer", "minimum": 0},
                    "harmed_by": {"type": "string"},
                    "resist": {"enum": list(CHARACTERISTICS)},
                    "by": {"enum": ids},
                    "replace": {"type": "string"},
                    "from_attack": {"type": "string"},
                    "reason": {"type": "string"},
                },
            }
        )
        if not who.has("dead"):
            forms.append(
                {
                    "type": "heal",
                    "combatant": who.id,
                    "fields": {
                        "amount": {"type": "integer", "minimum": 0},
                        "heal_dice": {"type": "string"},
                        "caster": {"enum": ids},
                        "reason": {"type": "string"},
                    },
                }
            )
        forms.append(
            {
                "type": "fall",
                "combatant": who.id,
                "fields": {"metres": {"type": "integer", "minimum": 1, "maximum": 1000}},
            }
        )
        forms.append(
            {
                "type": "adjust_pm",
                "combatant": who.id,
                "fields": {
                    "amount": {
                        "type": "integer",
                        "minimum": -pm_of(who),
                        "maximum": max_pm(stats) - pm_of(who),
                    },
                    "reason": {"type": "string"},
                },
            }
        )
        at_max = pp_of(who) >= max_phantasia_points(stats.level)
        forms.append(
            {
                "type": "award_phantasia_point",
                "combatant": who.id,
                "fields": {
                    **({"pass_to": {"enum": [i for i in ids if i != who.id]}} if at_max else {}),
                    "reason": {"type": "string"},
                },
            }
        )
        if load_rule:
            forms.append(
                {
                    "type": "set_load",
                    "combatant": who.id,
                    "fields": {"carried_kg": {"type": "number", "minimum": 0}},
                }
            )
    return forms
