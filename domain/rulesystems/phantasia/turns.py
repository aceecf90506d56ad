"""Initiative, surprise, turns of two action points and their upkeep (PHA-INIT, PHA-SURP,
PHA-ACT-1, -3..6, PHA-RX, PHA-STS-0, start- and end-of-turn checks, PHA-SUF)."""

from __future__ import annotations

from typing import Any

from domain import commands as c
from domain import events as ev
from domain.dice import Ask, Die, Roll, attempt_of, roll_off, roll_plain, source_name
from domain.errors import RuleViolation
from domain.rulesystems.base import Context
from domain.rulesystems.phantasia import statuses
from domain.rulesystems.phantasia.stats import PhantasiaOptions, PhantasiaStats, max_pm
from domain.state import CombatantState, EncounterState

ACTION_POINTS = 2  # PHA-ACT-1
REPEAT_STEP = 3  # PHA-ACT-3: −3 for each offensive action after the first in a turn
INITIATIVE_DIE = 12  # PHA-INIT-1


def stats_of(who: CombatantState) -> PhantasiaStats:
    return PhantasiaStats.model_validate(who.stats)


def options_of(state: EncounterState) -> PhantasiaOptions:
    return PhantasiaOptions.model_validate(state.options)


def pm_of(who: CombatantState) -> int:
    """PM: the sheet's (or the maximum) plus every change recorded."""
    stats = stats_of(who)
    start = max_pm(stats) if stats.pm is None else stats.pm
    return start + int(who.marks.get("pm_change", 0))


def pp_of(who: CombatantState) -> int:
    return stats_of(who).phantasia_points + int(who.marks.get("pp_change", 0))


def is_player(who: CombatantState) -> bool:
    return stats_of(who).controller == "player"


def refuse(rule: str, en: str, es: str, field: str | None = None) -> RuleViolation:
    """A refusal, in English and in the book's Spanish."""
    return RuleViolation(rule, en, field=field, detail_es=es)


# -- the order ---------------------------------------------------------------------------


def _rank(state: EncounterState, who: CombatantState) -> tuple[int, ...]:
    """PHA-INIT-2: highest result first; PHA-INIT-3: ties by the higher AGI score, then the
    re-roll or the narrator's order. PHA-INIT-4 (AGI-order variant): a player character
    before a narrator's enemy at the same AGI; other ties by the narrator, else entry
    order (Default PHA-AMB-7)."""
    variant = options_of(state).initiative == "agi_order"
    pc_first = 0 if (variant and is_player(who)) else 1
    return (
        -(who.ip or 0),
        -stats_of(who).agi,
        pc_first,
        -who.marks.get("tie_rank", 0),
        who.entry,
    )


def order(state: EncounterState) -> list[CombatantState]:
    placed = [w for w in state.combatants.values() if w.ip is not None]
    return sorted(placed, key=lambda w: _rank(state, w))


def acting(state: EncounterState) -> CombatantState | None:
    return next((w for w in state.combatants.values() if w.marks.get("in_turn")), None)


def moment(state: EncounterState) -> tuple[Any, ...]:
    """Whose turn, which of his turns: "at once" for a re-roll means within it (PHA-PP-2)."""
    now = acting(state)
    return (now.id, now.marks.get("turn"), now.marks.get("surprise")) if now else ()


def surprise_due(state: EncounterState) -> list[CombatantState]:
    return [w for w in state.combatants.values() if w.marks.get("surprise") == "due"]


def next_up(state: EncounterState) -> CombatantState | None:
    """Whose turn starts next: a surprising combatant still due (PHA-SURP-1), else the
    first in the order who has not had his turn this round; the dead have no turns."""
    due = surprise_due(state)
    if due:
        return due[0]
    return next(
        (
            w
            for w in order(state)
            if w.marks.get("done_round") != state.round and not statuses.active(w, "dead")
        ),
        None,
    )


def unplaced(state: EncounterState) -> list[CombatantState]:
    return [w for w in state.combatants.values() if w.ip is None and not w.has("dead")]


# -- initiative ---------------------------------------------------------------------------


