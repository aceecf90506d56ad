"""What can happen now in a Novus round: the commands of play each combatant may send at
this step (NOV-SEQ-1), each complete and in the game's words, with the rolls it may ask
for. The application keeps those the asking token may send and the rules accept (each is
run on a copy up to its first die), so a candidate may be generous; but a command the
rules accept must never be missing. Free values (AP of a move, an IP to hold at, a GM's
modifiers, a Fate Point's effect) get a default in `command` and are described in
`fields`; a declaration of several actions is offered one action at a time (and the empty
declaration), the rest described in `fields`, so nothing grows combinatorially."""

from __future__ import annotations

from typing import Any, get_args

from domain.commands import ActionSpec, BoonSpec
from domain.errors import RuleViolation
from domain.rulesystems.base import Choice, choice
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import boons as boon_table
from domain.rulesystems.novus import combat, rounds
from domain.rulesystems.novus import snags as snag_table
from domain.rulesystems.novus.cancel import CANCEL_MOVE_AP
from domain.rulesystems.novus.declare import HOLD_COST
from domain.rulesystems.novus.stats import NovusStats, StatName, Weapon
from domain.state import ActionState, CombatantState, EncounterState

STATS: tuple[str, ...] = get_args(StatName)
ATTACKS = ("melee_attack", "power_attack", "missile_attack", "unarmed_attack", "brawl")
ATTACKS_ALONE = ("mounted_charge",)  # over budget: declared alone, resolved later
# NOV-CANCEL-2: what a replacement may be without its −5; the others are in `fields`
REPLACEMENTS = ("move", "run", "dodge", "counterspell", "instant_spell_action")
MODIFIERS = {
    "type": "object",
    "additionalProperties": {"type": "integer"},
    "description": "The GM's situational modifiers, by name.",
}


def choices(state: EncounterState) -> list[Choice]:
    """The candidates at the step the round is at (NOV-SEQ-1), and what any step allows
    (a hold after declaring, Fate Points, saves the GM calls for)."""
    if not state.combatants:
        return []
    step = rounds.step(state)
    out: list[Choice] = []
    if not state.declared:  # NOV-SEQ-2: step 1, before anyone declares
        out += _initiative(state)
    if step == "declaration":
        out += _declarations(state)
    out += _holds(state)
    if step == "resolution":
        out += _resolve(state)
    if step == "boons":
        out += _boons(state)
    if step == "snags":
        out += _snags(state)
    if step in ("resolution", "boons", "snags"):  # NOV-CANCEL-1
        out += _cancels(state)
    if step == "resolution":  # NOV-OA-1
        out += _opportunity_attacks(state)
    out += _fate_points(state) + _saves(state)
    if step in ("resolution", "end_round"):
        out.append(_end_round(state))
    return out


def _living(state: EncounterState) -> list[CombatantState]:
    return [w for w in state.combatants.values() if not combat.is_dead(w)]


def _foes(state: EncounterState, who: CombatantState) -> list[CombatantState]:
    """The living he may attack or block (NOV-ATK-1, NOV-HITS-5): those of other sides,
    or everyone else where sides are not set. An attack on a friend is the GM's to send
    (the `target` of `fields` lists every living combatant)."""
    others = [t for t in _living(state) if t.id != who.id]
    return [t for t in others if t.side != who.side or not who.side] or others


def _friends(state: EncounterState, who: CombatantState) -> list[CombatantState]:
    """The living of his side, himself left out."""
    return [t for t in _living(state) if t.side == who.side and t.id != who.id and who.side]


def _can_act(who: CombatantState) -> bool:
    """NOV-HITS-3, -5, NOV-COND-3: the dead, the helpless and the stunned do not act."""
    return not combat.is_dead(who) and not who.has("stunned") and who.hits > 0


def _name(state: EncounterState, combatant: str | None) -> str:
    who = state.combatants.get(combatant or "")
    return who.name if who else "nobody"


