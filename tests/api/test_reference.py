"""The command reference: the roll names each command declares (domain/commands.py) are the
ones the rule books ask for, and docs/reference.md is what api/reference.py renders now.

Roll names: the three demo fights (seeded dice) and small fights of our own (table dice
fed one face at a time) record which roll names each command type asks for, per rule book.
Every name asked must be declared for that book and command, and every name declared must
be asked somewhere here, so a name dropped from a declaration fails too."""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from api import demo, demo_phantasia, demo_wits
from api.main import create_app
from api.reference import (
    ALSO_GM,
    COMMANDS,
    EVERY_BOOK,
    REFUSED,
    SHAPES,
    books_of,
    declared,
    matches,
    render,
)
from domain import commands as c
from domain.access import Forbidden
from domain.dice import DerivedDice, ManualDice
from domain.encounter import Encounter
from domain.errors import DomainError
from domain.rulesystems import get_rule_system, rulesets
from infra.access import Grant, check_command
from infra.app import Fraylog
from infra.settings import Settings
from tests.builders.novus import novus_stats, target_stats
from tests.table_dice import send_app

Asked = dict[tuple[str, str], set[str]]  # (rule book, command type) -> roll names asked


# -- fights of our own: table dice, one face at a time -------------------------------------


class Fight:
    """An encounter on the application with table dice. Combatants are named in commands
    by their names; each command is sent one face at a time, the faces taken from a script
    per roll name (else a 5, or the die's top face below it), and the roll names it asked
    for are kept in `asked`."""

    def __init__(self, fraylog: Fraylog, book: str, asked: Asked) -> None:
        self.fraylog, self.book, self.asked = fraylog, book, asked
        created = fraylog.create_encounter("Roll names", book, "manual")
        self.eid = str(created.state.id)
        self.ids: dict[str, str] = {}

    def add(self, name: str, stats: dict[str, Any], side: str = "") -> None:
        self.ids[name], _ = self.fraylog.add_combatant(UUID(self.eid), name, side, stats)

    def _named(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.ids.get(value, value)
        if isinstance(value, list):
            return [self._named(v) for v in value]
        if isinstance(value, dict):
            return {k: self._named(v) for k, v in value.items()}
        return value

    def send(
        self, kind: str, faces: dict[str, list[int]] | None = None, /, **fields: Any
    ) -> list[Any]:
        script = {roll: list(f) for roll, f in (faces or {}).items()}

        def face(needed: dict[str, Any]) -> int:
            left = script.get(needed["roll"])
            return left.pop(0) if left else min(5, needed["sides"])

        body = {"type": kind, **self._named(fields)}
        events, _, needed = send_app(self.fraylog, self.eid, body, face)
        self.asked[(self.book, kind)].update(n["roll"] for n in needed)
        return events

    def ip(self, *names: str) -> None:
        """Place them in this order, by IPs the GM enters (nothing rolled)."""
        for i, name in enumerate(names):
            self.send("roll_initiative", combatant=name, ip=30 - i)


def novus_fights(f: Callable[[], Fight]) -> None:
    t = f()  # one combatant's initiative; a spell cast vs. DEF
    t.add("Ana", novus_stats(), "heroes")
    t.add("Orc", target_stats(), "foes")
    t.send("roll_initiative", combatant="Ana")
    t.send("roll_initiative", combatant="Orc", ip=1)
    t.send("declare", combatant="Orc")
    spell = {"kind": "cast_spell", "target": "Orc", "casting_tn": 18, "spell_bonus": 6}
    t.send("declare", combatant="Ana", actions=[{**spell, "spell_damage": 7}])
    t.send("resolve", {"casting": [7, 7]})

    t = f()  # a miss into melee: a bystander's save
    bow = {"name": "bow", "kind": "missile", "dr": 5, "stat": "dex", "ranks": 6}
    t.add("Archer", novus_stats(weapons=[bow], bonuses={"dex": 0}))
    t.add("Orc", target_stats(def_=20, ar=0))
    t.add("Bystander", target_stats(def_=16, ar=2, bonuses={"spd": 1}))
    t.ip("Archer", "Orc", "Bystander")
    t.send("declare", combatant="Bystander")
    t.send("declare", combatant="Orc")
    shot = {"kind": "missile_attack", "target": "Orc", "weapon": "bow", "into_melee": True}
    t.send("declare", combatant="Archer", actions=[{**shot, "bystanders": ["Bystander"]}])
    t.send("resolve", {"attack": [7, 5], "bystander_save:Bystander": [3, 4]})

    for at_once in (True, False):  # Disarm Foe bought with the hit, or after it
        t = f()
        t.add("Ana", novus_stats(weapons=[{"name": "sword", "dr": 6, "stat": "dex", "ranks": 6}]))
        t.add("Orc", target_stats(def_=15, ar=0, bonuses={"spd": 0, "str": 2}))
        t.ip("Ana", "Orc")
        t.send("declare", combatant="Orc")
        swing = {"kind": "melee_attack", "target": "Orc", "weapon": "sword"}
        t.send("declare", combatant="Ana", actions=[swing])
        disarm = [{"name": "disarm_foe"}]
        if at_once:
            t.send("resolve", {"attack": [10, 7, 2], "disarm_save": [6, 6]}, boons=disarm)
        else:
            t.send("resolve", {"attack": [10, 7, 2]})
            t.send("spend_boons", {"disarm_save": [6, 6]}, boons=disarm)

    for snag in ("hurt_yourself", "hit_friend"):  # a bad miss's Snags, at once or after
        for at_once in (True, False):
            t = f()
            t.add("Ana", novus_stats(), "heroes")
            t.add("Friend", target_stats(def_=10), "heroes")
            t.add("Orc", target_stats(def_=30, ar=0), "foes")
            t.ip("Ana", "Orc", "Friend")
            t.send("declare", combatant="Friend")
            t.send("declare", combatant="Orc")
            swing = {"kind": "melee_attack", "target": "Orc", "weapon": "sword"}
            t.send("declare", combatant="Ana", actions=[swing])
            snags = [{"name": snag, **({"target": "Friend"} if snag == "hit_friend" else {})}]
            if at_once:
                t.send("resolve", {"attack": [1, 2, 7]}, snags=snags)
            else:
                t.send("resolve", {"attack": [1, 2, 7]})
                t.send("spend_snags", snags=snags)

    t = f()  # First Aid; a Block as a cancel's replacement; a Saving Throw
    t.add("Medic", novus_stats(current_hits=-3, first_aid=10), "heroes")
    t.add("Ana", novus_stats(), "heroes")
    t.add("Orc", novus_stats(), "foes")
    t.ip("Orc", "Ana", "Medic")
    t.send("declare", combatant="Medic", actions=[{"kind": "first_aid"}])
    t.send("declare", combatant="Ana", actions=[{"kind": "perception"}])
    swing = {"kind": "melee_attack", "target": "Ana", "weapon": "sword"}
    t.send("declare", combatant="Orc", actions=[swing])
    t.send("cancel", combatant="Ana", replacement={"kind": "block", "target": "Orc"})
    t.send("resolve", {"block": [6, 5]})
    t.send("resolve", {"first_aid": [8, 8]})
    t.send("save", combatant="Orc", stat="con")


def wits_fights(f: Callable[[], Fight]) -> None:
    def fighter(wits: int) -> dict[str, Any]:
        sword = {"name": "short sword", "damage": "1d8", "skill": "short sword"}
        return {
            "wits": wits,
            "move": 12,
            "strength": 12,
            "base_damage": "1d6",
            "health": 40,
            "skills": {"short sword": 13, "shield": 15},
            "weapons": [sword],
            "shield": {"name": "small shield", "defense": 2},
        }

    t = f()  # a tie on Wits rolled off; an attack rolled after the defense; a knock-back
    t.add("Ana", fighter(12), "heroes")
    t.add("Orc", fighter(12), "foes")
    t.send("roll_initiative", {"tie:Ana": [6], "tie:Orc": [1]})
    events = t.send("attack", combatant="Ana", target="Orc", weapon="short sword", roll=False)
    t.send("defend", combatant="Orc", defense={"kind": "block"})
    t.send("roll_attack", {"attack": [3], "defense": [20], "damage": [2, 2]})
    (announced,) = [e for e in events if type(e).__name__ == "AttackAnnounced"]
    t.send("knock_back", {"strength": [5]}, combatant="Orc", attack=announced.action["id"])


def phantasia_fights(f: Callable[[], Fight]) -> None:
    def pc(**more: Any) -> dict[str, Any]:
        return {
            "controller": "player",
            **{"fue": 7, "agi": 8, "int": 9, "vit": 6, "sue": 6, "level": 5, "pv": 32},
            "weapons": [{"name": "sword", "code": "AMM", "damage": "1d8"}],
            **more,
        }

    def creature(**more: Any) -> dict[str, Any]:
        scores = {"fue": 6, "agi": 6, "int": 6, "vit": 6, "sue": 6, "level": 1, "pv": 30}
        return {**scores, "weapons": [{"name": "axe", "code": "AMM", "damage": "1d8"}], **more}

    bolt = {"name": "Rayo", "damage": "1d6", "pm_cost": 0}
    glow = {"name": "Luz", "pm_cost": 0}

    t = f()  # initiative: one combatant, then a tie on result and AGI
    t.add("Ana", pc())
    t.add("Bea", pc())
    t.add("Orc", creature())
    t.send("roll_initiative", {"initiative": [6]}, combatant="Orc")
    t.send("roll_initiative", {"initiative:Ana": [5], "initiative:Bea": [5], "tie:Ana": [2]})

    t = f()  # a player's defenses against an area power; a fumbled block; the damage
    t.add("Witch", creature(powers=[bolt]), "foes")
    t.add("Ana", pc(), "heroes")
    t.add("Bea", pc(), "heroes")
    t.ip("Witch", "Ana", "Bea")
    t.send("start_turn")
    t.send("attack_check", {"defense:Ana": [12], "defense:Bea": [12]}, combatant="Witch",
           targets=["Ana", "Bea"], power="Rayo")  # fmt: skip
    t.send("roll_damage", {"damage": [3]})

    t = f()  # a caster keeping a power up through every kind of damage; the dying Victim
    t.add("Caster", pc(vit=1, pv=500, powers=[bolt, glow]), "heroes")
    t.add("Orc", creature(ca=1, pv=500), "foes")
    t.add("Victim", pc(current_pv=1), "heroes")
    t.ip("Caster", "Orc", "Victim")
    t.send("start_turn")
    t.send("act", combatant="Caster", action="cast_power", power="Luz", sustain=True)
    keep = {"concentration": [1] * 10, "death": [100] * 10}
    t.send("fall", keep, combatant="Caster", metres=1)
    t.send("fall", keep, combatant="Victim", metres=1)
    t.send("apply_status", {"resist": [12]}, combatant="Orc", status="fear", turns=5,
           resist="ca")  # fmt: skip
    for status in ("stunned", "chaos", "paralysed", "poisoned", "suffocating"):
        t.send("apply_status", combatant="Caster", status=status)
    t.send("end_turn", combatant="Caster")
    t.send("start_turn", {"fear": [12]})
    t.send("end_turn", combatant="Orc")
    t.send("start_turn", keep)  # the Victim, unconscious
    t.send("end_turn", combatant="Victim")
    fail = {name: [12] for name in ("stunned", "chaos", "paralysed", "poisoned")}
    for _ in range(3):  # the Caster holds his breath one turn (VIT 1), then fails
        t.send("start_turn", {**keep, "suffocation": [12]})
        t.send("end_turn", {**keep, **fail, "poison damage": [2]}, combatant="Caster")
        t.send("start_turn")
        t.send("end_turn", combatant="Orc")
        t.send("start_turn", keep)
        t.send("end_turn", combatant="Victim")

    t = f()  # fumbles (with a power: its lock), a re-roll, checks, jumps, healing, a contest
    t.add("Caster", pc(pv=500, powers=[glow]), "heroes")
    t.add("Victim", pc(current_pv=1, phantasia_points=3, powers=[bolt]), "heroes")
    t.add("Goblin", creature(current_pv=1), "foes")
    t.add("Orc", creature(pv=500), "foes")
    t.ip("Caster", "Victim", "Goblin", "Orc")
    t.send("start_turn")
    t.send("act", combatant="Caster", action="cast_power", power="Luz", sustain=True)
    t.send("attack_check", {"attack": [12]}, combatant="Caster", targets=["Orc"], weapon="sword")
    t.send("roll_fumble", {"fumble": [6], **keep}, choice="pv")
    t.send("check", {"check": [3]}, combatant="Caster", characteristic="agi")
    t.send("jump", {"jump": [6], "edge": [12], **keep}, combatant="Caster", kind="long",
           metres=5, fall_m=2)  # fmt: skip
    t.send("heal", {"heal": [3]}, combatant="Caster", heal_dice="1d6")
    t.send("end_turn", combatant="Caster")
    t.send("start_turn")
    t.send("attack_check", {"attack": [12]}, combatant="Victim", targets=["Orc"], power="Rayo")
    t.send("spend_phantasia_point", {"reroll": [12]}, combatant="Victim", use="reroll")
    t.send("roll_fumble", {"fumble": [1], "power lock": [2]})
    t.send("attack_check", {"attack": [12]}, combatant="Victim", targets=["Orc"], weapon="sword")
    t.send("roll_fumble", {"fumble": [6], "death": [1]}, choice="pv")
    t.send("spend_phantasia_point", {"death": [100]}, combatant="Victim", use="death_reroll")
    t.send("end_turn", combatant="Victim")
    t.send("start_turn")
    t.send("jump", {"jump": [12], "death": [100]}, combatant="Goblin", kind="long", metres=5,
           fall_m=2)  # fmt: skip
    t.send("end_turn", combatant="Goblin")
    t.send("start_turn")
    t.send("attack_check", {"defense": [12]}, combatant="Orc", targets=["Caster"], weapon="axe")
    t.send("roll_damage", {"damage": [4], **keep})
    t.send("contest", {"attacker": [3], "defender": [9]}, combatant="Orc", kind="push",
           target="Caster")  # fmt: skip


FIGHTS = {"novus": novus_fights, "wits": wits_fights, "phantasia": phantasia_fights}
DEMOS = {"novus": demo, "wits": demo_wits, "phantasia": demo_phantasia}


@pytest.fixture(scope="module")
def asked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Asked]:
    """What each command type asked for in the demos (seeded dice) and in our fights."""
    found: Asked = defaultdict(set)
    folder = tmp_path_factory.mktemp("rolls")
    with pytest.MonkeyPatch.context() as patch:
        running: list[tuple[str, str]] = []
        execute, face = Fraylog.execute, DerivedDice.face

        def recorded_execute(self: Fraylog, eid: UUID, command: Any, *a: Any, **kw: Any) -> Any:
            running.append((self.state(eid).ruleset, command.type))
            try:
                return execute(self, eid, command, *a, **kw)
            finally:
                running.pop()

        def recorded_face(self: DerivedDice, roll: str, sides: int, ask: Any = None) -> int:
            if running:
                found[running[-1]].add(roll)
            return face(self, roll, sides, ask)

        patch.setattr(Fraylog, "execute", recorded_execute)
        patch.setattr(DerivedDice, "face", recorded_face)
        for book, module in DEMOS.items():
            module.play(Settings(sqlite_path=str(folder / f"{book}.db")), module.SEED, 3)
    with Fraylog(Settings(sqlite_path=str(folder / "fights.db"))) as fraylog:
        for book, fights in FIGHTS.items():
            fights(lambda book=book: Fight(fraylog, book, found))
    yield found


