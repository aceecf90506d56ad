"""What a player may see (docs/visibility.md): a hidden combatant leaves no trace in any
player read, until the GM reveals him; once revealed `from_reveal`, what came before stays
hidden. A player's own combatants are never hidden from him. Health figures show as the GM
shows each combatant's health, and the GM's secrets never: each such field is marked where
it is declared (domain.visibility), and a record holding one the reader may not read is
*concealed*: those members null, named in its `withheld` (docs/audit-spec.md).

Whether a record or a part of an answer is about a combatant is decided by value, not by
field name: he is named by his id (a UUID, so an equal string is him), in roll names as
`roll:Name`, and in free text (a reason, a label, a refusal) by his name — found where it
is not part of another combatant's name. A record that names an unseen combatant anywhere is
withheld whole (exports keep its position and hash: `placeholder`); an answer drops what is
about him (an entry whose `id` or `combatant` is his), blanks a field that is his id, and
says `someone` for his name in free text.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain import events as ev
from domain.audit import CORRECTION_TYPES
from domain.rulesystems import get_rule_system
from domain.state import CombatantState, EncounterState
from domain.visibility import HealthShown, Secret, secrets
from projections.view import GM_VIEW_FIELDS

SOMEONE = "someone"
_GONE = object()


@dataclass(frozen=True)
class Words:
    """How the combatants a reader may not see are named, and the names of all others."""

    ids: frozenset[str]
    names: frozenset[str]
    others: frozenset[str]

    def is_his(self, text: str) -> bool:
        """His id, or a roll of his (`initiative:Name`)."""
        if text in self.ids:
            return True
        head, colon, tail = text.partition(":")
        return bool(colon and head) and tail in self.names

    def unnamed(self, text: str, someone: str = SOMEONE, *, ids: bool = False) -> str:
        """Free text with each of their names (with `ids`, ids too) as `someone`; another
        combatant's name that holds one of theirs (`Goblin Chief` for `Goblin`) kept whole."""
        hits = [n for n in self.names if n in text]
        hits += [c for c in self.ids if c in text] if ids else []
        if not hits:
            return text
        guarded = sorted((o for o in self.others if any(h in o for h in hits)), key=len)
        marks = {f"\x00{i}\x00": other for i, other in enumerate(reversed(guarded))}
        for mark, other in marks.items():
            text = text.replace(other, mark)
        for name in sorted(hits, key=len, reverse=True):
            text = text.replace(name, someone)
        for mark, other in marks.items():
            text = text.replace(mark, other)
        return text

    def mentions(self, value: Any) -> bool:
        """Whether a JSON value names any of them: by id, roll name, or in free text."""
        if not self.ids:
            return False
        if isinstance(value, str):
            return self.is_his(value) or self.unnamed(value) != value
        if isinstance(value, dict):
            return any(self.mentions(str(k)) or self.mentions(v) for k, v in value.items())
        if isinstance(value, list | tuple):
            return any(self.mentions(v) for v in value)
        return False

    def scrub(self, value: Any) -> Any:
        """A JSON value without them: an entry about one gone, a field naming one null, his
        name in text `someone` (_GONE: the value itself was about one)."""
        if isinstance(value, str):
            return _GONE if self.is_his(value) else self.unnamed(value)
        if isinstance(value, dict):
            if any(
                isinstance(value.get(k), str) and value[k] in self.ids for k in ("id", "combatant")
            ):
                return _GONE
            out = {}
            for k, v in value.items():
                if self.is_his(str(k)):
                    continue
                kept = self.scrub(v)
                out[k] = None if kept is _GONE else kept
            return out
        if isinstance(value, list | tuple):
            return [kept for v in value if (kept := self.scrub(v)) is not _GONE]
        return value


@dataclass(frozen=True)
class Sight:
    """What a player's token may read, as the encounter stands now."""

    hidden: frozenset[str]  # hidden now: nothing about them, at any position
    seen_from: Mapping[str, int]  # revealed from the reveal on: nothing before this position
    names: Mapping[str, str]  # the name of every combatant (the reader's own included)
    health: Mapping[str, HealthShown] = field(default_factory=dict)  # as he sees each one's
    figures: tuple[str, ...] = ()  # the combatant view's health figures (the rule book's)
    unknown: HealthShown = "none"  # a combatant he does not know of: as the GM's, or less

    def health_of(self, combatant: Any) -> HealthShown:
        return self.health.get(combatant, self.unknown)

    def may_read(self, mark: Secret | None, combatant: Any) -> bool:
        """Whether he may read a field so marked, of a model about `combatant`."""
        if mark is None:
            return True
        if mark.kind == "gm":
            return False
        return self.health_of(combatant) == "exact"

    def words(self, position: int | None = None) -> Words:
        """How those he may not see at `position` are named (None: as things stand)."""
        later = {c for c, at in self.seen_from.items() if position is not None and position < at}
        unseen = self.hidden | later
        return Words(
            ids=frozenset(unseen),
            names=frozenset(self.names[c] for c in unseen),
            others=frozenset(n for c, n in self.names.items() if c not in unseen),
        )