# -- step 1: initiative (NOV-INIT-2..5, NOV-SEQ-2, NOV-RRI-1) ---------------------------
def _initiative(state: EncounterState) -> list[Choice]:
    due = rounds.needs_initiative(state)
    ip = {"ip": {"type": "integer", "description": "An IP the GM enters (NOV-INIT-5)."}}
    fields = {**ip, "modifiers": MODIFIERS}
    out = [
        choice(
            "roll_initiative",
            who.id,
            {"combatant": who.id},
            f"{who.name} rolls initiative: open-ended 2d10 + Spd and Wis bonuses",
            ["initiative"],
            fields,
        )
        for who in due
    ]
    if due:
        out.append(
            choice(
                "roll_initiative",
                None,
                {},
                "Roll initiative for everyone without an IP: " + ", ".join(who.name for who in due),
                [f"initiative:{who.name}" for who in due],
                {"modifiers": MODIFIERS},
            )
        )
    return out


# -- step 2: declarations, lowest IP first (NOV-DECL-1..4) ---------------------------
def _declarations(state: EncounterState) -> list[Choice]:
    nxt = rounds.next_declarer(state)
    out: list[Choice] = []
    for who in rounds.declaration_order(state):
        if not rounds.must_declare(who, state):
            continue
        fields = _declare_fields(state, who)
        if nxt is None or who.id != nxt.id:  # NOV-DECL-1: out of order is the GM's override
            out.append(
                choice(
                    "declare",
                    who.id,
                    {"combatant": who.id, "actions": [], "out_of_order": True},
                    f"{who.name} declares no action, out of order (GM)",
                    fields=fields,
                )
            )
            continue
        out.append(
            choice(
                "declare",
                who.id,
                {"combatant": who.id, "actions": []},
                f"{who.name} declares no action",
                fields=fields,
            )
        )
        for spec in _single_actions(state, who):
            label = _declared_label(state, who, spec)
            if label is not None:
                out.append(
                    choice(
                        "declare",
                        who.id,
                        {"combatant": who.id, "actions": [spec]},
                        label,
                        fields=fields,
                    )
                )
    return out


def _single_actions(state: EncounterState, who: CombatantState) -> list[dict[str, Any]]:
    """Each action he may declare alone: every catalogue action, attacks with each weapon
    that suits them on each living foe (NOV-AP-1, NOV-HITS-5, NOV-ATK-1), a Block against
    each foe, First Aid on himself or a friend."""
    foes = _foes(state, who)
    if who.hits <= 0:  # NOV-HITS-3: helpless, only First Aid on himself
        return [{"kind": "first_aid"}]
    stats = combat.stats_of(who)
    specs: list[dict[str, Any]] = []
    for kind in (*ATTACKS, *ATTACKS_ALONE):
        for weapon in _weapons_for(kind, stats, who):
            for target in foes:
                spec: dict[str, Any] = {"kind": kind, "target": target.id}
                if weapon is not None:
                    spec["weapon"] = weapon
                specs.append(spec)
    for kind in act.CATALOGUE.values():
        if kind.attack:
            continue
        if kind.kind == "block":  # NOV-CMV-2: against an attacker's attack on him
            specs += [{"kind": "block", "target": t.id} for t in foes]
        elif kind.kind == "first_aid":  # NOV-COND-1, NOV-HITS-3: himself or a friend
            specs.append({"kind": "first_aid"})
            specs += [{"kind": "first_aid", "target": t.id} for t in _friends(state, who)]
        else:
            specs.append({"kind": kind.kind})
    return specs


def _weapons_for(kind: str, stats: NovusStats, who: CombatantState) -> list[str | None]:
    """The weapons an attack may be made with (NOV-AP-1); disarmed, only unarmed ones
    (NOV-BOON-2). A Brawling attack needs none (NOV-BRAWL-2)."""
    if kind == "brawl":
        return [None]
    return [
        w.name
        for w in stats.weapons
        if w.kind in act.ATTACK_WEAPONS[kind] and not (who.has("disarmed") and w.kind != "unarmed")
    ]


def _declared_label(state: EncounterState, who: CombatantState, spec: dict[str, Any]) -> str | None:
    """`Brakka declares Basic Melee Attack on Goblin with the sword (4 AP)`; None for an
    action its cost refuses (NOV-AP-1: a weapon that does not suit it) or the budget does
    (NOV-DECL-3: a move over it, any action when the round's whole budget was carried)."""
    kind = act.CATALOGUE[spec["kind"]]
    budget = rounds.ap_budget(state, who)
    try:
        cost = budget if kind.kind == "prepare_reroll" else act.cost_of(ActionSpec(**spec), _s(who))
        act.check_budget([kind], [cost], budget)
    except RuleViolation:
        return None
    what = kind.label
    if spec.get("target") is not None:
        what += f" on {_name(state, spec['target'])}"
    elif kind.kind == "first_aid":
        what += " on himself"
    if spec.get("weapon"):
        what += f" with the {spec['weapon']}"
    if kind.kind == "prepare_reroll":
        ap = "the whole round"
    elif cost > budget:  # NOV-DECL-3, -4: alone, it spills over
        ap = f"{cost} AP: {budget} this round, the rest carried over"
    else:
        ap = f"{cost} AP of {budget}"
    return f"{who.name} declares {what} ({ap})"


