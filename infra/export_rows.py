"""An encounter's stored events read straight from the recorder's table, as export records
and NDJSON lines made from the JSON the event store wrote, without making domain events:
byte for byte the records and lines projections.export makes from the events (the export
format is a published contract, docs/audit-spec.md §1). A row in any other form than the
library's JSON of an event of its class's version (one stored before an upcast, a value
the library transcodes in its data, a cipher or a compressor) is read through the
library's mapper, as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.persistence import AggregateRecorder, Mapper, StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder
from eventsourcing.utils import resolve_topic
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

from domain.audit import record, record_of, voided_by_records
from infra.history import CORRECTION_TOPICS, stored_with_topics
from projections.export import ndjson_line, ndjson_records

if TYPE_CHECKING:
    from infra.app import Fraylog

LAST = 2**62  # no `until`: every position

# How the library's JSONTranscoder writes an EncounterEvent: its timestamp (as
# datetime.isoformat wrote it, so that reading it back gives the same text), actor, cause,
# command and hash first, then its data members, then its class version. Each value as
# json.dumps(value, ensure_ascii=False, separators=(",", ":")) writes it: as an export
# line does.
HEAD = re.compile(
    r'\{"timestamp":\{"_type_":"datetime_iso","_data_":(?P<at>"[0-9]{4}-[0-9]{2}-[0-9]{2}'
    r"T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.(?!000000)[0-9]{6})?"
    r'(?:\+[0-9]{2}:[0-9]{2}|-(?!00:00)[0-9]{2}:[0-9]{2})?")\},'
    r'"actor":(?P<actor>"[^"\\]*(?:\\.[^"\\]*)*"),"cause":(?P<cause>null|-?[0-9]+),'
    r'"command":(?P<command>-?[0-9]+),"hash":(?P<hash>"[0-9a-f]{64}")'
)
# in the data members' text: a value the library decodes into an object, or a member that
# is none of the record's data (a created event's topic, an upcast's record as written)
NOT_DATA = ('"_type_"', '"originator_topic"', '"recorded_as"', '"class_version"')


Row = Sequence[Any]  # a stored event's position, topic and state, as selected


@lru_cache(maxsize=1024)
def written_as(topic: str) -> tuple[str, str, str]:
    """The record type of a stored topic, as a value and as JSON, and how its row's JSON
    ends (with its class version)."""
    cls = resolve_topic(topic)
    version = getattr(cls, "class_version", 1)
    end = f',"class_version":{version}}}' if version > 1 else "}"
    return cls.__name__, json.dumps(cls.__name__), end


def _parts(state: bytes, end: str) -> tuple[tuple[str, ...], str] | None:
    """A row's head (timestamp, actor, cause, command, hash) and data members, as JSON
    text, its JSON ending in `end` (written_as); None for a row in any other form."""
    text = state.decode() if type(state) is bytes else bytes(state).decode()
    head = HEAD.match(text)
    if head is None or not text.endswith(end):
        return None
    start, stop = head.end(), len(text) - len(end)
    if start == stop:
        return head.groups(), ""
    if text[start] != ",":
        return None
    data = text[start + 1 : stop]
    if NOT_DATA[0] in data or NOT_DATA[1] in data or NOT_DATA[2] in data or NOT_DATA[3] in data:
        return None
    return head.groups(), data


class StoredLog:
    """One encounter's stored rows, a page at a time, as export records or NDJSON lines."""

    @classmethod
    def of(cls, fraylog: Fraylog) -> StoredLog:
        return cls(fraylog.recorder, fraylog.mapper, fraylog.settings.page_size)

    def __init__(self, recorder: AggregateRecorder, mapper: Mapper[UUID], page_size: int) -> None:
        self.recorder, self.mapper, self.page_size = recorder, mapper, page_size
        # a cipher or a compressor: no row is JSON to read here
        self.plain = mapper.cipher is None and mapper.compressor is None
        self.postgres = isinstance(recorder, PostgresAggregateRecorder)

    def _rows(self, where: str, params: Sequence[Any]) -> list[Row]:
        """The rows of the events table WHERE `where` (`?` placeholders)."""
        columns = "originator_version, topic, state"
        if self.postgres:
            datastore = self.recorder.datastore  # type: ignore[attr-defined]
            table = SQL("{}.{}").format(
                Identifier(datastore.schema),
                Identifier(self.recorder.events_table_name),  # type: ignore[attr-defined]
            )
            query = SQL(f"SELECT {columns} FROM {{}} WHERE {where.replace('?', '%s')}")
            with datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as c:
                c.execute(query.format(table), params, prepare=True)
                return c.fetchall()
        table = self.recorder.events_table_name  # type: ignore[attr-defined]
        with self.recorder.datastore.transaction(commit=False) as c:  # type: ignore[attr-defined]
            c.execute(f"SELECT {columns} FROM {table} WHERE {where}", params)
            return c.fetchall()

    def _id(self, encounter_id: UUID) -> Any:
        return encounter_id if self.postgres else encounter_id.hex

    def pages(
        self, encounter_id: UUID, after: int = 0, until: int | None = None
    ) -> Iterator[list[Row]]:
        """The rows after position `after` up to `until`, a page at a time, in order."""
        query = "originator_id = ? AND originator_version > ? AND originator_version <= ?"
        query += " ORDER BY originator_version LIMIT ?"
        last = LAST if until is None else until
        while True:
            page = self._rows(query, (self._id(encounter_id), after, last, self.page_size))
            if page:
                yield page
            if len(page) < self.page_size:
                return
            after = page[-1][0]

    def voided(self, encounter_id: UUID, until: int | None = None) -> dict[int, int]:
        """Position -> the correction voiding it (domain.corrections.voided_by), from the
        corrections' rows alone (read by their topics, infra.history), made into records
        from their JSON: the log is not read twice for them."""
        last = LAST if until is None else until
        stored = stored_with_topics(self.recorder, encounter_id, last, CORRECTION_TOPICS)
        rows = [(s.originator_version, s.topic, s.state) for s in stored]
        return voided_by_records([self.record(encounter_id, row) for row in rows])

    def record(self, encounter_id: UUID, row: Row) -> dict[str, Any]:
        """A row as projections.export.records makes its event's record (no voided_by)."""
        position, topic, state = row
        kind, _, end = written_as(topic)
        parts = _parts(state, end) if self.plain else None
        if parts is None:
            return record_of(self._event(encounter_id, row))
        (at, actor, cause, command, hashed), data = parts
        rec = record(
            kind,
            position,
            at[1:-1],
            actor[1:-1] if "\\" not in actor else json.loads(actor),
            None if cause == "null" else int(cause),
            int(command),
            json.loads("{" + data + "}"),
        )
        rec["hash"] = hashed[1:-1]
        return rec

    def records(
        self, encounter_id: UUID, rows: Iterable[Row], voided: dict[int, int]
    ) -> Iterator[dict[str, Any]]:
        """projections.export.records of the rows' events."""
        for row in rows:
            rec = self.record(encounter_id, row)
            rec["voided_by"] = voided.get(row[0])
            yield rec

    def ndjson(
        self, encounter_id: UUID, rows: Iterable[Row], voided: dict[int, int]
    ) -> Iterator[str]:
        """projections.export.ndjson_lines of the rows' events, made from their JSON text."""
        for row in rows:
            position, topic, state = row
            _, kind, end = written_as(topic)
            parts = _parts(state, end) if self.plain else None
            if parts is None:
                rec = record_of(self._event(encounter_id, row))
                rec["voided_by"] = voided.get(position)
                yield from ndjson_records([rec])
            else:
                yield ndjson_line(position, kind, parts[0], parts[1], voided.get(position))

    def _event(self, encounter_id: UUID, row: Row) -> Any:
        """The row's domain event, as the library's mapper reads it."""
        position, topic, state = row
        return self.mapper.to_domain_event(StoredEvent(encounter_id, position, topic, bytes(state)))