def test_given_the_fights_then_every_roll_asked_is_declared_for_its_book_and_command(
    asked: Asked,
) -> None:
    undeclared = {}
    for (book, kind), rolls in asked.items():
        missing = [r for r in rolls if not any(matches(d, r) for d in declared(kind, book))]
        if missing:
            undeclared[(book, kind)] = sorted(missing)
    assert not undeclared, f"asked for but not declared in domain/commands.py: {undeclared}"


def test_given_the_fights_then_every_roll_declared_is_asked_somewhere(asked: Asked) -> None:
    never = {
        (book, kind): [d for d in names if not any(matches(d, r) for r in asked[(book, kind)])]
        for kind, model in COMMANDS.items()
        for book, names in c.rolls_of(model).items()
    }
    never = {k: v for k, v in never.items() if v}
    assert not never, f"declared but asked in none of these fights (add one): {never}"


def test_given_the_declared_rolls_then_each_names_a_book_that_takes_the_command() -> None:
    for kind, model in COMMANDS.items():
        takes = {b for b in books_of(kind) if (b, kind) not in REFUSED}
        assert set(c.rolls_of(model)) <= takes, kind
        assert takes or kind in EVERY_BOOK, f"no rule book takes {kind}"
    for kind in EVERY_BOOK:  # the application runs them, for every book
        assert not any(hasattr(get_rule_system(b), f"on_{kind}") for b in rulesets()), kind


