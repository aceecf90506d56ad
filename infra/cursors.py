"""Cursors of keyset pages: the sort key of a page's last row and its id, opaque to clients
(URL-safe base64), given back as `after` for the next page."""

from __future__ import annotations

import base64
from uuid import UUID

from domain.errors import DomainError


def cursor(key: str, row_id: str) -> str:
    """The `next` of a page whose last row sorts by `key` and has the id `row_id`."""
    return base64.urlsafe_b64encode(f"{key}|{row_id}".encode()).decode().rstrip("=")


def after(given: str) -> tuple[str, str]:
    """The (key, id) a cursor holds; a cursor no page gave is a 422 naming `after`."""
    try:
        raw = base64.urlsafe_b64decode(given + "=" * (-len(given) % 4)).decode()
        key, row_id = raw.split("|")
        UUID(row_id)
    except ValueError:  # bad base64, not UTF-8, not two parts, not an id
        raise DomainError(
            "QUERY", "after is the `next` of a previous page, unchanged", field="after"
        ) from None
    return key, row_id