def _s(who: CombatantState) -> NovusStats:
    return combat.stats_of(who)


def _declare_fields(state: EncounterState, who: CombatantState) -> dict[str, Any]:
    budget = rounds.ap_budget(state, who)
    ip = rounds.effective_ip(state, who) or 0
    weapons = [w.name for w in _s(who).weapons]
    return {
        "actions": {
            "type": "array",
            "maxItems": 12 if act.takes_new_action(budget) else 0,
            "description": f"Actions for this round within {budget} AP (NOV-DECL-3); one "
            "action that does not fit may be declared alone and spills over (NOV-DECL-4)."
            if act.takes_new_action(budget)
            else "None: a multi-round action took all of this round's AP (NOV-DECL-3, "
            "Default NOV-AMB-10).",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"enum": sorted(act.CATALOGUE)},
                    "target": {"enum": [t.id for t in _living(state)]},
                    "weapon": {"enum": weapons},
                    "ap": {"type": "integer", "minimum": 1, "maximum": 10},
                    "move": {"enum": list(act.MOVES)},
                    "called_shot": {"enum": ["arm", "leg", "head"]},
                    "direction": {"enum": ["front", "flank", "rear"]},
                    "defensive": {"type": "integer", "minimum": 0, "multipleOf": 2},
                    "off_hand": {"type": "boolean"},
                    "two_handed": {"type": "boolean"},
                    "improvised": {"type": "boolean"},
                    "mounted": {"type": "boolean"},
                    "pace": {"type": "integer", "minimum": 1, "maximum": 10},
                    "bystanders": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["kind"],
            },
        },
        "hold_ip": {
            "type": "integer",
            "maximum": ip - 1,
            "description": "Hold, announced now for nothing: act at this lower IP (NOV-HOLD-2).",
        },
    }


def _holds(state: EncounterState) -> list[Choice]:
    """NOV-HOLD-1, NOV-ERRATA-1: after declaring, hold for 1 AP to act at a lower IP."""
    out = []
    for who in state.combatants.values():
        own = rounds.effective_ip(state, who)
        if who.id not in state.declared or who.hold_ip is not None or own is None:
            continue
        mine = [a for a in state.actions if a.combatant == who.id and a.round == state.round]
        if not mine or any(a.status != "pending" for a in mine):
            continue
        out.append(
            choice(
                "hold",
                who.id,
                {"combatant": who.id, "ip": own - 1},
                f"{who.name} holds, to act at IP {own - 1} ({HOLD_COST} AP)",
                fields={"ip": {"type": "integer", "maximum": own - 1}},
            )
        )
    return out


# -- step 3: resolution, highest IP first (NOV-RES-1..4) -----------------------------------
def next_action(state: EncounterState) -> ActionState | None:
    """The action `resolve` resolves now: the head of the queue once the actions that can
    no longer resolve are lost (NOV-RES-1, rounds.lose_blocked)."""
    lost = []
    for action in rounds.queue(state):
        if rounds.is_blocked(state, action) is None:
            break
        lost.append(action.id)
    if not lost:
        pending = rounds.queue(state)
        return pending[0] if pending else None
    after = state.model_copy(
        update={
            "actions": [
                a.model_copy(update={"status": "lost"}) if a.id in lost else a
                for a in state.actions
            ]
        }
    )
    pending = rounds.queue(after)
    return pending[0] if pending else None


def resolve_rolls(state: EncounterState, action: ActionState) -> list[str]:
    """What resolving an action rolls, in order (docs/rules/novus.md, Roll names)."""
    kind = act.CATALOGUE[action.kind]
    if kind.attack:
        rolls = ["riding"] if "riding_tn" in action.params else []
        rolls.append("attack")
        return rolls + [
            f"bystander_save:{_name(state, b)}" for b in action.params.get("bystanders", [])
        ]
    if action.params.get("vs_def"):
        return ["casting"]
    if action.kind in ("first_aid", "block"):
        return [action.kind]
    return []


