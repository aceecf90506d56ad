"""What the encounter routes share: the refusals each documents, the position queries, a
new encounter's answer, and what a player's token may see (docs/visibility.md)."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import Query

from api import schemas as s
from api.problems import PROBLEM
from api.schemas import MAX_POSITION
from infra.access import Grant
from infra.app import Fraylog
from projections.view import encounter_view
from projections.visibility import Sight

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": s.Problem, "content": {PROBLEM: {}}}
    for code in (400, 401, 403, 404, 409, 413, 422)
}
After = Annotated[
    int,
    Query(ge=0, le=MAX_POSITION, description="Only events after position N (a page's start)."),
]
Until = Annotated[
    int | None, Query(ge=1, le=MAX_POSITION, description="Only events up to position N.")
]


def created(fraylog: Fraylog, state: Any) -> dict[str, Any]:
    """The view of a new encounter with its GM token, shown once."""
    token = fraylog.access.mint(state.id, "gm") if fraylog.settings.auth else None
    return {**encounter_view(state), "gm_token": token}


def _a_player(fraylog: Fraylog, grant: Grant | None) -> Grant | None:
    """The grant if it is a player's; None for the GM (and in open mode, where everyone is)."""
    return None if grant is None or grant.is_gm or not fraylog.settings.auth else grant


def reads_all(fraylog: Fraylog, grant: Grant | None) -> bool:
    """Whether `grant` reads everything (the GM, or anyone in open mode): its answers need
    no sight, so nothing more is read from the store to make them."""
    return _a_player(fraylog, grant) is None


def sight_at(fraylog: Fraylog, grant: Grant | None, state: Any) -> Sight | None:
    """What a player's token may not see at `state` (docs/visibility.md); None for the GM."""
    player = _a_player(fraylog, grant)
    return None if player is None else fraylog.sight(UUID(state.id), player, state)


def player_sight(fraylog: Fraylog, encounter_id: UUID, grant: Grant | None) -> Sight | None:
    """A player's sight as the encounter stands now; the GM's reads load nothing more."""
    player = _a_player(fraylog, grant)
    return None if player is None else fraylog.sight(encounter_id, player)
