"""The narrative log in Spanish: the lines a PHANTÄSIA encounter shares with the other rule
systems, in the book's terms (PV, narrador, ronda, turno), English where no Spanish line is
registered. `narrative` writes whatever language it is asked for, so Novus and Wits events
stand in here; the API and the CLI offer Spanish for PHANTÄSIA encounters only."""

from __future__ import annotations

import hashlib

import pytest

from domain import commands as c
from domain.encounter import Encounter
from projections.narrative import CORE, narrative
from tests.builders import DomainTable, duel, of_type
from tests.builders.novus import novus_stats


def texts(events, lang="es") -> list[str]:
    return [x["text"] for x in narrative(events, lang)]


def test_given_a_novus_hit_when_logged_in_spanish_then_pv_lines_and_english_fallback() -> None:
    t = duel()
    t.resolve([10, 3, 4])  # 17 + 9 = 26 vs DEF 20: T takes 10
    events = t.encounter.collect_events()
    lines = texts(events)
    assert lines[0] == "Comienza el encuentro “Test fight” (novus, dados de la mesa)."
    assert "A se une (heroes): PV 30/30." in lines
    assert "T recibe 10 de daño: PV 30 → 20." in lines
    # no Spanish line for a Novus attack: its English line stands in
    assert any(x.startswith("Round 1: A attacks T: ") for x in lines)


def test_given_gm_overrides_and_upkeep_when_logged_in_spanish_then_narrador_and_ronda() -> None:
    t = DomainTable()
    b = t.add("Brakka", novus_stats(hits=20), side="heroes")
    t.ip("Brakka", 10)
    t.run(c.SetModifier(combatant=b, name="bendición", applies_to="ab", value=2, rounds=2))
    t.run(c.SetCondition(combatant=b, condition="bleeding", rate=3, reason="herida"))
    t.declare("Brakka")
    t.run(c.EndRound())
    t.run(c.ClearModifier(combatant=b, name="bendición", reason="se disipa"))
    t.run(c.ClearCondition(combatant=b, condition="bleeding", reason="vendado"))
    t.run(c.AdjustHits(combatant=b, amount=-20, reason="caída"))
    lines = texts(t.encounter.collect_events())
    assert "Narrador: Brakka: bendición +2 a ab hasta la ronda 2." in lines
    assert "Brakka sufre «bleeding», 3 por ronda (herida)." in lines
    assert "Ronda 1, mantenimiento: Brakka sangra 3 (PV 20 → 17)." in lines
    assert "Fin de la ronda 1." in lines
    assert "Narrador: Brakka pierde bendición (se disipa)." in lines
    assert "Brakka ya no sufre «bleeding» (vendado)." in lines
    assert "Narrador: Brakka −20 PV (caída): PV 17 → −3." in lines


def test_given_a_void_an_undo_and_a_redo_when_logged_in_spanish_then_the_narrador_corrects():
    t = duel()
    attack, _ = t.resolve([10, 3, 4])
    t.run(c.Void(target=attack.originator_version, reason="mal tirado"))
    t.run(c.AdjustHits(combatant=t.ids["A"], amount=-2))
    t.run(c.Undo(reason="error"))
    t.run(c.Redo(reason="sí era"))
    lines = texts(t.encounter.collect_events())
    assert "El narrador anula el evento 8: eventos 8, 9 (mal tirado)." in lines
    assert "Narrador: A −2 PV (GM adjustment): PV 30 → 28." in lines
    assert "El narrador deshace la última orden: eventos 11 (error)." in lines
    assert "El narrador rehace (anula el deshacer 12): eventos 12 (sí era)." in lines


def test_given_server_dice_when_the_encounter_ends_then_the_secret_is_revealed_in_spanish():
    secret = bytes(range(32))
    encounter = Encounter.start(
        "Emboscada", "novus", "server", dice_commitment=hashlib.sha256(secret).hexdigest()
    )
    encounter.reveal_dice(secret, None, ending="huyen")
    encounter.commit_dice("ab" * 32)  # as a fork commits its own
    lines = texts(encounter.collect_events())
    assert lines[0] == "Comienza el encuentro “Emboscada” (novus, dados del servidor)."
    assert lines[1] == "El encuentro termina (huyen)."
    assert lines[2].startswith(f"Se revela el secreto 0 de los dados del servidor: {secret.hex()}")
    assert (
        lines[3]
        == "Se compromete el secreto 1 de los dados del servidor: SHA-256 abababababababab…."
    )


def test_given_a_wits_turn_kept_for_defense_when_logged_in_spanish_then_turno_line() -> None:
    t = DomainTable("wits")
    stats = {"wits": 12, "move": 12, "strength": 12, "base_damage": "1d6", "health": 20}
    t.add("A", stats, side="heroes")
    t.add("B", stats | {"wits": 10}, side="foes")
    t.run(c.RollInitiative())
    ended = of_type(t.run(c.EndTurn(combatant=t.ids["A"])), "TurnEnded")
    assert ended and ended[0].actions_left == 2
    lines = texts(t.encounter.collect_events())
    assert "A termina su turno y guarda 2 acciones para defenderse." in lines
    assert "A se une (heroes): PV 20/20." in lines  # PV, the book's word, in every Spanish log


def test_given_a_log_when_no_lang_is_asked_then_it_is_english_as_before() -> None:
    t = duel()
    t.resolve([5, 5])
    events = t.encounter.collect_events()
    assert texts(events, "en") == [x["text"] for x in narrative(events)]
    assert texts(events, "en")[0] == "Encounter “Test fight” begins (novus, manual dice)."
    with pytest.raises(ValueError, match="'en' or 'es'"):
        narrative(events, "fr")  # type: ignore[arg-type]


def test_given_the_core_lines_then_the_shared_events_are_told_in_spanish_too():
    """The lines every book shares have their Spanish (a book's own Spanish is in its
    catalogue, domain/rulesystems/<book>/)."""
    shared = {
        "CombatantAdded",
        "DamageApplied",
        "HitsAdjusted",
        "ConditionApplied",
        "ConditionCleared",
        "UpkeepTicked",
        "RollVoided",
        "CommandUndone",
        "CommandRedone",
        "DiceSecretRevealed",
        "DiceCommitted",
        "EncounterEnded",
        "RoundEnded",
        "ModifierSet",
        "ModifierCleared",
        "TurnEnded",
    }
    assert shared <= set(CORE.by_type), shared - set(CORE.by_type)


def test_given_a_narrators_reason_then_the_spanish_log_leaves_his_words_as_typed() -> None:
    """A rule's reason is told from its code and parameters (the catalogue's Spanish); a
    narrator's own words, and a reason recorded before codes existed, as stored."""
    from types import SimpleNamespace

    from domain.rulesystems.phantasia.reasons import reason, said

    typed = SimpleNamespace(reason="a poison dart; the narrator says critical hit at level 3")
    assert reason(typed, "es") == typed.reason
    over = SimpleNamespace(**said("over"))
    assert over.reason == "its duration is over (PHA-STS-0)"
    assert reason(over, "es") == "se acabó su duración (PHA-STS-0)"
    old = SimpleNamespace(reason="its duration is over (PHA-STS-0)", reason_code=None)
    assert reason(old, "es") == old.reason
