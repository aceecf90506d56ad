"""Dependencies shared by the routes: the application, and who is asking."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import Depends, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from domain.access import Forbidden
from domain.errors import DomainError
from infra.access import GM_ROLE, Grant
from infra.accounts import Account, is_account_key
from infra.app import EncounterNotFound, Fraylog
from infra.feed import Feed
from projections.narrative import LANGS, Lang

bearer = HTTPBearer(
    auto_error=False,
    description="A token minted by fraylog: the GM's (from POST /encounters) or a player's "
    "(from POST /encounters/{id}/tokens). Not needed when the server runs with --no-auth.",
)
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


# Dependencies are `async` where they do no I/O (or only on a cache miss): FastAPI runs a
# plain `def` dependency in the thread pool, a hop that costs more than the work.


async def get_fraylog(request: Request) -> Fraylog:
    return request.app.state.fraylog


async def get_feed(request: Request) -> Feed:
    return request.app.state.feed


FraylogDep = Annotated[Fraylog, Depends(get_fraylog)]
FeedDep = Annotated[Feed, Depends(get_feed)]


class Unauthenticated(DomainError):
    status = 401
    title = "Token needed"
    headers = {"WWW-Authenticate": "Bearer"}  # noqa: RUF012


def open_grant(encounter_id: str) -> Grant:
    """Open mode (`fraylog serve --no-auth`): everyone is the GM of everything."""
    return Grant(encounter_id, GM_ROLE, label="open", token_hash="open")


async def _grant(fraylog: Fraylog, token: str) -> Grant | None:
    """What a token allows: from memory when it was seen lately, else from the store (on
    the event loop where it can be read there: PostgreSQL)."""
    read, grant = await fraylog.access.grant_on_loop(token)
    return grant if read else await run_in_threadpool(fraylog.access.grant, token)


async def _account(fraylog: Fraylog, key: str) -> Account | None:
    """The account of an account key: from memory when it was seen lately, else the store."""
    known, account = fraylog.accounts.cached(key)
    return account if known else await run_in_threadpool(fraylog.accounts.by_key, key)


async def _account_grant(fraylog: Fraylog, encounter_id: UUID, key: str) -> Grant | None:
    """An account key is the GM's token on every encounter its account owns."""
    account = await _account(fraylog, key)
    if account is None:
        return None
    if not await run_in_threadpool(fraylog.accounts.owns, account, str(encounter_id)):
        return None
    return Grant(str(encounter_id), GM_ROLE, label="account", token_hash=account.key_hash)


async def grant_without_threads(
    fraylog: Fraylog, encounter_id: UUID, token: str | None
) -> Grant | None:
    """The grant `grant_for` gives `token` where it is had without the thread pool:
    `grant_in_memory`, or a token of this encounter read on the event loop (PostgreSQL);
    None where `grant_for` must be asked, which may read the store in a worker thread or
    refuse (a token refused here is read again there: a second read, on refusals only)."""
    grant = grant_in_memory(fraylog, encounter_id, token)
    if grant is not None or not token or is_account_key(token):
        return grant
    read, grant = await fraylog.access.grant_on_loop(token)
    if read and grant is not None and grant.encounter_id == str(encounter_id):
        return grant
    return None


def grant_in_memory(fraylog: Fraylog, encounter_id: UUID, token: str | None) -> Grant | None:
    """The grant `grant_for` gives `token` where it is had without I/O: open mode, or a
    token of this encounter read lately (not an account key); None where `grant_for` must
    be asked, which may read the store or refuse."""
    if not fraylog.settings.auth:
        return open_grant(str(encounter_id))
    if not token or is_account_key(token):
        return None
    known, grant = fraylog.access.cached_grant(token)
    if known and grant is not None and grant.encounter_id == str(encounter_id):
        return grant
    return None


async def grant_for(fraylog: Fraylog, encounter_id: UUID, token: str | None) -> Grant:
    """The grant of a token for this encounter; a missing token, an unknown one or one of
    another encounter is told the encounter does not exist (ids cannot be probed). An
    account key is the GM's on the encounters its account owns."""
    grant = grant_in_memory(fraylog, encounter_id, token)
    if grant is not None:
        return grant
    if token and is_account_key(token):
        grant = await _account_grant(fraylog, encounter_id, token)
    else:
        grant = await _grant(fraylog, token) if token else None
    if grant is None or grant.encounter_id != str(encounter_id):
        raise EncounterNotFound("ENCOUNTER", f"no encounter {encounter_id}")
    return grant


async def reader(encounter_id: UUID, fraylog: FraylogDep, credentials: Credentials) -> Grant:
    """The GM or a player of this encounter."""
    token = credentials.credentials if credentials else None
    return await grant_for(fraylog, encounter_id, token)