def place(ctx: Context, cmd: c.RollInitiative) -> None:
    """PHA-INIT-1: 1d12 + AGI score (PHA-CORE-5: the score, not its adjustment) + the
    adjustments the GM enters; players roll for their characters, the narrator for each
    enemy (an entered `ip` for a group sharing one result). PHA-INIT-5 (Default PHA-AMB-6):
    once per combat; a late joiner rolls on arrival and is inserted by his result."""
    state = ctx.state
    if surprise_due(state) or (acting(state) and acting(state).marks.get("surprise")):
        raise refuse(
            "PHA-SURP-1",
            "the surprising combatants act before initiative is rolled",
            "los combatientes que sorprenden actúan antes de tirar la iniciativa",
        )
    placing = cmd.combatant is not None or cmd.ip is not None or cmd.group is not None
    if cmd.tie_order is not None and not placing:  # a tie already made
        _order_ties(ctx, cmd.tie_order, cmd.simultaneous)
        return
    if cmd.group is not None:
        _group(ctx, cmd)
        return
    due = unplaced(state)
    if cmd.combatant is not None:
        who = state.combatant(cmd.combatant)
        if who.ip is not None:
            raise refuse(
                "PHA-INIT-5",
                f"{who.name} already has his initiative ({who.ip}): it is rolled once a combat",
                f"{who.name} ya tiene su iniciativa ({who.ip}): se tira una vez por combate",
                "combatant",
            )
        due = [who]
    elif not due:
        raise refuse(
            "PHA-INIT-5",
            "every combatant already has his initiative",
            "todos los combatientes tienen ya su iniciativa",
        )
    variant = options_of(state).initiative == "agi_order"
    placed: list[CombatantState] = []
    for who in due:
        agi = stats_of(who).agi
        if variant:
            if cmd.ip is not None or cmd.modifiers:
                raise refuse(
                    "PHA-INIT-4",
                    "the AGI-order variant rolls nothing: turns go by AGI score",
                    "la variante por AGI no tira nada: los turnos van por puntuación de AGI",
                    "ip",
                )
            ctx.emit(
                ev.InitiativeRolled,
                combatant=who.id,
                ip=agi,
                raw=None,
                rolls={},
                modifiers={"AGI": agi},
                entered=False,
            )
        elif cmd.ip is not None:
            ctx.emit(
                ev.InitiativeRolled,
                combatant=who.id,
                ip=cmd.ip,
                raw=None,
                rolls={},
                modifiers={},
                entered=True,
            )
        else:
            name = "initiative" if len(due) == 1 else f"initiative:{who.name}"
            more = "".join(f" {v:+d} {k}" for k, v in cmd.modifiers.items())
            ask = Ask(
                who.id,
                f"{who.name}'s initiative: 1d12 + AGI {agi}{more}",
                f"Iniciativa de {who.name}: 1d12 + AGI {agi}{more}",
            )
            roll = roll_plain(ctx.dice, name, 1, INITIATIVE_DIE, ask, AGI=agi, **cmd.modifiers)
            ctx.emit(
                ev.InitiativeRolled,
                combatant=who.id,
                ip=roll.total,
                raw=roll.dice_total,
                rolls={name: roll.to_dict()},
                modifiers={"AGI": agi, **cmd.modifiers},
                entered=False,
            )
        placed.append(state.combatants[who.id])
    if not variant:
        _reroll_ties(ctx, placed, cmd.simultaneous, cmd.tie_order)