def health_shown(state: EncounterState, who: CombatantState, party: bool) -> HealthShown:
    """How a player who does not act for him sees his health: as the GM set it for him, or
    for the party (`party`: some player acts for him) or for the GM's combatants."""
    if who.health_shown is not None:
        return who.health_shown  # type: ignore[return-value]
    return state.party_health_shown if party else state.health_shown  # type: ignore[return-value]


def departed(corrections: Iterable[Any]) -> list[CombatantState]:
    """The combatants a correction took away (his addition voided), as they last stood: the
    log still holds his records, so a player's sight must know him."""
    gone: dict[str, CombatantState] = {}
    for correction in corrections:
        for change in correction.changes:
            path, before = change.get("path") or [], change.get("before")
            if len(path) == 2 and path[0] == "combatants" and isinstance(before, dict):
                try:
                    gone[path[1]] = CombatantState.model_validate(before)
                except ValueError:  # not a combatant's state: nothing to know him by
                    continue
    return list(gone.values())


def sight_of(
    state: EncounterState,
    mine: Iterable[str] = (),
    party: Iterable[str] = (),
    gone: Iterable[CombatantState] = (),
) -> Sight:
    """A player's sight of an encounter: `mine`, his own combatants (never hidden from him,
    their health exact); `party`, the combatants any player acts for; `gone`, those a
    correction took away (`departed`), seen as they last stood."""
    own, players = set(mine), set(party)
    everyone = {c.id: c for c in gone} | dict(state.combatants)
    kept = [
        c for c in everyone.values() if (c.hidden or c.seen_from is not None) and c.id not in own
    ]
    return Sight(
        hidden=frozenset(c.id for c in kept if c.hidden),
        seen_from={c.id: c.seen_from for c in kept if c.seen_from is not None},
        names={c.id: c.name for c in everyone.values()},
        health={
            c.id: "exact" if c.id in own else health_shown(state, c, c.id in players)
            for c in everyone.values()
        },
        figures=get_rule_system(state.ruleset).health_figures,
        unknown=state.health_shown,  # type: ignore[arg-type]
    )


# -- records ------------------------------------------------------------------------------
def readable(rec: dict[str, Any], sight: Sight | None) -> bool:
    """Whether a player may read a record (its data names no one unseen at its position)."""
    if sight is None or not (sight.hidden or sight.seen_from):
        return True
    return not sight.words(rec["position"]).mentions(rec.get("data"))


def placeholder(rec: dict[str, Any]) -> dict[str, Any]:
    """A record a player may not read, as his export holds it: its position and hash only,
    so the chain still links (docs/audit-spec.md §3)."""
    return {"position": rec["position"], "redacted": True, "hash": rec["hash"]}


_EVENTS = {
    name: cls
    for name, cls in vars(ev).items()
    if isinstance(cls, type) and issubclass(cls, ev.EncounterEvent)
}
_STATE_MARKS = secrets(EncounterState)
_COMBATANT_MARKS = secrets(CombatantState)


def marks_of(kind: str) -> dict[str, Secret]:
    """The marked fields of an event type (none for a type no longer written)."""
    cls = ev.event_class(kind)
    return secrets(cls) if cls is not None else {}


def _combatant_concealed(value: Any, who: Any, sight: Sight) -> Any:
    """A combatant's state (a dump of it) without what the reader may not read of him."""
    if not isinstance(value, dict):
        return value
    return {
        k: v if sight.may_read(_COMBATANT_MARKS.get(k), who) else None for k, v in value.items()
    }


