"""The audit anyone can run: verify an export file over HTTP, with no token and nothing
stored (the same report as `fraylog verify FILE`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from api import schemas as s
from api.problems import PROBLEM
from domain.errors import DomainError
from projections.audit import NotAnExport, records_from_export, verification

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
async def verify_export(request: Request) -> dict[str, Any]:
    """Verify an NDJSON or CSV export sent as the body: the hash chain and every seeded or
    revealed server die, as `fraylog verify FILE` reports them. Anyone may ask; nothing is
    stored. Bodies up to FRAYLOG_MAX_BODY_BYTES."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in EXPORTS:
        raise DomainError(
            "AUDIT",
            f"send the export as {' or '.join(EXPORTS)}, not {kind or 'no content type'}",
            field="Content-Type",
        )
    body = await request.body()
    try:
        records = records_from_export(body.decode("utf-8"))
    except (NotAnExport, UnicodeDecodeError) as e:
        raise DomainError("AUDIT", f"the body is not a fraylog export: {e}", field="body") from None
    return await run_in_threadpool(verification, records)
