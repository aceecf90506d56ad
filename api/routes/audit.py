"""The audit anyone can run, with no token: verify an export file over HTTP, nothing stored
(the same report as `fraylog verify FILE`), and the public keys checkpoints are signed
with."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.deps import FraylogDep
from api.problems import PROBLEM
from domain.errors import DomainError
from projections.audit import NotAnExport, read_export, verify_export

router = APIRouter(prefix="/audit", tags=["audit"])
EXPORTS = ("application/x-ndjson", "text/csv")


@router.post(
    "/verify",
    response_model=s.Verification,
    responses={
        413: {"model": s.Problem, "content": {PROBLEM: {}}},
        422: {"model": s.Problem, "content": {PROBLEM: {}}},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "An export file as GET …/events?format=ndjson|csv wrote it.",
            "content": {kind: {"schema": {"type": "string"}} for kind in EXPORTS},
        }
    },
    operation_id="verify_export",
)
async def verify_file(request: Request, fraylog: FraylogDep) -> dict[str, Any]:
    """Verify an NDJSON or CSV export sent as the body: the hash chain, every seeded or
    revealed server die, and its checkpoint against this server's keys, as `fraylog verify
    FILE` reports them. Anyone may ask; nothing is stored. Bodies up to
    FRAYLOG_MAX_BODY_BYTES."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in EXPORTS:
        raise DomainError(
            "AUDIT",
            f"send the export as {' or '.join(EXPORTS)}, not {kind or 'no content type'}",
            field="Content-Type",
        )
    body = await request.body()
    try:
        # the read checks the chain as it goes (CPU for the whole file): off the event loop
        export = await run_in_threadpool(read_export, body.decode("utf-8-sig"))  # BOM skipped
    except (NotAnExport, UnicodeDecodeError) as e:
        raise DomainError("AUDIT", f"the body is not a fraylog export: {e}", field="body") from None
    keys = await run_in_threadpool(fraylog.checkpoints.keys)
    return await run_in_threadpool(verify_export, export, keys)


@router.get("/keys", response_model=s.SigningKeys, operation_id="get_signing_keys")
async def signing_keys(fraylog: FraylogDep) -> dict[str, Any]:
    """Every public key this installation signed checkpoints with, the current one first
    and retired ones kept (docs/audit-spec.md §6). No token: anyone verifying needs them."""
    return {"keys": await run_in_threadpool(fraylog.checkpoints.keys)}
