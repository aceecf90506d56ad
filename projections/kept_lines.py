"""The narrative log kept: each event's line told once, from the state before it, and the
state folded on, so a longer log is told on from where the kept one stops instead of from
event 1 (a line is a function of its event and the state before it: projections.narrative).

A line is kept in the three ways it can read: as the GM reads it, and as a player reads it
who sees the health of its combatant exact or not (projections.visibility.as_read blanks
the GM's secrets for every player, the health figures for one who does not see them exact:
`domain.visibility.Secret` has no other kind). Which lines a player may read, and which are
voided, are decided when the log is asked for: both depend on what comes later (a reveal,
a correction), not on the line."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from domain import events as ev
from domain.audit import record_of
from domain.corrections import voided_by
from domain.errors import DamagedRecord
from domain.fold import evolve
from domain.state import EncounterState
from projections.narrative import LANGS, Lang, created_line, line_of
from projections.visibility import Sight, as_read, departed, readable, sight_of

# a player's sight of every combatant's health, exact or not: all as_read asks of a sight
_EXACT = Sight(hidden=frozenset(), seen_from={}, names={}, unknown="exact")
_BLIND = Sight(hidden=frozenset(), seen_from={}, names={}, unknown="none")


@dataclass(frozen=True)
class KeptLine:
    """One event's line as each reader may read it, and what decides which he reads."""

    position: int
    round: int
    type: str
    actor: str
    combatant: Any  # whose health decides which of a player's texts he reads (as_read)
    words: tuple[str, ...]  # the record's data's keys and texts: may a player read it
    texts: tuple[str, str, str]  # the GM's; a player's seeing the health exact; not exact


class KeptLines:
    """An encounter's narrative log in one language, told up to `version`, and the state
    after it (one thread at a time: infra.kept_reads holds its lock)."""

    def __init__(self, lang: Lang) -> None:
        if lang not in LANGS:
            raise ValueError(f"lang is 'en' or 'es', not {lang!r}")
        self.lang = lang
        self.lines: list[KeptLine] = []
        self.state: EncounterState | None = None
        self.corrections: list[Any] = []

    def forget(self) -> None:
        """Keep nothing: the next `extend` tells the log from event 1."""
        self.lines, self.state, self.corrections = [], None, []

    @property
    def version(self) -> int:
        return self.lines[-1].position if self.lines else 0

    def extend(self, events: Iterable[Any]) -> None:
        """Tell the events that follow the kept ones, in order, and fold them on."""
        for event in events:
            if event.originator_version != self.version + 1:
                raise DamagedRecord.gap(
                    event.originator_id, self.version + 1, event.originator_version
                )
            self.lines.append(self._told(event))
            if isinstance(event, ev.Correction):
                self.corrections.append(event)
            self.state = evolve(self.state, event)

    def _told(self, event: Any) -> KeptLine:
        state = self.state
        gm = self._text(event, state)
        seeing, blind = (as_read(event, sight) for sight in (_EXACT, _BLIND))
        exact = gm if seeing is event else self._text(seeing, state)
        shown = exact if blind is seeing else gm if blind is event else self._text(blind, state)
        return KeptLine(
            position=event.originator_version,
            round=state.round if state else 1,
            type=type(event).__name__,
            actor=event.actor,
            combatant=vars(event).get("combatant"),
            words=_words(record_of(event)["data"]),
            texts=(gm, exact, shown),
        )

    def _text(self, event: Any, state: EncounterState | None) -> str:
        return (
            line_of(event, state, self.lang)
            if state is not None
            else created_line(event, self.lang)
        )

    def sight(self, mine: Iterable[str], party: Iterable[str]) -> Sight:
        """A player's sight as the encounter stands at `version` (infra.app.Fraylog.sight:
        the state, his combatants, the party, those corrections took away)."""
        if self.state is None:
            raise LookupError("no event kept")
        return sight_of(self.state, mine, party, departed(self.corrections))

    def last(self, until: int | None) -> int:
        """The last position a log up to `until` holds."""
        return self.version if until is None else min(until, self.version)

    def told(
        self, sight: Sight | None, after: int, end: int | None, until: int | None
    ) -> list[dict[str, Any]]:
        """The lines of the events after `after` up to `end` (None: to the last) of the log
        up to `until`, each marked voided by any correction in that log, without those a
        player (`sight`) may not read."""
        last = self.last(until)
        stop = last if end is None else min(end, last)
        voided = voided_by([c for c in self.corrections if c.originator_version <= last])
        out = []
        for line in self.lines[after:stop]:  # positions run 1, 2, 3…: line n at index n - 1
            if sight is not None and not readable(
                {"position": line.position, "data": line.words}, sight
            ):
                continue
            out.append(
                {
                    "position": line.position,
                    "round": line.round,
                    "type": line.type,
                    "actor": line.actor,
                    "text": _text_for(line, sight),
                    "voided_by": voided.get(line.position),
                }
            )
        return out


def _words(value: Any, into: dict[str, None] | None = None) -> tuple[str, ...]:
    """Every key and text in a record's data, once each, interned (ids and names repeat from
    line to line): all that decides whether it names an unseen combatant (Words.mentions
    reads a dict's keys and values, a list's items, a text; never a number)."""
    found: dict[str, None] = {} if into is None else into
    if isinstance(value, str):
        found[sys.intern(value)] = None
    elif isinstance(value, dict):
        for k, v in value.items():
            found[sys.intern(str(k))] = None
            _words(v, found)
    elif isinstance(value, list | tuple):
        for v in value:
            _words(v, found)
    return tuple(found)


def _text_for(line: KeptLine, sight: Sight | None) -> str:
    if sight is None:
        return line.texts[0]
    return line.texts[1] if sight.health_of(line.combatant) == "exact" else line.texts[2]
