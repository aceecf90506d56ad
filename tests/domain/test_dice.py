"""Dice values, manual faces and derived faces; Novus open-ended 2d10 vectors: a 10
explodes (NOV-CORE-2), a 1 implodes (NOV-CORE-3), a chain never turns (NOV-CORE-4), 1 + 10 is
a Nova (NOV-CORE-5); Boon Points per full 10 over (NOV-CORE-6) and Snag Points under
(NOV-CORE-7)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.dice import DerivedDice, ManualDice, derived_face
from domain.errors import DiceError
from domain.rulesystems.novus.dice import boon_points, open_2d10, snag_points


@pytest.fixture(autouse=True)
def through() -> str:
    """Dice are values: these tests need no encounter, so they run once."""
    return "domain"


def roll(*faces: int) -> object:
    return open_2d10(ManualDice({"r": list(faces)}), "r", {})


@pytest.mark.over_http
@pytest.mark.parametrize(
    ("rule", "faces", "total", "chains"),
    [
        ("NOV-TV-27", (10, 4, 7), 21, [(10, 7), (4,)]),
        ("NOV-TV-28", (10, 4, 10, 3), 27, [(10, 10, 3), (4,)]),
        ("NOV-TV-29", (1, 3, 5), -1, [(1, 5), (3,)]),
        ("NOV-TV-30", (1, 3, 1, 6), -3, [(1, 1, 6), (3,)]),
        ("NOV-TV-31a", (10, 5, 1), 16, [(10, 1), (5,)]),
        ("NOV-TV-31b", (1, 5, 10), -4, [(1, 10), (5,)]),
        ("NOV-TV-33a", (10, 10, 4, 10, 2), 36, [(10, 4), (10, 10, 2)]),
        ("NOV-TV-33b", (1, 1, 3, 1, 2), -4, [(1, 3), (1, 1, 2)]),
    ],
)
def test_given_open_ended_faces_when_rolled_then_total_and_chains_match_vector(
    rule: str, faces: tuple[int, ...], total: int, chains: list[tuple[int, ...]]
) -> None:
    r = roll(*faces)
    assert r.total == total, rule
    assert [d.chain for d in r.dice] == chains, rule


@pytest.mark.over_http
def test_given_1_and_10_when_rolled_then_nova_counts_11_without_rerolls() -> None:
    r = roll(1, 10)  # NOV-TV-32
    assert r.total == 11
    assert "nova" in r.flags
    assert [d.chain for d in r.dice] == [(1,), (10,)]


@pytest.mark.parametrize(("margin", "boons"), [(9, 0), (10, 1), (19, 1), (20, 2), (-1, 0)])
def test_given_margin_when_counting_then_boon_points_per_full_10(margin: int, boons: int) -> None:
    assert boon_points(margin) == boons  # NOV-TV-34


def test_given_short_by_10_when_counting_then_one_snag_point() -> None:
    assert snag_points(-10) == 1  # NOV-TV-34 (Default NOV-AMB-40)
    assert snag_points(-9) == 0
    assert snag_points(5) == 0


def test_given_a_face_out_of_range_when_rolled_then_dice_error_names_roll_and_die() -> None:
    with pytest.raises(DiceError) as e:
        roll(4, 11)
    assert e.value.roll == "r" and e.value.die == 2


def test_given_too_few_faces_for_an_explosion_when_rolled_then_missing_face_named() -> None:
    with pytest.raises(DiceError) as e:
        roll(10, 4)
    assert e.value.die == 3 and "needs a face" in e.value.detail


def test_given_leftover_faces_when_finished_then_dice_error() -> None:
    dice = ManualDice({"r": [4, 5, 6]})
    open_2d10(dice, "r", {})
    with pytest.raises(DiceError) as e:
        dice.finish()
    assert "left over" in e.value.detail


def test_given_a_roll_never_made_when_finished_then_dice_error() -> None:
    dice = ManualDice({"attack": [4, 5], "typo": [3]})
    open_2d10(dice, "attack", {})
    with pytest.raises(DiceError) as e:
        dice.finish()
    assert e.value.roll == "typo"


@given(st.binary(min_size=1, max_size=32), st.text(max_size=20), st.integers(2, 100))
def test_given_any_secret_when_deriving_then_face_in_range(
    secret: bytes, key: str, sides: int
) -> None:
    assert 1 <= derived_face(secret, key, sides) <= sides


def test_given_same_seed_and_position_when_deriving_then_same_faces() -> None:
    a = [DerivedDice("seeded", b"s", 7).face("attack", 10) for _ in range(1)]
    b = [DerivedDice("seeded", b"s", 7).face("attack", 10) for _ in range(1)]
    assert a == b
    faces = {derived_face(b"s", f"k{i}", 10) for i in range(200)}
    assert faces == set(range(1, 11))


def test_given_two_chains_when_rolled_then_faces_keep_the_order_they_were_drawn() -> None:
    r = roll(10, 10, 4, 3)  # A explodes into 4, B into 3
    assert r.faces == [10, 10, 4, 3]
    assert [d.chain for d in r.dice] == [(10, 4), (10, 3)]
    assert r.to_dict()["faces"] == [10, 10, 4, 3]


def test_given_a_roll_off_when_the_dice_tie_again_and_again_then_an_order_and_no_crash() -> None:
    """A table whose dice tie 3,000 times in a row gets its order (the roll-off is a loop,
    not a recursion as deep as the ties)."""
    from domain.dice import roll_off

    faces = {"A": iter([4] * 3000 + [2]), "B": iter([4] * 3000 + [5]), "C": iter([6])}
    assert roll_off(["A", "B", "C"], lambda who, group: next(faces[who])) == ["C", "B", "A"]


def test_given_a_three_way_roll_off_then_those_tied_again_settle_before_anyone_below() -> None:
    from domain.dice import roll_off

    drawn: list[str] = []
    faces = {"A": iter([5, 3]), "B": iter([5, 1]), "C": iter([2])}

    def roll(who: str, group: list[str]) -> int:
        drawn.append(who)
        return next(faces[who])

    assert roll_off(["A", "B", "C"], roll) == ["A", "B", "C"]
    assert drawn == ["A", "B", "C", "A", "B"]
