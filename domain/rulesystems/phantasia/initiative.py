"""Initiative and surprise in a PHANTÄSIA fight (PHA-INIT, PHA-SURP): each combatant's
place, a group's one roll, ties broken by a re-roll or the narrator's order."""

from __future__ import annotations

from typing import Any

from domain import events as ev
from domain.dice import Ask, Die, Roll, attempt_of, roll_off, roll_plain, source_name
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import commands as ph
from domain.rulesystems.phantasia import events as pe
from domain.rulesystems.phantasia.refusals import refused
from domain.rulesystems.phantasia.turns import (
    acting,
    is_player,
    options_of,
    order,
    stats_of,
    surprise_due,
    unplaced,
)
from domain.state import CombatantState, EncounterState

INITIATIVE_DIE = 12  # PHA-INIT-1


def place(ctx: Context, cmd: ph.RollInitiative) -> None:
    """PHA-INIT-1: 1d12 + AGI score (PHA-CORE-5: the score, not its adjustment) + the
    adjustments the GM enters; players roll for their characters, the narrator for each
    enemy (an entered `ip` for a group sharing one result). PHA-INIT-5 (Default PHA-AMB-6):
    once per combat; a late joiner rolls on arrival and is inserted by his result."""
    state = ctx.state
    now = acting(state)
    if surprise_due(state) or (now is not None and now.marks.surprise is not None):
        raise refused("PHA-SURP-1.surprising-combatants-act")
    placing = cmd.combatant is not None or cmd.ip is not None or cmd.group is not None
    if cmd.tie_order is not None and not placing:  # a tie already made
        _order_ties(ctx, cmd.tie_order, cmd.simultaneous)
        return
    if cmd.group is not None:
        _group(ctx, cmd)
        return
    due = _due(state, cmd)
    variant = options_of(state).initiative == "agi_order"
    if variant and (cmd.ip is not None or cmd.modifiers):
        raise refused("PHA-INIT-4.agi-order-variant", field="ip")
    placed: list[CombatantState] = []
    for who in due:
        ctx.emit(ev.InitiativeRolled, combatant=who.id, **_result(ctx, cmd, who, variant, due))
        placed.append(state.combatants[who.id])
    if not variant:
        _reroll_ties(ctx, placed, cmd.simultaneous, cmd.tie_order)


def _due(state: EncounterState, cmd: ph.RollInitiative) -> list[CombatantState]:
    """PHA-INIT-5: the one named, if he has no initiative yet, or everyone without it."""
    if cmd.combatant is None:
        due = unplaced(state)
        if not due:
            raise refused("PHA-INIT-5.every-combatant-already")
        return due
    who = state.combatant(cmd.combatant)
    if who.ip is not None:
        raise refused(
            "PHA-INIT-5.already-initiative-rolled",
            field="combatant",
            who=who.name,
            who_ip=who.ip,
        )
    return [who]


def _result(
    ctx: Context,
    cmd: ph.RollInitiative,
    who: CombatantState,
    variant: bool,
    due: list[CombatantState],
) -> dict[str, Any]:
    """His InitiativeRolled: his AGI score (PHA-INIT-4, the AGI-order variant), the
    narrator's entered result, or 1d12 + AGI + the entered adjustments (PHA-INIT-1)."""
    agi = stats_of(who).agi
    if variant:
        return dict(ip=agi, raw=None, rolls={}, modifiers={"AGI": agi}, entered=False)
    if cmd.ip is not None:
        return dict(ip=cmd.ip, raw=None, rolls={}, modifiers={}, entered=True)
    name = "initiative" if len(due) == 1 else f"initiative:{who.name}"
    more = "".join(f" {v:+d} {k}" for k, v in cmd.modifiers.items())
    ask = Ask(
        who.id,
        f"{who.name}'s initiative: 1d12 + AGI {agi}{more}",
        f"Iniciativa de {who.name}: 1d12 + AGI {agi}{more}",
    )
    roll = roll_plain(ctx.dice, name, 1, INITIATIVE_DIE, ask, AGI=agi, **cmd.modifiers)
    return dict(
        ip=roll.total,
        raw=roll.dice_total,
        rolls={name: roll.to_dict()},
        modifiers={"AGI": agi, **cmd.modifiers},
        entered=False,
    )