def _change_concealed(change: Any, sight: Sight) -> Any:
    """One of a correction's changes of the state, its before and after null where they are
    what the reader may not read (marked on the state models)."""
    path = change.get("path") if isinstance(change, dict) else None
    if not isinstance(path, list) or not path:
        return change
    if path[0] == "combatants" and len(path) >= 2:
        who = path[1]
        if len(path) == 2:
            return {
                **change,
                "before": _combatant_concealed(change.get("before"), who, sight),
                "after": _combatant_concealed(change.get("after"), who, sight),
            }
        mark = _COMBATANT_MARKS.get(path[2])
    else:
        mark, who = _STATE_MARKS.get(path[0]), None
    if sight.may_read(mark, who):
        return change
    return {**change, "before": None, "after": None}


def concealed(rec: dict[str, Any], sight: Sight | None) -> dict[str, Any]:
    """A record as the reader may read it: each marked member he may not read null, named in
    `withheld` (its hash no longer covers what it shows: docs/audit-spec.md); unchanged if
    there is none."""
    if sight is None or rec.get("redacted") is True:
        return rec
    data = rec["data"]
    shown, withheld = dict(data), []
    for name, mark in marks_of(rec["type"]).items():
        if (
            name in data
            and data[name] is not None
            and not sight.may_read(mark, data.get("combatant"))
        ):
            shown[name] = None
            withheld.append(name)
    if rec["type"] in CORRECTION_TYPES and isinstance(data.get("changes"), list):
        changes = [_change_concealed(c, sight) for c in data["changes"]]
        if changes != data["changes"]:
            shown["changes"] = changes
            withheld.append("changes")
    if not withheld:
        return rec
    return {**rec, "data": shown, "withheld": withheld}


def as_read(event: Any, sight: Sight | None) -> Any:
    """An event as the reader may read it, for its log line: each marked field he may not
    read None (a copy; the event itself is folded as it is)."""
    if sight is None:
        return event
    data = vars(event)
    hidden = [
        name
        for name, mark in marks_of(type(event).__name__).items()
        if data.get(name) is not None and not sight.may_read(mark, data.get("combatant"))
    ]
    if not hidden:
        return event
    shown = copy.copy(event)
    for name in hidden:
        object.__setattr__(shown, name, None)  # an event is frozen; this copy is the reader's
    return shown


def for_player(records: Iterable[dict[str, Any]], sight: Sight | None) -> list[dict[str, Any]]:
    """Records as a player reads them: each he may not read as a placeholder, each with what
    he may not read of it concealed."""
    return [concealed(r, sight) if readable(r, sight) else placeholder(r) for r in records]


# -- views and answers ----------------------------------------------------------------------
def view_for_player(view: dict[str, Any], sight: Sight | None) -> dict[str, Any]:
    """The encounter view (at its version) as a player sees it: what is about an unseen
    combatant dropped, every field that names one blank, his name in text `someone`."""
    if sight is None:
        return view
    scrubbed = sight.words(view.get("version")).scrub(view)
    if not isinstance(scrubbed, dict):
        return {}
    for name in GM_VIEW_FIELDS:
        scrubbed.pop(name, None)
    for shown in scrubbed.get("combatants") or []:
        for name in GM_VIEW_FIELDS:
            shown.pop(name, None)
        health = sight.health_of(shown.get("id"))
        if health != "exact":
            for name in sight.figures:
                if name in shown:
                    shown[name] = None
        if health == "none":
            shown["health_state"] = None
    return scrubbed


def choices_for_player(answer: dict[str, Any], sight: Sight | None) -> dict[str, Any]:
    """GET …/choices as a player sees it: no choice whose command names an unseen combatant
    (his own initiative keeps his choice, without the roll-offs of hidden ones), none of them
    as the one acting or among those with choices."""
    if sight is None:
        return answer
    words = sight.words()
    out: dict[str, Any] = {}
    for key, value in answer.items():
        if key == "choices":
            out[key] = [
                words.scrub(choice) for choice in value if not words.mentions(choice.get("command"))
            ]
        elif key == "by_combatant":
            out[key] = {who: kinds for who, kinds in value.items() if who not in words.ids}
        else:
            kept = words.scrub(value)
            out[key] = None if kept is _GONE else kept
    return out


def scrubbed(value: Any, sight: Sight | None) -> Any:
    """Any other answer part as a player sees it (a DICE_NEEDED's `needed`)."""
    if sight is None:
        return value
    kept = sight.words().scrub(value)
    return None if kept is _GONE else kept


def unnamed(text: str, sight: Sight | None, someone: str = SOMEONE) -> str:
    """A refusal's detail as a player reads it: no unseen combatant named, by name or id."""
    return text if sight is None else sight.words().unnamed(text, someone, ids=True)
