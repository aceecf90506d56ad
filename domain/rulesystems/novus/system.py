"""Novus behind the rule-system interface: the command handlers of its round."""

from __future__ import annotations

from typing import Any, ClassVar

from domain import commands as c
from domain import events as ev
from domain.errors import RuleViolation
from domain.rulesystems.base import Context, RuleSystem
from domain.rulesystems.novus import actions as act
from domain.rulesystems.novus import combat, rounds
from domain.rulesystems.novus.attacks import resolve_attack, spend_boons
from domain.rulesystems.novus.dice import open_2d10
from domain.rulesystems.novus.stats import NovusStats
from domain.rulesystems.novus.view import novus_view
from domain.state import ActionState, CombatantState, EncounterState

SAVE_BONUS = 5  # NOV-SAVE-1
STABILISE_TN = 25  # NOV-HITS-3


def gain_fate_point(ctx: Context, who: CombatantState, roll: Any, cause: int) -> None:
    """NOV-CORE-5, NOV-FATE-1: a Nova Roll gives its roller one Fate Point."""
    if "nova" in roll.flags:
        ctx.emit(ev.FatePointGained, cause=cause, combatant=who.id, fate_points=1)


class NovusRules(RuleSystem):
    name = "novus"
    stats_model = NovusStats
    conditions: ClassVar[frozenset[str]] = frozenset(
        {"bleeding", "dazed", "stunned", "prone", "hasted", "unaware", "stabilised", "disarmed"}
    )

    def hits_of(self, model: NovusStats) -> tuple[dict[str, Any], int, int]:
        hits = model.hits if model.current_hits is None else model.current_hits
        return model.model_dump(by_alias=True), model.hits, hits

    def catalogue(self) -> list[dict[str, Any]]:
        return [
            {
                "kind": k.kind,
                "label": k.label,
                "ap": k.ap,
                "ap_range": k.ap_range,
                "rule": k.rule,
                "attack": k.attack,
                "spell": k.spell,
                "rolls": list(k.rolls),
            }
            for k in act.CATALOGUE.values()
        ]

    # -- step 1 -----------------------------------------------------------------
    def on_roll_initiative(self, ctx: Context, cmd: c.RollInitiative) -> None:
        state = ctx.state
        if state.declared:
            raise RuleViolation(
                "NOV-SEQ-2",
                "initiative is rolled in step 1, before anyone "
                "declares; a late joiner rolls next round (NOV-AMB-9)",
            )
        if cmd.combatant is not None:
            who = state.combatant(cmd.combatant)
            if who.ip is not None:
                raise RuleViolation(
                    "NOV-INIT-3",
                    f"{who.name} already has an IP "
                    f"({who.ip}); initiative is rolled once per combat",
                    field="combatant",
                )
            targets = [who]
        else:
            targets = rounds.needs_initiative(state)
            if not targets:
                raise RuleViolation("NOV-INIT-3", "every combatant already has an IP")
        if cmd.ip is not None and len(targets) != 1:
            raise RuleViolation(
                "NOV-INIT-5", "an entered IP needs one combatant", field="combatant"
            )
        for who in targets:
            if cmd.ip is not None:  # NOV-INIT-5, NOV-AMB-9: the GM enters it
                ctx.emit(
                    ev.InitiativeRolled,
                    combatant=who.id,
                    ip=cmd.ip,
                    raw=None,
                    rolls={},
                    modifiers=dict(cmd.modifiers),
                    entered=True,
                )
                continue
            stats = combat.stats_of(who)
            name = "initiative" if cmd.combatant else f"initiative:{who.name}"
            # NOV-INIT-2: 2d10 (open-ended, Default NOV-AMB-39) + Spd + Wis bonuses + others
            mods = {"spd bonus": stats.bonuses.spd, "wis bonus": stats.bonuses.wis, **cmd.modifiers}
            roll = open_2d10(ctx.dice, name, mods)
            pos = ctx.emit(
                ev.InitiativeRolled,
                combatant=who.id,
                ip=roll.total,
                raw=roll.dice_total,
                rolls={name: roll.to_dict()},
                modifiers=dict(roll.modifiers),
                entered=False,
            )
            gain_fate_point(ctx, who, roll, pos)

    # -- step 2 -----------------------------------------------------------------
    def on_declare(self, ctx: Context, cmd: c.Declare) -> None:
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
        if nxt is not None and nxt.id != who.id and not cmd.out_of_order:
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
        stats = combat.stats_of(who)
        kinds = [act.kind_of(a) for a in cmd.actions]
        costs = [act.cost_of(a, stats) for a in cmd.actions]
        budget = rounds.ap_budget(state, who)
        paid = act.check_budget(kinds, costs, budget, who.has("hasted"))
        position = ctx.first_position
        declared, effects = [], []
        attacks_seen = 0
        run_ap = 0
        for i, (spec, kind, cost) in enumerate(zip(cmd.actions, kinds, costs, strict=True)):
            declared.append(
                self._action(state, who, spec, kind, cost, position, i, attacks_seen, paid)
            )
            attacks_seen += kind.attack
            if kind.kind == "run":
                run_ap += cost
        if run_ap:  # NOV-MOVE-1: −2 per AP run to his other actions, or next round if all
            whole = run_ap == paid.spent and all(k.kind == "run" for k in kinds)
            rnd = state.round + 1 if whole else state.round
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
            ap_carried=paid.carried,
            effects=effects,
            out_of_order=bool(nxt and nxt.id != who.id),
        )

    def _action(
        self,
        state: EncounterState,
        who: CombatantState,
        spec: c.ActionSpec,
        kind: act.ActionKind,
        cost: int,
        position: int,
        index: int,
        attacks_seen: int,
        paid: act.Budget,
    ) -> dict[str, Any]:
        target = spec.target
        if kind.kind == "first_aid":
            target = target or who.id
        if kind.needs_target:
            if target is None:
                raise RuleViolation(
                    kind.rule, f"{kind.label} needs a target", field="actions.target"
                )
            state.combatant(target)
            if kind.attack and target == who.id:
                raise RuleViolation(
                    "NOV-ATK-1", "a combatant does not attack himself", field="actions.target"
                )
        params: dict[str, Any] = dict(spec.params)
        params["label"] = kind.label
        if kind.def_mod:
            params["def_mod"] = kind.def_mod
        weapon = None
        if kind.attack:
            weapon = act.attack_weapon(spec, combat.stats_of(who)).name
            move = act.move_of(spec)
            params.update(
                move=spec.move or "basic",
                move_ab=move["ab"],
                bd=move["bd"],
                scaled=move["scaled"],
                armour=move["armour"],
                primary=attacks_seen == 0,
            )
            if move["def"]:
                params["def_mod"] = move["def"]
                params["label"] = spec.move
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
            extra=kind.attack and attacks_seen > 0,  # NOV-RES-2: further attacks go last
            target=target,
            weapon=weapon,
            params=params,
        ).model_dump()

    # -- step 3 -----------------------------------------------------------------
    def on_resolve(self, ctx: Context, cmd: c.Resolve) -> None:
        if ctx.state.pending_boons is not None:
            raise RuleViolation(
                "NOV-BOON-1",
                "spend the Boon Points of the last hit first "
                "(spend_boons; an empty list forgoes them)",
            )
        current = rounds.step(ctx.state)
        if current != "resolution":
            raise RuleViolation("NOV-SEQ-1", f"nothing to resolve: the round is at '{current}'")
        lost = self._lose_blocked(ctx)
        pending = rounds.queue(ctx.state)
        if not pending:
            if lost:
                return
            raise RuleViolation("NOV-RES-1", "every declared action has resolved")
        action = pending[0]
        if cmd.action is not None and cmd.action != action.id:
            raise RuleViolation(
                "NOV-RES-1",
                f"the next action to resolve is {action.id} "
                f"({ctx.state.combatants[action.combatant].name}), not "
                f"{cmd.action}",
                field="action",
            )
        if act.CATALOGUE[action.kind].attack:
            resolve_attack(ctx, action, cmd)
        elif action.kind == "first_aid":
            self._first_aid(ctx, action, cmd)
        else:
            pos = ctx.emit(
                ev.ActionResolved,
                combatant=action.combatant,
                action=action.id,
                kind=action.kind,
                detail={"ap": action.cost},
            )
            who = ctx.state.combatants[action.combatant]
            if action.kind == "get_up" and who.has("prone"):  # NOV-COND-4
                ctx.emit(
                    ev.ConditionCleared,
                    cause=pos,
                    combatant=who.id,
                    condition="prone",
                    wound=None,
                    reason="got up (2 AP)",
                )

    def _lose_blocked(self, ctx: Context, *, all_: bool = False) -> list[str]:
        lost = []
        for action in rounds.queue(ctx.state):
            why = rounds.is_blocked(ctx.state, action)
            if why is None:
                if all_:
                    continue
                break
            rule, reason = why.split(": ", 1)
            ctx.emit(
                ev.ActionLost,
                combatant=action.combatant,
                action=action.id,
                kind=action.kind,
                rule=rule,
                reason=reason,
            )
            lost.append(action.id)
        return lost

    def _first_aid(self, ctx: Context, action: ActionState, cmd: c.Resolve) -> None:
        state = ctx.state
        healer = state.combatants[action.combatant]
        patient = state.combatant(action.target or healer.id)
        wound = None
        if patient.hits <= 0 and not patient.has("stabilised"):
            purpose, tn = "stabilise", STABILISE_TN  # NOV-HITS-3 (Default NOV-AMB-28)
        elif patient.wounds:
            wanted = action.params.get("wound")
            wound = next((w for w in patient.wounds if w.position == wanted), patient.wounds[0])
            purpose, tn = "close wound", 15 + 3 * wound.rate  # NOV-COND-1
        else:
            ctx.emit(
                ev.ActionResolved,
                combatant=healer.id,
                action=action.id,
                kind="first_aid",
                detail={"ap": action.cost, "outcome": "nothing to treat"},
            )
            return
        mods = {
            "first aid": combat.stats_of(healer).first_aid,
            **combat.action_penalties(state, healer),
            **cmd.modifiers,
        }
        roll = open_2d10(ctx.dice, "first_aid", mods)
        success = roll.total >= tn  # NOV-CORE-1
        pos = ctx.emit(
            ev.FirstAidRolled,
            combatant=healer.id,
            target=patient.id,
            action=action.id,
            purpose=purpose,
            rolls={"first_aid": roll.to_dict()},
            tn=tn,
            total=roll.total,
            success=success,
        )
        gain_fate_point(ctx, healer, roll, pos)
        if not success:
            return
        if wound is None:
            ctx.emit(
                ev.ConditionApplied,
                cause=pos,
                combatant=patient.id,
                condition="stabilised",
                count=None,
                rate=None,
                reason="First Aid",
            )
        else:
            ctx.emit(
                ev.ConditionCleared,
                cause=pos,
                combatant=patient.id,
                condition="bleeding",
                wound=wound.position,
                reason="First Aid closed the wound",
            )

    def on_spend_boons(self, ctx: Context, cmd: c.SpendBoons) -> None:
        if ctx.state.pending_boons is None:
            raise RuleViolation("NOV-BOON-1", "no hit is waiting for its Boon Points")
        spend_boons(ctx, ctx.state.pending_boons, cmd.boons)

    def on_save(self, ctx: Context, cmd: c.Save) -> None:
        who = ctx.state.combatant(cmd.combatant)
        stats = combat.stats_of(who)
        if cmd.stat not in ("str", "dex", "spd", "con", "wil", "wis"):
            raise RuleViolation("NOV-SAVE-1", f"unknown stat {cmd.stat!r}", field="stat")
        # NOV-SAVE-1, -2: open-ended 2d10 + Stat Bonus + 5 + modifiers ≥ TN
        mods = {
            f"{cmd.stat} bonus": stats.bonuses.of(cmd.stat),
            "save": SAVE_BONUS,
            **cmd.modifiers,
        }  # type: ignore[arg-type]
        roll = open_2d10(ctx.dice, "save", mods)
        pos = ctx.emit(
            ev.SaveRolled,
            combatant=who.id,
            stat=cmd.stat,
            purpose=cmd.purpose,
            rolls={"save": roll.to_dict()},
            tn=cmd.tn,
            total=roll.total,
            saved=roll.total >= cmd.tn,
            margin=roll.total - cmd.tn,
        )
        gain_fate_point(ctx, who, roll, pos)

    # -- step 4 -----------------------------------------------------------------
    def on_end_round(self, ctx: Context, cmd: c.EndRound) -> None:
        state = ctx.state
        if state.pending_boons is not None:
            raise RuleViolation("NOV-BOON-1", "spend the Boon Points of the last hit first")
        current = rounds.step(state)
        if current in ("initiative", "declaration", "setup"):
            raise RuleViolation("NOV-SEQ-1", f"the round cannot end at '{current}'")
        lost = self._lose_blocked(ctx, all_=True)
        left = rounds.queue(ctx.state)
        if left:
            raise RuleViolation(
                "NOV-SEQ-1",
                f"{len(left)} declared action(s) have not resolved yet; next is {left[0].id}",
            )
        round_ = ctx.state.round
        for who in list(ctx.state.combatants.values()):  # NOV-END-1
            for tick in rounds.upkeep(ctx.state, who):
                cause = tick.pop("cause")
                ctx.emit(ev.UpkeepTicked, cause=cause, combatant=who.id, round=round_, **tick)
        ctx.emit(ev.RoundEnded, round=round_, lost_actions=lost)  # NOV-END-2

    def view(self, state: EncounterState) -> dict[str, Any]:
        return novus_view(state)