def action_label(state: EncounterState, action: ActionState, *, on: bool = True) -> str:
    """`Basic Melee Attack on Goblin with the sword` (`on`: with its target)."""
    label = action.params.get("label", act.CATALOGUE[action.kind].label)
    if action.id.endswith(".lightning"):  # Default NOV-AMB-42
        label = "Lightning Attack"
    if on and action.target is not None and action.target != action.combatant:
        label += f" on {_name(state, action.target)}"
    if action.weapon:
        label += f" with the {action.weapon}"
    return label


def _resolve(state: EncounterState) -> list[Choice]:
    action = next_action(state)
    fields = {
        "modifiers": MODIFIERS,
        "hit": {"type": "boolean", "description": "The GM's override of hit or miss."},
        "boons": {
            "type": "array",
            "description": "Spend a hit's Boon Points at once (NOV-BOON-1).",
            "items": {"properties": {"name": {"enum": sorted(boon_table.TABLE)}}},
        },
        "snags": {
            "type": "array",
            "description": "Spend a bad miss's Snag Points at once (NOV-SNAG-1).",
            "items": {"properties": {"name": {"enum": sorted(snag_table.TABLE)}}},
        },
    }
    if action is None:  # every action left is lost (NOV-HITS-3, -5, NOV-COND-3)
        return [choice("resolve", None, {}, "Resolve: the actions left can no longer happen")]
    return [
        choice(
            "resolve",
            action.combatant,
            {"action": action.id},
            f"Resolve {_name(state, action.combatant)}'s {action_label(state, action)}",
            resolve_rolls(state, action),
            fields if act.CATALOGUE[action.kind].attack else {"modifiers": MODIFIERS},
        )
    ]


def _boons(state: EncounterState) -> list[Choice]:
    """NOV-BOON-1..4: spend the hit's Boon Points at once, one Boon a choice (or none)."""
    pending = state.pending_boons
    assert pending is not None
    who = state.combatants[pending.combatant]
    stats = _s(who)
    weapon = stats.weapon(pending.weapon)
    points = pending.points + pending.head_points
    out = [
        choice(
            "spend_boons",
            who.id,
            {"boons": []},
            f"{who.name} forgoes the {points} Boon Point{'s' if points != 1 else ''}",
            fields=_boon_fields(points),
        )
    ]
    for boon in boon_table.TABLE.values():
        spec = BoonSpec(name=boon.name)
        try:  # NOV-BOON-2, -4: its cost, its weapon, the head shot's points
            boon_table.check_purchase([spec], pending.points, weapon, stats, pending.head_points)
        except RuleViolation:
            continue
        out.append(
            choice(
                "spend_boons",
                who.id,
                {"boons": [{"name": boon.name}]},
                f"{who.name} buys {boon.label} ({boon.effect}) for {boon.cost} of {points} "
                "Boon Points",
                ["disarm_save"] if boon.name == "disarm_foe" else [],
                _boon_fields(points),
            )
        )
    return out


def _boon_fields(points: int) -> dict[str, Any]:
    return {
        "boons": {
            "type": "array",
            "description": f"Boons for up to {points} points, each once; a '+' Boon takes "
            "more points for more effect; a Boon the table does not list is the GM's, with "
            "its points and effect (NOV-BOON-2, -5).",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "examples": sorted(boon_table.TABLE)},
                    "points": {"type": "integer", "minimum": 1, "maximum": points},
                    "effect": {"type": "string"},
                },
                "required": ["name"],
            },
        }
    }


