"""GM accounts: make one (its key is shown once) and read what it holds."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from api.deps import AccountDep, FraylogDep
from api.routes.common import ERRORS

router = APIRouter(prefix="/accounts", tags=["accounts"])


class AccountCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=80, description="Whose account, e.g. 'Marta'.")


class AccountPublic(BaseModel):
    id: str = Field(description="The account's id (not a secret; the key is).")
    name: str
    created_at: str = Field(description="ISO 8601, UTC.")
    encounters: int = Field(description="Encounters the account owns.")
    max_encounters: int = Field(
        description="How many it may own (FRAYLOG_MAX_ENCOUNTERS_PER_ACCOUNT)."
    )


class AccountOpened(AccountPublic):
    key: str = Field(
        description="The account key, shown only in this answer (only its hash is kept). "
        "Send it as `Authorization: Bearer <key>`: POST /encounters with it makes encounters "
        "the account owns, and it is the GM's token on each of them."
    )


def _public(fraylog: Any, account: Any) -> dict[str, Any]:
    return {
        "id": account.id,
        "name": account.name,
        "created_at": account.created_at,
        "encounters": fraylog.accounts.count(account),
        "max_encounters": fraylog.settings.max_encounters_per_account,
    }


@router.post(
    "",
    status_code=201,
    response_model=AccountOpened,
    responses=ERRORS,
    operation_id="open_account",
)
async def open_account(body: AccountCreate, fraylog: FraylogDep) -> dict[str, Any]:
    """A GM account. The answer holds its key: keep it, it is shown only once."""
    account, key = await run_in_threadpool(fraylog.accounts.open, body.name)
    return {**await run_in_threadpool(_public, fraylog, account), "key": key}


@router.get("/me", response_model=AccountPublic, responses=ERRORS, operation_id="get_account")
async def get_account(account: AccountDep, fraylog: FraylogDep) -> dict[str, Any]:
    """The account whose key is sent."""
    return await run_in_threadpool(_public, fraylog, account)