def _group(ctx: Context, cmd: c.RollInitiative) -> None:
    """PHA-INIT-1: the narrator rolls once for a group of enemies, who share the result:
    1d12 + the highest AGI score among them (fraylog's reading: one result for all);
    among themselves they go by AGI score, then the narrator's order (PHA-INIT-3)."""
    state = ctx.state
    if options_of(state).initiative == "agi_order":
        raise refuse(
            "PHA-INIT-4",
            "the AGI-order variant rolls nothing: turns go by AGI score",
            "la variante por AGI no tira nada: los turnos van por puntuación de AGI",
            "group",
        )
    members = [state.combatant(i) for i in cmd.group or []]
    if len({m.id for m in members}) != len(members) or cmd.combatant is not None:
        raise refuse(
            "PHA-INIT-1",
            "a group names two or more different combatants, and no single combatant",
            "un grupo nombra dos o más combatientes distintos, y ningún combatiente suelto",
            "group",
        )
    wrong = [m.name for m in members if is_player(m) or m.ip is not None]
    if wrong:
        raise refuse(
            "PHA-INIT-1",
            f"a group is of the narrator's enemies without initiative: {', '.join(wrong)}",
            f"un grupo es de enemigos del narrador sin iniciativa: {', '.join(wrong)}",
            "group",
        )
    agi = max(stats_of(m).agi for m in members)
    if cmd.ip is not None:
        total, rolls, raw, entered = cmd.ip, {}, None, True
        mods: dict[str, int] = {}
    else:
        group = ", ".join(m.name for m in members)
        more = "".join(f" {v:+d} {k}" for k, v in cmd.modifiers.items())
        ask = Ask(
            members[0].id,
            f"Initiative of the group {group}: 1d12 + AGI {agi} (its highest){more}, one roll "
            "for all",
            f"Iniciativa del grupo {group}: 1d12 + AGI {agi} (la más alta){more}, una tirada "
            "para todos",
        )
        roll = roll_plain(ctx.dice, "initiative", 1, INITIATIVE_DIE, ask, AGI=agi, **cmd.modifiers)
        total, rolls, raw, entered = (
            roll.total,
            {"initiative": roll.to_dict()},
            roll.dice_total,
            False,
        )
        mods = {"AGI": agi, **cmd.modifiers}
    first: int | None = None
    for i, m in enumerate(members):
        at = ctx.emit(
            ev.InitiativeRolled,
            cause=first,  # the group's one roll: voiding it voids every member's place
            combatant=m.id,
            ip=total,
            raw=raw,
            rolls=rolls if i == 0 else {},
            modifiers={**mods, "group": len(members)},
            entered=entered,
        )
        first = first or at
    _reroll_ties(
        ctx, [ctx.state.combatants[m.id] for m in members], cmd.simultaneous, cmd.tie_order
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
        wanted = [state.combatant(i).id for i in tie_order]
        ordered = [g for g in ties if {w.id for w in g} == set(wanted)]
        if not ordered or len(wanted) != len(set(wanted)):
            made = "; ".join(", ".join(w.name for w in g) for g in ties) or "none"
            raise refuse(
                "PHA-INIT-3",
                f"tie_order orders exactly the tie this initiative makes (ties made: {made})",
                f"tie_order ordena exactamente el empate que hace esta iniciativa (empates: "
                f"{made if ties else 'ninguno'})",
                "tie_order",
            )
        ctx.emit(
            ev.TieBroken,
            order=wanted,
            rolls={},
            entered=True,
            simultaneous=simultaneous,
        )
        ties.remove(ordered[0])
    for group in ties:
        if simultaneous:
            ids = [w.id for w in sorted(group, key=lambda w: w.entry)]
            ctx.emit(ev.TieBroken, order=ids, rolls={}, entered=True, simultaneous=True)
            continue
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
        ctx.emit(ev.TieBroken, order=ids, rolls=rolls, entered=False, simultaneous=False)


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
        raise refuse(
            "PHA-INIT-3",
            "tie_order names two or more combatants tied on initiative and AGI",
            "tie_order nombra dos o más combatientes empatados en iniciativa y AGI",
            "tie_order",
        )
    ctx.emit(
        ev.TieBroken,
        order=[w.id for w in group],
        rolls={},
        entered=True,
        simultaneous=simultaneous,
    )


def declare_surprise(ctx: Context, cmd: c.DeclareSurprise) -> None:
    """PHA-SURP-1 (Default PHA-AMB-39: only when the narrator declares it): each surprising
    combatant takes exactly one action before initiative."""
    state = ctx.state
    if any(w.ip is not None for w in state.combatants.values()) or acting(state):
        raise refuse(
            "PHA-SURP-1",
            "a surprise comes before initiative is rolled",
            "la sorpresa va antes de tirar la iniciativa",
        )
    ids = [state.combatant(i).id for i in cmd.combatants]
    if len(set(ids)) != len(ids):
        raise refuse(
            "PHA-SURP-1",
            "name each one once",
            "nombra a cada uno una sola vez",
            "combatants",
        )
    ctx.emit(ev.SurpriseDeclared, combatants=ids)


# -- actions in a turn -------------------------------------------------------------------


def action_count(who: CombatantState) -> int:
    """PHA-ACT-6: 2; +1 with Rapidez; exactly 1 with Lentitud; both give 2 (Default
    PHA-AMB-14); none while a status forbids acting."""
    if not statuses.can_act(who):
        return 0
    haste, slow = who.has("haste"), who.has("slowness")
    if haste and slow:
        return ACTION_POINTS
    return 1 if slow else ACTION_POINTS + 1 if haste else ACTION_POINTS


def actions_left(who: CombatantState) -> int:
    if not who.marks.get("in_turn") or not statuses.can_act(who):
        return 0
    return max(0, who.marks.get("actions", 0) - who.marks.get("spent", 0))


def repeat_penalty(who: CombatantState, spent: dict[str, Any]) -> dict[str, int]:
    """PHA-ACT-3: the k-th offensive action of his turn takes −3 × (k − 1), powers too
    (PHA-MAG-3); PHA-ACT-4: a power such as Multiataque reduces it; PHA-ACT-5 (Default
    PHA-AMB-42): none, and not counted, outside his own turn."""
    if not spent.get("offensive") or spent.get("reaction") or spent.get("free"):
        return {}
    if not who.marks.get("in_turn"):  # PHA-ACT-5: an out_of_order action outside his turn
        return {}
    k = who.marks.get("offensive", 0) + 1
    penalty = min(0, -REPEAT_STEP * (k - 1) + stats_of(who).repeat_reduction)
    return {"repeated offensive action": penalty} if penalty else {}


def check_action(
    state: EncounterState,
    who: CombatantState,
    *,
    offensive: bool,
    reaction: bool = False,
    out_of_order: bool = False,
    free: bool = False,
    costs: bool = True,
) -> dict[str, Any]:
    """May `who` take this action now? Returns what it spends (PHA-ACT-1, -6, -13, RX)."""
    spent = {"offensive": offensive, "reaction": reaction, "free": free}
    if statuses.active(who, "dead") or not statuses.can_act(who):
        blocking = [n for n in who.conditions if not statuses.spec(n).get("acts", True)]
        raise refuse(
            "PHA-ACT-6",
            f"{who.name} cannot act ({', '.join(blocking)})",
            f"{who.name} no puede actuar ({', '.join(statuses.spec(n)['es'] for n in blocking)})",
            "combatant",
        )
    if free:
        return spent
    if reaction:
        if who.marks.get("in_turn"):
            raise refuse(
                "PHA-RX-1",
                "on his own turn this is a plain action, not a reaction",
                "en su propio turno es una acción normal, no una reacción",
                "reaction",
            )
        if who.marks.get("reaction_used"):  # PHA-RX-4: one action as his one reaction
            raise refuse(
                "PHA-RX-1",
                f"{who.name} has used his one reaction until his next turn",
                f"{who.name} ya usó su única reacción hasta su próximo turno",
                "reaction",
            )
        return spent
    if not who.marks.get("in_turn") and not out_of_order:
        now = acting(state)
        raise refuse(
            "PHA-INIT-2",
            f"it is {now.name}'s turn" if now else "no turn has started: start_turn first",
            f"es el turno de {now.name}" if now else "no ha empezado ningún turno: start_turn",
            "combatant",
        )
    if costs and who.marks.get("in_turn") and actions_left(who) < 1:
        raise refuse(
            "PHA-ACT-1",
            f"{who.name} has no action point left this turn",
            f"{who.name} no tiene más puntos de acción este turno",
            "combatant",
        )
    if offensive and who.marks.get("defended"):
        raise refuse(
            "PHA-ACT-13",
            f"{who.name} took the Defense action this turn: no offensive action (PHA-AMB-41)",
            f"{who.name} tomó la acción de Defensa este turno: no puede hacer acciones ofensivas",
            "combatant",
        )
    if not costs:
        spent["free"] = True
    return spent


def check_parts(who: CombatantState, characteristic: str) -> dict[str, int]:
    """PHA-CHK-2: the score plus the statuses' modifiers to it (PHA-STK)."""
    parts = {characteristic.upper(): stats_of(who).score(characteristic)}
    parts.update(statuses.modifiers(who, characteristic))
    return parts
