"""The Novus action catalogue and what a declaration may cost (NOV-AP, NOV-DECL-3/4)."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.errors import RuleViolation
from domain.rulesystems.novus.commands import ActionSpec
from domain.rulesystems.novus.situations import CHARGE_AP, situation
from domain.rulesystems.novus.stats import NovusStats, Weapon

BASE_AP = 5  # NOV-AP-1
HASTED_AP = 10  # NOV-HASTE-1


@dataclass(frozen=True)
class ActionKind:
    kind: str
    label: str
    ap: int | None  # None: priced by the AP given (moves) or by the GM within `ap_range`
    rule: str
    attack: bool = False
    spell: bool = False  # NOV-HASTE-2 counts it (Default NOV-AMB-20)
    ap_range: tuple[int, int] | None = None
    def_mod: int = 0  # DEF for the whole round (NOV-DECL-2)
    rolls: tuple[str, ...] = ()
    needs_target: bool = False


CATALOGUE: dict[str, ActionKind] = {
    a.kind: a
    for a in [
        # NOV-AP-1 table §4.1; attack costs by weapon come from `attack_cost`
        ActionKind(
            "melee_attack",
            "Basic Melee Attack",
            None,
            "NOV-AP-1",
            attack=True,
            rolls=("attack",),
            needs_target=True,
        ),
        ActionKind(
            "missile_attack",
            "Basic Missile Attack",
            2,
            "NOV-AP-1",
            attack=True,
            rolls=("attack",),
            needs_target=True,
        ),
        ActionKind(
            "unarmed_attack",
            "Basic Unarmed/Natural Attack",
            3,
            "NOV-AP-1",
            attack=True,
            rolls=("attack",),
            needs_target=True,
        ),
        ActionKind(
            "power_attack",
            "Power Attack (Combat Move)",
            7,
            "NOV-DECL-3",
            attack=True,
            rolls=("attack",),
            needs_target=True,
        ),
        ActionKind("cast_spell", "Cast a Spell", 4, "NOV-AP-1", spell=True),
        ActionKind("use_item", "Use Item or Rune", 4, "NOV-AP-1"),
        ActionKind("read_scroll", "Read Scroll", 4, "NOV-AP-1"),
        ActionKind("counterspell", "Cast Counterspell", 2, "NOV-AP-1", spell=True),
        ActionKind("fast_cast", "Fast Cast a Spell", 2, "NOV-AP-1", spell=True),
        ActionKind("instant_spell_action", "Perform an Instantaneous Spell Action", 3, "NOV-AP-1"),
        ActionKind("concentration", "Concentration", 3, "NOV-AP-1"),
        ActionKind("reload_sling_bow", "Reload/Load Sling or Bow", 3, "NOV-AP-1"),
        ActionKind("reload_light_crossbow", "Reload/Load Light Crossbow", 5, "NOV-AP-1"),
        ActionKind("reload_heavy_crossbow", "Reload/Load Heavy Crossbow", 10, "NOV-AP-1"),
        ActionKind("perception", "Perception roll", 1, "NOV-AP-1"),
        ActionKind("move", "Move: Base Movement (per AP)", None, "NOV-AP-1", ap_range=(1, 10)),
        ActionKind(
            "run",
            "Move: Double Base Movement at a Run (per AP)",
            None,
            "NOV-MOVE-1",
            ap_range=(1, 10),
        ),
        ActionKind("get_up", "Get up from Prone", 2, "NOV-COND-4"),
        ActionKind("draw_weapon", "Draw Weapon", 1, "NOV-AP-1"),
        ActionKind("simple", "Simple Action (GM's discretion)", None, "NOV-AP-4", ap_range=(1, 2)),
        ActionKind(
            "complex", "Complex Action (GM's discretion)", None, "NOV-AP-4", ap_range=(2, 5)
        ),
        ActionKind("dodge", "Basic Dodge (Combat Move)", 2, "NOV-CMV-2", def_mod=3),
        ActionKind("prepare_reroll", "Prepare: reroll initiative", None, "NOV-RRI-1"),
        ActionKind(
            "brawl",
            "Brawling attack",
            3,
            "NOV-BRAWL-2",
            attack=True,
            rolls=("attack",),
            needs_target=True,
        ),
        ActionKind(
            "mounted_charge",
            "Mounted Charge",
            None,
            "NOV-MCH-1",
            attack=True,
            rolls=("riding", "attack"),
            needs_target=True,
        ),
        # NOV-DIS-1: 1 AP, then the move out of the Control Zone provokes no OA (NOV-OA-4)
        ActionKind("disengage", "Disengage from melee", 1, "NOV-DIS-1"),
        ActionKind(
            "block",
            "Basic Block (Combat Move)",
            3,
            "NOV-CMV-2",
            rolls=("block",),
            needs_target=True,
        ),
        ActionKind(
            "first_aid",
            "First Aid (Complex Action)",
            None,
            "NOV-COND-1",
            ap_range=(2, 5),
            rolls=("first_aid",),
        ),  # its target defaults to the one who gives it
    ]
}

MELEE_AP = {"tiny": 3, "small": 3, "medium": 4, "large": 5, "huge": 5}  # NOV-AP-1

# Combat Moves with an attack (NOV-CMV-1: each gives AB, DEF for the round, AP; NOV-CMV-2,
# catalogue Default NOV-AMB-14): AB, DEF, extra AP, extra Base Damage, whether Scaled
# Damage and armour count.
MOVES: dict[str, dict[str, int | bool]] = {
    "basic": {"ab": 0, "def": 0, "ap": 0, "bd": 0, "scaled": True, "armour": True},
    "all_out_attack": {"ab": 2, "def": -2, "ap": 2, "bd": 4, "scaled": True, "armour": True},
    "cut": {"ab": 1, "def": 1, "ap": 0, "bd": 0, "scaled": False, "armour": False},
}


def kind_of(spec: ActionSpec) -> ActionKind:
    try:
        return CATALOGUE[spec.kind]
    except KeyError:
        raise RuleViolation(
            "NOV-AP-1",
            f"unknown action {spec.kind!r}; see the catalogue in docs/rules/novus.md",
            field="actions.kind",
        ) from None


def attack_weapon(spec: ActionSpec, stats: NovusStats) -> Weapon | None:
    """The weapon an attack is made with (None: a Brawling attack with bare hands)."""
    weapon = stats.weapon(spec.weapon)
    if spec.kind == "brawl" and (spec.weapon is None or (weapon and weapon.kind != "unarmed")):
        weapon = next((w for w in stats.weapons if w.kind == "unarmed"), None)
        if spec.weapon is None:
            return weapon
    if weapon is None:
        raise RuleViolation(
            "NOV-DMG-1",
            f"no weapon {spec.weapon!r} in the combatant's stats"
            if spec.weapon
            else "the combatant has no weapon to attack with",
            field="actions.weapon",
        )
    return weapon


# Which weapons each attack takes (NOV-AP-1 rows; Combat Moves are melee, NOV-CMV-2).
ATTACK_WEAPONS = {
    "melee_attack": ("melee",),
    "power_attack": ("melee",),
    "missile_attack": ("missile",),
    "unarmed_attack": ("unarmed",),
    "brawl": ("unarmed",),  # no weapon needed; an unarmed move's DR counts if trained
    "mounted_charge": ("melee",),
}


def move_of(spec: ActionSpec, weapon: Weapon | None) -> dict[str, int | bool]:
    name = spec.move or "basic"
    if name not in MOVES:
        raise RuleViolation(
            "NOV-CMV-2",
            f"unknown Combat Move {name!r}; known: {', '.join(MOVES)}",
            field="actions.move",
        )
    if name != "basic" and spec.kind != "melee_attack":
        raise RuleViolation("NOV-CMV-2", f"{name} is a melee Combat Move", field="actions.move")
    if name == "cut" and (weapon is None or weapon.damage_type != "slashing"):
        raise RuleViolation(
            "NOV-CMV-2", "Cut needs an edged (slashing) weapon", field="actions.move"
        )
    return MOVES[name]


def cost_of(spec: ActionSpec, stats: NovusStats) -> int:
    """AP of one declared action (NOV-AP-1, -3, -4; NOV-AMB-34)."""
    kind = kind_of(spec)
    if kind.attack:
        weapon = attack_weapon(spec, stats)
        if weapon is not None and weapon.kind not in ATTACK_WEAPONS[kind.kind]:
            raise RuleViolation(
                "NOV-AP-1",
                f"a {kind.label} is not made with {weapon.name} (a {weapon.kind} weapon)",
                field="actions.weapon",
            )
        if kind.kind == "mounted_charge":  # NOV-MCH-1: a fixed 8 AP, 6 with MC II
            return CHARGE_AP[stats.mounted_combat]
        base = MELEE_AP[weapon.size] if kind.kind == "melee_attack" and weapon else kind.ap or 0
        moved = int(move_of(spec, weapon)["ap"]) if weapon else 0
        return base + moved + situation(spec, stats, weapon).ap
    if kind.ap_range is not None:
        low, high = kind.ap_range
        default = 1 if kind.kind in ("move", "run", "simple") else 2  # NOV-AMB-34
        ap = spec.ap if spec.ap is not None else default
        if not low <= ap <= high:
            raise RuleViolation(
                kind.rule, f"{kind.label} costs {low}–{high} AP, not {ap}", field="actions.ap"
            )
        return ap
    assert kind.ap is not None
    return kind.ap


@dataclass
class Budget:
    """What a round's declaration costs and carries (NOV-AP-2, NOV-DECL-3/4)."""

    budget: int
    costs: list[int] = field(default_factory=list)
    spent: int = 0
    carried: int = 0