def _snags(state: EncounterState) -> list[Choice]:
    """NOV-SNAG-1, -2: the roller picks Snags for the points of his bad miss (the GM
    approves by sending them), one Snag a choice (or none)."""
    pending = state.pending_snags
    assert pending is not None
    who = state.combatants[pending.combatant]
    points = pending.points
    friends = [f for f in _living(state) if f.side == who.side and f.id != who.id]
    fields = {
        "snags": {
            "type": "array",
            "description": f"Snags for up to {points} points (NOV-SNAG-1).",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"enum": sorted(snag_table.TABLE)},
                    "target": {"enum": [f.id for f in friends]},
                    "spell_points": {"type": "integer", "minimum": 0},
                },
                "required": ["name"],
            },
        }
    }
    out = [
        choice(
            "spend_snags",
            who.id,
            {"snags": []},
            f"{who.name} takes no Snag for the {points} Snag Point{'s' if points != 1 else ''}",
            fields=fields,
        )
    ]
    for snag in snag_table.TABLE.values():
        if snag.cost > points:
            continue
        label = f"{who.name}'s Snag: {snag.label} ({snag.cost} of {points} points)"
        if snag.name == "hit_friend":  # NOV-SNAG-2: a living friend, not himself
            out += [
                choice(
                    "spend_snags",
                    who.id,
                    {"snags": [{"name": snag.name, "target": f.id}]},
                    f"{label}: {f.name}",
                    ["friend_attack"],
                    fields,
                )
                for f in friends
            ]
            continue
        spec: dict[str, Any] = {"name": snag.name}
        if snag.name == "spell_backlash":
            spec["spell_points"] = 1
        rolls = ["hurt_yourself"] if snag.name == "hurt_yourself" else []
        out.append(choice("spend_snags", who.id, {"snags": [spec]}, label, rolls, fields))
    return out


def _cancels(state: EncounterState) -> list[Choice]:
    """NOV-CANCEL-1..5: cancel his unresolved actions, alone or for one replacement at once
    (a melee attack at half AB on another foe, a move of at most 3 AP, a Dodge, a Block, a
    counterspell, an instantaneous spell action; any other action at −5, in `fields`)."""
    out: list[Choice] = []
    for who in state.combatants.values():
        mine = [
            a
            for a in state.actions
            if a.combatant == who.id and a.round >= state.round and a.declared_round <= state.round
        ]
        pending = [a for a in mine if a.status == "pending"]
        if not pending or any(a.id.endswith(".replacement") for a in pending):
            continue
        what = ", ".join(action_label(state, a) for a in pending)
        fields = {
            "replacement": {
                "type": "object",
                "description": "One action at once (NOV-CANCEL-2): a melee attack at half AB, "
                f"a move of at most {CANCEL_MOVE_AP} AP, dodge, block, counterspell, "
                "instantaneous spell action; any other action at −5.",
                "properties": {
                    "kind": {"enum": sorted(act.CATALOGUE)},
                    "target": {"enum": [t.id for t in _living(state)]},
                    "ap": {"type": "integer", "minimum": 1, "maximum": CANCEL_MOVE_AP},
                },
            }
        }
        out.append(
            choice(
                "cancel", who.id, {"combatant": who.id}, f"{who.name} cancels {what}", fields=fields
            )
        )
        attacked = any(a.status == "resolved" and act.CATALOGUE[a.kind].attack for a in mine)
        if attacked or not _can_act(who):  # NOV-CANCEL-5; a replacement he could not make
            continue
        for spec in _replacements(state, who, pending):
            kind = act.CATALOGUE[spec["kind"]]
            instead = kind.label + (
                f" on {_name(state, spec['target'])}" if spec.get("target") else ""
            )
            if spec.get("weapon"):
                instead += f" with the {spec['weapon']} at half AB"
            out.append(
                choice(
                    "cancel",
                    who.id,
                    {"combatant": who.id, "replacement": spec},
                    f"{who.name} cancels {what} for {instead}, at once",
                    fields=fields,
                )
            )
    return out


def _replacements(
    state: EncounterState, who: CombatantState, pending: list[ActionState]
) -> list[dict[str, Any]]:
    """A melee attack on another foe (NOV-CANCEL-4), a short move, a Dodge, a counterspell,
    an instantaneous spell action, a Block against each foe whose attack on him waits in
    the queue (NOV-CMV-2: against no such attack it cannot succeed)."""
    attacked = {a.target for a in pending if act.CATALOGUE[a.kind].attack}
    foes = _foes(state, who)
    specs = [
        {"kind": "melee_attack", "target": t.id, "weapon": w}
        for w in _weapons_for("melee_attack", _s(who), who)
        for t in foes
        if t.id not in attacked
    ]
    specs += [{"kind": k} for k in REPLACEMENTS]
    attackers = {
        a.combatant: None
        for a in rounds.queue(state)
        if a.target == who.id and act.CATALOGUE[a.kind].attack and a.combatant != who.id
    }
    specs += [{"kind": "block", "target": t} for t in attackers if t in state.combatants]
    return specs


