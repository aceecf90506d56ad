"""The view and the log answered from what is kept (infra.kept_reads): an answer is found by
everything that decides it — the encounter's version, who reads (the GM, or a player by his
combatants and the party: what his sight is made of), and the read's own parameters — so a
read asked again costs the checks made every time (the token's grant, the encounter's last
position, for a player the party) and a lookup; a 304 compares the kept ETag.

A new event is a new version; a player token minted or revoked changes the party; a
correction is an event: each makes a new key, never a stale answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from fastapi import Request, Response
from starlette.concurrency import run_in_threadpool

from api.etag import answer, etag_of
from infra.access import Grant
from infra.app import Fraylog

# a player's combatants and the combatants any player acts for; None: the GM (or open mode)
Viewer = tuple[frozenset[str], frozenset[str]] | None
Built = tuple[int | None, bytes]  # the version an answer was made at (None: keep it not)


def _is_gm(fraylog: Fraylog, grant: Grant | None) -> bool:
    return grant is None or grant.is_gm or not fraylog.settings.auth


def _reader(fraylog: Fraylog, encounter_id: UUID, grant: Grant | None) -> tuple[int, Viewer]:
    version = fraylog.last_position(encounter_id)
    if _is_gm(fraylog, grant):
        return version, None
    assert grant is not None
    return version, (frozenset(grant.combatants), fraylog.party(encounter_id))


async def reader(fraylog: Fraylog, encounter_id: UUID, grant: Grant | None) -> tuple[int, Viewer]:
    """The encounter's last position (404 for a missing one) and who reads it, read from
    the store every time: another process may have recorded or minted since. The GM's
    without the thread pool (its hop costs more than the read): on the calling thread from a
    SQLite file, awaited on the loop from PostgreSQL."""
    if _is_gm(fraylog, grant):
        here = fraylog.last_position_here(encounter_id)
        if here is None:
            here = await fraylog.last_position_async(encounter_id)
        if here is not None:
            return here, None
    return await run_in_threadpool(_reader, fraylog, encounter_id, grant)


async def kept_answer(
    request: Request,
    fraylog: Fraylog,
    encounter_id: UUID,
    version: int,
    key: tuple[Any, ...],
    build: Callable[[], Built],
    headers: dict[str, str] | None = None,
) -> Response:
    """The answer kept under (encounter, version, *key), else `build`'s, kept under the
    version it was made at."""
    found = fraylog.answers.get((encounter_id, version, *key))
    if found is not None:
        body, etag = found
        return answer(request, body, headers, etag)
    made_at, body = await run_in_threadpool(build)
    etag = etag_of(body)
    if made_at is not None:
        fraylog.answers.put(encounter_id, made_at, (encounter_id, made_at, *key), body, etag)
    return answer(request, body, headers, etag)