def takes_new_action(budget: int) -> bool:
    """NOV-DECL-3 (Default NOV-AMB-10): a round whose whole budget a multi-round action
    carried away takes no new action; it would take none of the round's AP."""
    return budget > 0


def check_budget(kinds: list[ActionKind], costs: list[int], budget: int) -> Budget:
    """NOV-DECL-3: everything must fit, except one action alone that takes the whole round
    (none when a multi-round action took the whole round's budget, Default NOV-AMB-10)."""
    total = sum(costs)
    spells = sum(1 for k in kinds if k.spell)
    if spells > 1:  # NOV-HASTE-2 (Default NOV-AMB-20: for everyone)
        raise RuleViolation(
            "NOV-HASTE-2", "no more than one spell can be cast in a round", field="actions"
        )
    if costs and not takes_new_action(budget):
        raise RuleViolation(
            "NOV-DECL-3",
            "a multi-round action took all of this round's AP (budget 0): no new action "
            "can be declared, as it would take none of this round's AP",
            field="actions",
        )
    if total <= budget:
        return Budget(budget, costs, total, 0)
    if len(costs) == 1 and kinds[0].kind in ("move", "run"):
        raise RuleViolation(
            "NOV-DECL-3",
            f"a move costs {total} AP but only {budget} are "
            "available this round; a move does not carry into the next",
            field="actions",
        )
    if len(costs) == 1:  # NOV-DECL-3/-4 (Default NOV-AMB-10): alone, it spills over
        return Budget(budget, costs, budget, total - budget)
    raise RuleViolation(
        "NOV-DECL-3",
        f"the declared actions cost {total} AP but only {budget} are available this round; "
        "an action that does not fit may only be declared alone, taking the whole round",
        field="actions",
    )