def _group(ctx: Context, cmd: ph.RollInitiative) -> None:
    """PHA-INIT-1: the narrator rolls once for a group of enemies, who share the result:
    1d12 + the highest AGI score among them (fraylog's reading: one result for all);
    among themselves they go by AGI score, then the narrator's order (PHA-INIT-3)."""
    state = ctx.state
    if options_of(state).initiative == "agi_order":
        raise refused("PHA-INIT-4.agi-order-variant", field="group")
    members = [state.combatant(i) for i in cmd.group or []]
    if len({m.id for m in members}) != len(members) or cmd.combatant is not None:
        raise refused("PHA-INIT-1.group-names-two", field="group")
    wrong = [m.name for m in members if is_player(m) or m.ip is not None]
    if wrong:
        raise refused("PHA-INIT-1.group-without-initiative", field="group", wrong=", ".join(wrong))
    result = _group_result(ctx, cmd, members)
    first: int | None = None
    for i, m in enumerate(members):
        at = ctx.emit(
            ev.InitiativeRolled,
            cause=first,  # the group's one roll: voiding it voids every member's place
            combatant=m.id,
            **(result if i == 0 else {**result, "rolls": {}}),
        )
        first = first or at
    _reroll_ties(
        ctx, [ctx.state.combatants[m.id] for m in members], cmd.simultaneous, cmd.tie_order
    )


def _group_result(
    ctx: Context, cmd: ph.RollInitiative, members: list[CombatantState]
) -> dict[str, Any]:
    """The group's one result: entered by the narrator, or 1d12 + its highest AGI score
    + the entered adjustments."""
    agi = max(stats_of(m).agi for m in members)
    size = {"group": len(members)}
    if cmd.ip is not None:
        return dict(ip=cmd.ip, raw=None, rolls={}, modifiers=size, entered=True)
    group = ", ".join(m.name for m in members)
    more = "".join(f" {v:+d} {k}" for k, v in cmd.modifiers.items())
    ask = Ask(
        members[0].id,
        f"Initiative of the group {group}: 1d12 + AGI {agi} (its highest){more}, one roll for all",
        f"Iniciativa del grupo {group}: 1d12 + AGI {agi} (la más alta){more}, una tirada "
        "para todos",
    )
    roll = roll_plain(ctx.dice, "initiative", 1, INITIATIVE_DIE, ask, AGI=agi, **cmd.modifiers)
    return dict(
        ip=roll.total,
        raw=roll.dice_total,
        rolls={"initiative": roll.to_dict()},
        modifiers={"AGI": agi, **cmd.modifiers, **size},
        entered=False,
    )


def _reroll_ties(
    ctx: Context,
    placed: list[CombatantState],
    simultaneous: bool,
    tie_order: list[str] | None = None,
) -> None:
    """PHA-INIT-3 (Default PHA-AMB-8): still tied after the AGI score, the tied roll 1d12
    again among themselves, higher first, as often as it takes; the narrator may order
    them instead (`tie_order`: exactly the tie this placing makes, with the same command),
    or let them act at the same time (`simultaneous`: in entry order, their results
    applied after all of them have acted)."""
    state = ctx.state
    groups: dict[tuple[int, int], list[CombatantState]] = {}
    for w in order(state):
        groups.setdefault((w.ip or 0, stats_of(w).agi), []).append(w)
    ties = [g for g in groups.values() if len(g) >= 2 and any(w in placed for w in g)]
    if tie_order is not None:
        wanted, tie = _narrators_order(ctx, ties, tie_order)
        ctx.emit(
            pe.TieBroken,
            order=wanted,
            rolls={},
            entered=True,
            simultaneous=simultaneous,
        )
        ties.remove(tie)
    for group in ties:
        if simultaneous:
            ids = [w.id for w in sorted(group, key=lambda w: w.entry)]
            ctx.emit(pe.TieBroken, order=ids, rolls={}, entered=True, simultaneous=True)
        else:
            _roll_off_tie(ctx, group)