def test_given_a_book_that_always_refuses_a_command_then_the_reference_names_its_rule() -> None:
    for (book, kind), why in REFUSED.items():
        encounter = Encounter.start("Refused", book, "manual")
        who = encounter.add_combatant("Ana", "", {"pv": 10, "fue": 6, "agi": 6, "int": 6,
                                                  "vit": 6, "sue": 6})  # fmt: skip
        command = {"set_modifier": c.SetModifier(combatant=who, name="x", applies_to="ab", value=1)}
        with pytest.raises(DomainError) as refused:
            encounter.execute(command[kind], ManualDice({}))
        assert why.startswith(refused.value.rule + ":"), (book, kind)


def test_given_a_players_token_then_the_fields_listed_as_the_gms_are_refused() -> None:
    """ALSO_GM lists what domain.access.check_player refuses besides GM_FIELDS."""
    player = Grant("e", "player", frozenset({"ana"}), "ana")
    state = Encounter.start("Who", "wits", "manual").state
    set_by_gm = {
        "ip": 5,
        "tie_order": ["ana", "bob"],
        "group": ["ana", "bob"],
        "simultaneous": True,
        "actions": 2,
    }
    for kind, fields in ALSO_GM.items():
        base = {"type": kind, "combatant": "ana"} | (
            {"what": "talks"} if kind == "take_action" else {}
        )
        for name in fields:
            command = COMMANDS[kind].model_validate(base | {name: set_by_gm[name]})
            with pytest.raises(Forbidden) as refused:
                check_command(player, command, state)
            assert refused.value.field == name, (kind, name)


