"""What a player may see (docs/visibility.md): a hidden combatant leaves no trace in any
player read, until the GM reveals him; once revealed `from_reveal`, what came before stays
hidden. A player's own combatants are never hidden from him.

Whether a record or a part of an answer is about a combatant is decided by value, not by
field name: he is named by his id (a UUID, so an equal string is him), in roll names as
`roll:Name`, and in free text (a reason, a label, a refusal) by his name — found where it
is not part of another combatant's name. A record that names an unseen combatant anywhere is
withheld whole (exports keep its position and hash: `placeholder`); an answer drops what is
about him (an entry whose `id` or `combatant` is his), blanks a field that is his id, and
says `someone` for his name in free text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.state import EncounterState

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

    def words(self, position: int | None = None) -> Words:
        """How those he may not see at `position` are named (None: as things stand)."""
        later = {c for c, at in self.seen_from.items() if position is not None and position < at}
        unseen = self.hidden | later
        return Words(
            ids=frozenset(unseen),
            names=frozenset(self.names[c] for c in unseen),
            others=frozenset(n for c, n in self.names.items() if c not in unseen),
        )


def sight_of(state: EncounterState, mine: Iterable[str] = ()) -> Sight | None:
    """A player's sight of an encounter (`mine`: his own combatants, never hidden from him);
    None when nothing is kept from him."""
    own = set(mine)
    kept = [
        c
        for c in state.combatants.values()
        if (c.hidden or c.seen_from is not None) and c.id not in own
    ]
    if not kept:
        return None
    return Sight(
        hidden=frozenset(c.id for c in kept if c.hidden),
        seen_from={c.id: c.seen_from for c in kept if c.seen_from is not None},
        names={c.id: c.name for c in state.combatants.values()},
    )


# -- records ------------------------------------------------------------------------------
def readable(rec: dict[str, Any], sight: Sight | None) -> bool:
    """Whether a player may read a record (its data names no one unseen at its position)."""
    return sight is None or not sight.words(rec["position"]).mentions(rec.get("data"))


def placeholder(rec: dict[str, Any]) -> dict[str, Any]:
    """A record a player may not read, as his export holds it: its position and hash only,
    so the chain still links (docs/audit-spec.md §3)."""
    return {"position": rec["position"], "redacted": True, "hash": rec["hash"]}


def for_player(records: Iterable[dict[str, Any]], sight: Sight | None) -> list[dict[str, Any]]:
    """Records as a player reads them: each he may not read as a placeholder."""
    return [r if readable(r, sight) else placeholder(r) for r in records]


# -- views and answers ----------------------------------------------------------------------
def view_for_player(view: dict[str, Any], sight: Sight | None) -> dict[str, Any]:
    """The encounter view (at its version) as a player sees it: what is about an unseen
    combatant dropped, every field that names one blank, his name in text `someone`."""
    if sight is None:
        return view
    scrubbed = sight.words(view.get("version")).scrub(view)
    return scrubbed if isinstance(scrubbed, dict) else {}


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
