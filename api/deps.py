"""Dependencies shared by the routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from infra.app import Fraylog


def get_fraylog(request: Request) -> Fraylog:
    return request.app.state.fraylog


FraylogDep = Annotated[Fraylog, Depends(get_fraylog)]