# -- the page and the OpenAPI ----------------------------------------------------------------

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"
REGENERATE = ".venv/bin/python -m api.reference > docs/reference.md"


def test_given_the_checked_in_reference_then_it_is_what_api_reference_renders_now() -> None:
    rendered = render()
    assert rendered == render()  # deterministic
    written = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
    if written != rendered:
        diff = difflib.unified_diff(
            written.splitlines(), rendered.splitlines(), "docs/reference.md", "now", lineterm=""
        )
        shown = "\n".join(list(diff)[:40])
        pytest.fail(f"docs/reference.md is stale; regenerate it: {REGENERATE}\n{shown}")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def test_given_the_reference_then_each_command_has_its_anchor_and_every_link_lands() -> None:
    page = render()
    anchors = [slug(h) for h in re.findall(r"^#+ (.+)$", page, flags=re.MULTILINE)]
    assert len(anchors) == len(set(anchors)), "two headings share an anchor"
    for kind in COMMANDS:  # docs/api.md links to these
        assert f"\n## `{kind}`\n" in page and kind in anchors
    links = set(re.findall(r"\]\(#([^)]+)\)", page))
    assert links <= set(anchors), links - set(anchors)
    longest = max(len(cell) for line in page.splitlines() for cell in line.split(" | "))
    assert longest < 400, "a table cell is too long to read"


def test_given_the_openapi_then_command_schemas_have_x_rolls_and_described_fields(
    tmp_path: Path,
) -> None:
    schemas = create_app(Settings(sqlite_path=str(tmp_path / "f.db"))).openapi()["components"][
        "schemas"
    ]
    for kind, model in COMMANDS.items():
        schema = schemas[model.__name__]
        assert schema["x-rolls"] == {b: list(n) for b, n in c.rolls_of(model).items()}, kind
        assert schema["required"][0] == "type" and schema.get("description"), kind
        for name, field in schema["properties"].items():
            assert field.get("description"), f"{kind}.{name} has no description"
    for shape in SHAPES:
        assert schemas[shape.__name__].get("description"), shape.__name__
        for name, field in schemas[shape.__name__]["properties"].items():
            assert field.get("description"), f"{shape.__name__}.{name} has no description"