async def gm(grant: Annotated[Grant, Depends(reader)]) -> Grant:
    """The GM of this encounter."""
    if not grant.is_gm:
        raise Forbidden("ROLE", "only the GM of this encounter may do this", field="Authorization")
    return grant


async def token_grant(fraylog: FraylogDep, credentials: Credentials) -> Grant | None:
    """The grant of the token sent, if any (for routes not about one encounter)."""
    if not fraylog.settings.auth:
        return None
    grant = await _grant(fraylog, credentials.credentials) if credentials else None
    if grant is None:
        raise Unauthenticated(
            "TOKEN", "send the Authorization: Bearer token of an encounter", field="Authorization"
        )
    return grant


async def account(fraylog: FraylogDep, credentials: Credentials) -> Account:
    """The account whose key is sent (routes of an account: its encounters, its roster)."""
    key = credentials.credentials if credentials else ""
    found = await _account(fraylog, key) if is_account_key(key) else None
    if found is None:
        raise Unauthenticated(
            "ACCOUNT",
            "send the Authorization: Bearer key of an account (POST /accounts makes one)",
            field="Authorization",
        )
    return found


async def maybe_account(fraylog: FraylogDep, credentials: Credentials) -> Account | None:
    """The account whose key is sent, if an account key is sent (else None: a token, or
    nothing)."""
    if credentials is None or not is_account_key(credentials.credentials):
        return None
    return await account(fraylog, credentials)


AccountDep = Annotated[Account, Depends(account)]
MaybeAccountDep = Annotated[Account | None, Depends(maybe_account)]
ReaderDep = Annotated[Grant, Depends(reader)]
GmDep = Annotated[Grant, Depends(gm)]


def actor_of(fraylog: Fraylog, grant: Grant, body_actor: str | None) -> str:
    """Events' `actor`: the token's; a body's `actor` only in open mode."""
    if not fraylog.settings.auth:
        return body_actor or GM_ROLE
    if body_actor is not None:
        raise DomainError(
            "ACTOR", "the actor comes from the bearer token, not from the body", field="actor"
        )
    return grant.actor


# query parameters no route takes any more, with what to do instead
RETIRED_QUERY = {
    "access_token": "access_token is no longer taken (a token in a URL ends up in logs): "
    "send the token in the Authorization header, or open the live feed with a stream "
    "ticket, GET /encounters/{id}/stream?ticket=… from POST /encounters/{id}/stream-tickets",
}


def _known(route: object) -> frozenset[str] | None:
    """The query parameters a route takes, its own and its dependencies' (kept on the
    route: they never change once it is made)."""
    known = getattr(route, "fraylog_known_query", None)
    if known is not None:
        return known
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return None
    names: set[str] = set()
    pending = [dependant]
    while pending:
        d = pending.pop()
        names |= {p.alias for p in d.query_params}
        pending += d.dependencies
    known = frozenset(names)
    route.fraylog_known_query = known  # type: ignore[attr-defined]
    return known


async def known_query(request: Request) -> None:
    """Refuse query parameters the route does not take (a typo like `untill` is not
    silently ignored)."""
    route = request.scope.get("route")
    if not request.scope.get("query_string"):
        return
    known = _known(route)
    if known is None:
        return
    unknown = sorted(set(request.query_params) - known)
    for name in unknown:
        if name in RETIRED_QUERY:
            raise DomainError("QUERY", RETIRED_QUERY[name], field=name)
    if unknown:
        raise DomainError(
            "QUERY",
            f"unknown query parameter {unknown[0]!r}; this route takes "
            f"{', '.join(sorted(known)) or 'none'}",
            field=unknown[0],
        )


LANG_SCHEMA = {"enum": list(LANGS)}


def _checked_lang(lang: str) -> Lang:
    for known in LANGS:
        if lang == known:
            return known
    raise DomainError("LANG", f"lang is 'en' or 'es', not {lang!r}", field="lang")


async def log_lang(
    lang: Annotated[
        str,
        Query(
            description="The lines' language: `en` (the default) or `es`, Spanish, offered "
            "for PHANTÄSIA encounters (any other encounter: 422, rule `LANG`). An event "
            "type without a Spanish line keeps its English one.",
            json_schema_extra=LANG_SCHEMA,
        ),
    ] = "en",
) -> Lang:
    """The narrative log's `lang` (checked against the encounter's ruleset by the route)."""
    return _checked_lang(lang)


async def error_lang(
    lang: Annotated[
        str | None,
        Query(
            description="The language of a refusal's `detail`: `es` for Spanish (with "
            "`Content-Language: es`), `en` for English. Without it, the first language of "
            "`Accept-Language` decides; English is the default.",
            json_schema_extra=LANG_SCHEMA,
        ),
    ] = None,
) -> Lang | None:
    """The `lang` of a command's refusals (the problem handler reads it from the query)."""
    return None if lang is None else _checked_lang(lang)
