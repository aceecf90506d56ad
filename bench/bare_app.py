"""The framework's ceiling: a bare FastAPI app with one `async def` POST at the path of
fraylog's commands that validates a small pydantic body (an `adjust_hits`) and answers
small JSON, nothing else (no store, no token, no middleware).

`python -m bench.bare_app --port P [--workers N]` serves it the way `fraylog serve` serves
fraylog (api/cli.py): `logging.basicConfig(level=INFO)`, then `uvicorn.run` of an app
factory with uvicorn's defaults (loop and HTTP parser "auto", access log on); once started,
its threads on one CPU as FRAYLOG_CPU says (infra/cpus.py, api.main's lifespan).
"""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal
from uuid import UUID

from fastapi import FastAPI
from pydantic import BaseModel, Field

from infra.cpus import settle_on_one_cpu


class AdjustHits(BaseModel):
    """The body fraylog's `adjust_hits` takes (domain.commands.AdjustHits' fields)."""

    type: Literal["adjust_hits"]
    combatant: str = Field(max_length=100)
    amount: int = Field(ge=-10_000, le=10_000)
    reason: str = Field(default="GM adjustment", max_length=200)


@asynccontextmanager
async def one_cpu(app: FastAPI) -> AsyncIterator[None]:
    """As `fraylog serve` does once started: its threads on the CPU it claims."""
    pinned = settle_on_one_cpu(os.environ.get("FRAYLOG_CPU", "off"))
    try:
        yield
    finally:
        if pinned is not None:
            pinned.release()


def make_app() -> FastAPI:
    app = FastAPI(title="bare", lifespan=one_cpu)

    @app.post("/encounters/{encounter_id}/commands")
    async def run_command(encounter_id: UUID, command: AdjustHits) -> dict[str, Any]:
        return {"encounter": str(encounter_id), "combatant": command.combatant, "ok": True}

    @app.get("/rulesets/novus")  # what bench.over_http.Server asks to know it is up
    async def ready() -> dict[str, str]:
        return {"name": "novus"}

    return app


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    p = argparse.ArgumentParser(prog="python -m bench.bare_app", description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8001)
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    uvicorn.run(
        "bench.bare_app:make_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
    )


if __name__ == "__main__":
    main()