def _opportunity_attacks(state: EncounterState) -> list[Choice]:
    """NOV-OA-1..3 (Default NOV-AMB-25): on a foe crossing his Control Zone (the GM's
    call, NOV-OA-4): his declared attack, else a basic melee attack his AP still pay for."""
    out: list[Choice] = []
    for who in state.combatants.values():
        if not _can_act(who):
            continue
        mine = [a for a in state.actions if a.combatant == who.id and a.round == state.round]
        declared = next(
            (a for a in mine if a.status == "pending" and act.CATALOGUE[a.kind].attack), None
        )
        others = _foes(state, who)
        if declared is not None:
            out += [
                choice(
                    "opportunity_attack",
                    who.id,
                    {"combatant": who.id, "target": t.id},
                    f"{who.name}'s Opportunity Attack on {t.name}: the "
                    f"{action_label(state, declared, on=False)} he declared",
                )
                for t in others
            ]
            continue
        if any(a.status == "resolved" and act.CATALOGUE[a.kind].attack for a in mine):
            continue  # NOV-OA-3
        left = rounds.ap_budget(state, who) - who.ap_spent
        for weapon in _melee_weapons(who):
            cost = act.MELEE_AP[weapon.size]
            if cost > left:
                continue
            out += [
                choice(
                    "opportunity_attack",
                    who.id,
                    {"combatant": who.id, "target": t.id, "weapon": weapon.name},
                    f"{who.name}'s Opportunity Attack on {t.name} with the {weapon.name} "
                    f"({cost} of {left} AP left)",
                )
                for t in others
            ]
    return out


def _melee_weapons(who: CombatantState) -> list[Weapon]:
    if who.has("disarmed"):  # NOV-BOON-2: his weapon is gone
        return []
    return [w for w in _s(who).weapons if w.kind == "melee"]


# -- any step -----------------------------------------------------------------------------
def _fate_points(state: EncounterState) -> list[Choice]:
    """NOV-FATE-2: a Fate Point spent, its effect the GM's to say."""
    return [
        choice(
            "spend_fate_point",
            who.id,
            {"combatant": who.id, "effect": "as the GM rules"},
            f"{who.name} spends a Fate Point ({who.fate_points} left)",
            fields={"effect": {"type": "string", "description": "What it does (the GM's)."}},
        )
        for who in state.combatants.values()
        if who.fate_points >= 1
    ]


def _saves(state: EncounterState) -> list[Choice]:
    """NOV-SAVE-1..3: a Saving Throw the GM calls for, against a stat (in `fields`)."""
    return [
        choice(
            "save",
            who.id,
            {"combatant": who.id, "stat": "con"},
            f"{who.name}'s Saving Throw: open-ended 2d10 + stat bonus + 5 against TN 15",
            ["save"],
            {
                "stat": {"enum": list(STATS)},
                "tn": {"type": "integer", "default": 15},
                "purpose": {"type": "string"},
                "modifiers": MODIFIERS,
            },
        )
        for who in state.combatants.values()
    ]


# -- step 4 ---------------------------------------------------------------------------------
def _end_round(state: EncounterState) -> Choice:
    """NOV-END-1, -2: what cannot resolve is lost, upkeep ticks, the next round begins."""
    return choice(
        "end_round",
        None,
        {},
        f"End round {state.round}: upkeep (bleeding, dying, condition counts)",
    )


def overrides(state: EncounterState, base: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The base GM forms, the modifiers named by what they apply to in Novus, and an IP
    the GM enters for whoever still needs one (NOV-INIT-5, Default NOV-AMB-9)."""
    forms = []
    for form in base:
        if form["type"] == "set_modifier":
            fields = dict(form["fields"])
            fields["applies_to"] = {"enum": ["ab", "act", "def", "ip", "damage"]}
            form = {**form, "fields": fields}
        forms.append(form)
    if not state.declared:
        forms += [
            {
                "type": "roll_initiative",
                "combatant": who.id,
                "fields": {"ip": {"type": "integer", "description": "The IP the GM enters."}},
            }
            for who in rounds.needs_initiative(state)
        ]
    return forms
