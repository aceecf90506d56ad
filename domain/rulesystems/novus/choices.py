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

from domain.rulesystems.base import Choice, choice
from domain.rulesystems.novus import choices_cancel as cancelling
from domain.rulesystems.novus import choices_declare as declaring
from domain.rulesystems.novus import choices_resolve as resolving
from domain.rulesystems.novus import rounds
from domain.rulesystems.novus.choices_common import MODIFIERS
from domain.rulesystems.novus.state import encounter_marks_of, marks_of
from domain.rulesystems.novus.stats import StatName
from domain.state import EncounterState

STATS: tuple[str, ...] = get_args(StatName)


def choices(state: EncounterState) -> list[Choice]:
    """The candidates at the step the round is at (NOV-SEQ-1), and what any step allows
    (a hold after declaring, Fate Points, saves the GM calls for)."""
    if not state.combatants:
        return []
    step = rounds.step(state)
    out: list[Choice] = []
    if not encounter_marks_of(state).declared:  # NOV-SEQ-2: step 1, before anyone declares
        out += declaring.initiative(state)
    if step == "declaration":
        out += declaring.declarations(state)
    out += declaring.holds(state)
    if step == "resolution":
        out += resolving.resolve(state)
    if step == "boons":
        out += resolving.boons(state)
    if step == "snags":
        out += resolving.snags(state)
    if step in ("resolution", "boons", "snags"):  # NOV-CANCEL-1
        out += cancelling.cancels(state)
    if step == "resolution":  # NOV-OA-1
        out += cancelling.opportunity_attacks(state)
    out += _fate_points(state) + _saves(state)
    if step in ("resolution", "end_round"):
        out.append(_end_round(state))
    return out


# -- any step -----------------------------------------------------------------------------
def _fate_points(state: EncounterState) -> list[Choice]:
    """NOV-FATE-2: a Fate Point spent, its effect the GM's to say."""
    return [
        choice(
            "spend_fate_point",
            who.id,
            {"combatant": who.id, "effect": "as the GM rules"},
            f"{who.name} spends a Fate Point ({marks_of(who).fate_points} left)",
            fields={"effect": {"type": "string", "description": "What it does (the GM's)."}},
        )
        for who in state.combatants.values()
        if marks_of(who).fate_points >= 1
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
    if not encounter_marks_of(state).declared:
        forms += [
            {
                "type": "roll_initiative",
                "combatant": who.id,
                "fields": {"ip": {"type": "integer", "description": "The IP the GM enters."}},
            }
            for who in rounds.needs_initiative(state)
        ]
    return forms
