"""What a player may see (docs/visibility.md): a hidden combatant leaves no trace in any
player read, until the GM reveals him; once revealed `from_reveal`, what came before stays
hidden.

Whether a record or a part of a view is about a combatant is decided by value, not by field
name: a combatant is named in the record only by his id (a UUID, so an equal string is
him) and, in roll names, as `roll:Name`. A record that names an unseen combatant anywhere
is withheld whole (exports keep its position and hash: `placeholder`); a view drops what is
about him (an entry whose `id` or `combatant` is his) and blanks what names him elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.state import EncounterState


@dataclass(frozen=True)
class Sight:
    """What a player's token may read, as the encounter stands now."""

    hidden: frozenset[str]  # hidden now: nothing about them, at any position
    seen_from: Mapping[str, int]  # revealed from the reveal on: nothing before this position
    names: Mapping[str, str]  # the name of each of them
    others: frozenset[str] = frozenset()  # the names of everyone else (kept in free text)

    def unseen_at(self, position: int | None) -> frozenset[str]:
        """Who a player may not see at `position` (None: as things stand)."""
        later = {c for c, at in self.seen_from.items() if position is not None and position < at}
        return self.hidden | later

    def words(self, position: int | None) -> tuple[frozenset[str], frozenset[str]]:
        unseen = self.unseen_at(position)
        return unseen, frozenset(self.names[c] for c in unseen)


def sight_of(state: EncounterState) -> Sight | None:
    """The players' sight of an encounter; None when nothing is kept from them."""
    kept = {c.id: c for c in state.combatants.values() if c.hidden or c.seen_from is not None}
    if not kept:
        return None
    return Sight(
        hidden=frozenset(c for c, who in kept.items() if who.hidden),
        seen_from={c: who.seen_from for c, who in kept.items() if who.seen_from is not None},
        names={c: who.name for c, who in kept.items()},
        others=frozenset(c.name for c in state.combatants.values() if c.id not in kept),
    )


def _names_him(text: str, ids: frozenset[str], names: frozenset[str]) -> bool:
    """His id, or a roll of his (`initiative:Name`). A bare name is not matched: names are
    free text (a combatant may be called `gm`); where a name shows, his id does too."""
    if text in ids:
        return True
    head, colon, tail = text.partition(":")
    return bool(colon and head) and tail in names


def mentions(value: Any, ids: frozenset[str], names: frozenset[str]) -> bool:
    """Whether a JSON value names any of these combatants (by id, or `roll:Name`)."""
    if not ids:
        return False
    if isinstance(value, str):
        return _names_him(value, ids, names)
    if isinstance(value, dict):
        return any(
            _names_him(str(k), ids, names) or mentions(v, ids, names) for k, v in value.items()
        )
    if isinstance(value, list | tuple):
        return any(mentions(v, ids, names) for v in value)
    return False


# -- records ------------------------------------------------------------------------------
def readable(rec: dict[str, Any], sight: Sight | None) -> bool:
    """Whether a player may read a record (its data names no one unseen at its position)."""
    if sight is None:
        return True
    return not mentions(rec.get("data"), *sight.words(rec["position"]))


def placeholder(rec: dict[str, Any]) -> dict[str, Any]:
    """A record a player may not read, as his export holds it: its position and hash only,
    so the chain still links (docs/audit-spec.md §3)."""
    return {"position": rec["position"], "redacted": True, "hash": rec["hash"]}


def for_player(records: Iterable[dict[str, Any]], sight: Sight | None) -> list[dict[str, Any]]:
    """Records as a player reads them: each he may not read as a placeholder."""
    return [r if readable(r, sight) else placeholder(r) for r in records]


# -- views and answers ----------------------------------------------------------------------
_GONE = object()


def _about(entry: dict[str, Any], ids: frozenset[str]) -> bool:
    return any(isinstance(entry.get(k), str) and entry[k] in ids for k in ("id", "combatant"))


def _scrub(value: Any, ids: frozenset[str], names: frozenset[str]) -> Any:
    if isinstance(value, str):
        return _GONE if _names_him(value, ids, names) else value
    if isinstance(value, dict):
        if _about(value, ids):
            return _GONE
        out = {}
        for k, v in value.items():
            if _names_him(str(k), ids, names):
                continue
            kept = _scrub(v, ids, names)
            out[k] = None if kept is _GONE else kept
        return out
    if isinstance(value, list | tuple):
        return [kept for v in value if (kept := _scrub(v, ids, names)) is not _GONE]
    return value


def view_for_player(view: dict[str, Any], sight: Sight | None) -> dict[str, Any]:
    """The encounter view (at its version) as a player sees it: what is about an unseen
    combatant dropped, and every field that names one blank."""
    if sight is None:
        return view
    ids, names = sight.words(view.get("version"))
    scrubbed = _scrub(view, ids, names)
    return scrubbed if isinstance(scrubbed, dict) else {}


def without(items: Iterable[Any], sight: Sight | None, position: int | None = None) -> list[Any]:
    """The items (choices, log lines, …) that name no one unseen (at `position`)."""
    if sight is None:
        return list(items)
    ids, names = sight.words(position)
    return [item for item in items if not mentions(item, ids, names)]


SOMEONE = "someone"


def unnamed(text: str, sight: Sight, position: int | None = None) -> str:
    """Free text (a choice's label, a roll's) with each unseen combatant's name as
    `someone`; the names of the others, which may contain it, are kept whole."""
    _, names = sight.words(position)
    hits = [n for n in names if n in text]
    if not hits:
        return text
    kept = {f"\x00{i}\x00": other for i, other in enumerate(sorted(sight.others, key=len)[::-1])}
    for mark, other in kept.items():
        text = text.replace(other, mark)
    for name in sorted(hits, key=len, reverse=True):
        text = text.replace(name, SOMEONE)
    for mark, other in kept.items():
        text = text.replace(mark, other)
    return text


def _labels(value: Any, sight: Sight) -> Any:
    if isinstance(value, dict):
        return {
            k: unnamed(v, sight)
            if k.startswith("label") and isinstance(v, str)
            else _labels(v, sight)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_labels(v, sight) for v in value]
    return value


def choices_for_player(answer: dict[str, Any], sight: Sight | None) -> dict[str, Any]:
    """GET …/choices as a player sees it: no choice whose command names an unseen combatant
    (his own initiative keeps his choice, without the roll-offs of hidden ones), none of them
    as the one acting or among those with choices."""
    if sight is None:
        return answer
    ids, names = sight.words(None)
    out: dict[str, Any] = {}
    for key, value in answer.items():
        if key == "choices":  # a command that names one: gone; else his rolls' names
            out[key] = [
                _labels(_scrub(choice, ids, names), sight)
                for choice in value
                if not mentions(choice.get("command"), ids, names)
            ]
        elif key == "by_combatant":
            out[key] = {who: kinds for who, kinds in value.items() if who not in ids}
        else:
            kept = _scrub(value, ids, names)
            out[key] = None if kept is _GONE else kept
    return out


def scrubbed(value: Any, sight: Sight | None) -> Any:
    """Any other answer part as a player sees it (a DICE_NEEDED's `needed`): what names an
    unseen combatant blank, his name in a label `someone`."""
    if sight is None:
        return value
    kept = _scrub(value, *sight.words(None))
    return None if kept is _GONE else _labels(kept, sight)