def _narrators_order(
    ctx: Context, ties: list[list[CombatantState]], tie_order: list[str]
) -> tuple[list[str], list[CombatantState]]:
    """PHA-INIT-3: `tie_order` names exactly one tie this placing makes: the narrator's
    order of it (ids), and the tie."""
    wanted = [ctx.state.combatant(i).id for i in tie_order]
    ordered = [g for g in ties if {w.id for w in g} == set(wanted)]
    if not ordered or len(wanted) != len(set(wanted)):
        made = "; ".join(", ".join(w.name for w in g) for g in ties) or "none"
        raise refused("PHA-INIT-3.tie-order-exact", field="tie_order", made=made, ties=bool(ties))
    return wanted, ordered[0]


def _roll_off_tie(ctx: Context, group: list[CombatantState]) -> None:
    """PHA-INIT-3 (Default PHA-AMB-8): the tied roll 1d12, higher first, again and again."""
    faces: dict[str, list[int]] = {w.id: [] for w in group}
    ids = _settle(ctx, group, faces)
    rolls = {
        f"tie:{w.name}": Roll(
            name=f"tie:{w.name}",
            expression="1d12 re-roll, ties again",
            dice=(Die(INITIATIVE_DIE, tuple(faces[w.id]), faces[w.id][-1]),),
            source=source_name(ctx.dice, f"tie:{w.name}"),
            attempt=attempt_of(ctx.dice, f"tie:{w.name}"),
        ).to_dict()
        for w in group
    }
    ctx.emit(pe.TieBroken, order=ids, rolls=rolls, entered=False, simultaneous=False)


def _settle(ctx: Context, tied: list[CombatantState], faces: dict[str, list[int]]) -> list[str]:
    """Each tied combatant rolls 1d12, higher first; those tied again roll again."""

    def roll(w: CombatantState, group: list[CombatantState]) -> int:
        others = ", ".join(o.name for o in group if o is not w)
        if faces[w.id]:  # tied again: the same face as the others
            ask = Ask(
                w.id,
                f"{w.name} is tied again with {others} (each rolled {faces[w.id][-1]}): roll "
                "1d12 again, the higher acts first",
                f"{w.name} vuelve a empatar con {others} (todos sacaron {faces[w.id][-1]}): "
                "tira otra vez 1d12, el más alto actúa antes",
            )
        else:
            ask = Ask(
                w.id,
                f"{w.name} is tied with {others} on initiative {w.ip} and AGI "
                f"{stats_of(w).agi}: 1d12, the higher acts first",
                f"{w.name} empata con {others} en iniciativa {w.ip} y AGI {stats_of(w).agi}: "
                "1d12, el más alto actúa antes",
            )
        faces[w.id].append(ctx.dice.face(f"tie:{w.name}", INITIATIVE_DIE, ask))
        return faces[w.id][-1]

    return [w.id for w in roll_off(tied, roll)]


def _order_ties(ctx: Context, ids: list[str], simultaneous: bool) -> None:
    """PHA-INIT-3: the narrator orders tied combatants himself, or lets them act at the
    same time in that order."""
    state = ctx.state
    group = [state.combatant(i) for i in ids]
    keys = {(w.ip, stats_of(w).agi) for w in group}
    if len({w.id for w in group}) != len(group) or len(group) < 2 or len(keys) != 1:
        raise refused("PHA-INIT-3.tie-order-names-two", field="tie_order")
    ctx.emit(
        pe.TieBroken,
        order=[w.id for w in group],
        rolls={},
        entered=True,
        simultaneous=simultaneous,
    )


def declare_surprise(ctx: Context, cmd: ph.DeclareSurprise) -> None:
    """PHA-SURP-1 (Default PHA-AMB-39: only when the narrator declares it): each surprising
    combatant takes exactly one action before initiative."""
    state = ctx.state
    if any(w.ip is not None for w in state.combatants.values()) or acting(state):
        raise refused("PHA-SURP-1.surprise-comes-before")
    ids = [state.combatant(i).id for i in cmd.combatants]
    if len(set(ids)) != len(ids):
        raise refused("PHA-SURP-1.name-each-one", field="combatants")
    ctx.emit(pe.SurpriseDeclared, combatants=ids)
