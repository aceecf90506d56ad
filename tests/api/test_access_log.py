"""The access log written off the event loop (api/access_log.py): a server's shutdown writes
every line its thread still holds (`drain`), since uvicorn then ends the process by the
signal that stopped it and no exit handler runs."""

from __future__ import annotations

import io
import logging
import sys
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import pytest

from api import access_log


@pytest.fixture
def access_logger() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """uvicorn's access logger as uvicorn configures it (a handler of its own, not passing
    records to its parents), writing to a string; put back as it was after."""
    logger = logging.getLogger("uvicorn.access")
    kept = (list(logger.handlers), list(logger.filters), logger.propagate, logger.level)
    written = io.StringIO()
    handler = logging.StreamHandler(written)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.handlers, logger.filters, logger.propagate = [handler], [], False
    logger.setLevel(logging.INFO)
    try:
        yield logger, written
    finally:
        access_log.drain()
        logger.handlers, logger.filters, logger.propagate = kept[0], kept[1], kept[2]
        logger.setLevel(kept[3])


def test_given_lines_queued_for_the_log_thread_when_the_server_drains_it_then_all_are_written(
    access_logger: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, written = access_logger
    access_log.install()
    assert isinstance(logger.handlers[0], access_log.Deferred)  # given: written off the loop
    for n in range(500):
        logger.info('"POST /encounters/%s/commands HTTP/1.1" 200', n)
    # when
    access_log.drain()
    # then: every line, in order, and the next ones written where they are logged
    assert written.getvalue().splitlines() == [
        f'"POST /encounters/{n}/commands HTTP/1.1" 200' for n in range(500)
    ]
    assert not any(isinstance(h, access_log.Deferred) for h in logger.handlers)
    path = f"/s?ticket={'A' * 30}"
    logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:1", "GET", path, "1.1", 200)
    last = written.getvalue().splitlines()[-1]
    assert last == '127.0.0.1:1 - "GET /s?ticket=[redacted] HTTP/1.1" 200'  # still redacted


def test_given_a_drained_log_when_another_app_is_made_then_its_lines_go_off_the_loop_again(
    access_logger: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, written = access_logger
    access_log.install()
    access_log.drain()
    # when
    access_log.install()
    deferred = logger.handlers
    logger.info("one more")
    access_log.drain()
    # then
    assert [type(h) for h in deferred] == [access_log.Deferred]
    assert written.getvalue().splitlines() == ["one more"]


def test_given_the_log_off_the_loop_when_uvicorn_logs_then_the_record_is_made_in_its_thread(
    access_logger: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, written = access_logger
    logger.handlers[0].setFormatter(logging.Formatter("%(created).6f %(msecs)03d %(message)s"))
    access_log.install()
    made_in: list[int] = []
    make = logger.makeRecord

    def noted(*args: Any, **kwargs: Any) -> logging.LogRecord:
        made_in.append(threading.get_ident())
        return make(*args, **kwargs)

    logger.makeRecord = noted  # type: ignore[method-assign]
    path = f"/encounters/e?ticket={'A' * 30}"
    before = time.time()
    # when: the call uvicorn makes on the event loop for each answer
    logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:1", "GET", path, "1.1", 200)
    after = time.time()
    time.sleep(0.05)
    access_log.drain()
    # then: the loop only queued it; the line is written redacted, with the time it was logged
    assert made_in and threading.get_ident() not in made_in
    created, msecs, line = written.getvalue().strip().split(" ", 2)
    assert line == '127.0.0.1:1 - "GET /encounters/e?ticket=[redacted] HTTP/1.1" 200'
    assert before - 1e-6 <= float(created) <= after + 1e-6  # printed to the microsecond
    assert int(msecs) == int(float(created) * 1000) % 1000


def test_given_the_log_off_the_loop_when_lines_are_logged_then_filters_and_keywords_apply(
    access_logger: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, written = access_logger
    logger.handlers[0].setFormatter(logging.Formatter("%(filename)s %(message)s"))
    request: ContextVar[str] = ContextVar("request", default="none")
    seen: list[tuple[str, int]] = []

    def health_left_out(record: logging.LogRecord) -> bool:  # the host's own, reading context
        seen.append((request.get(), threading.get_ident()))
        return "/health" not in record.getMessage()

    access_log.install()
    logger.addFilter(health_left_out)
    request.set("r-1")
    # when
    logger.info('"GET %s HTTP/1.1" 200', "/health")
    logger.info('"GET %s HTTP/1.1" 200', "/encounters")
    logger.removeFilter(health_left_out)
    logger.info('"GET %s HTTP/1.1" %d', "/rulesets", 200, stacklevel=1)  # the usual path
    logger.setLevel(logging.WARNING)
    logger.info('"GET %s HTTP/1.1" 200', "/quiet")  # below the logger's level: nothing
    access_log.drain()
    # then: the filter ran where the line was logged, in its context; each line names its caller
    assert seen == [("r-1", threading.get_ident())] * 2
    assert written.getvalue().splitlines() == [
        'test_access_log.py "GET /encounters HTTP/1.1" 200',
        'test_access_log.py "GET /rulesets HTTP/1.1" 200',
    ]


def test_given_the_log_off_the_loop_when_a_line_fails_then_the_next_lines_are_written(
    access_logger: tuple[logging.Logger, io.StringIO], capsys: pytest.CaptureFixture[str]
) -> None:
    logger, written = access_logger
    failed: list[str] = []

    def fails_once(record: logging.LogRecord) -> bool:  # on the handler: in the log's thread
        if not failed:
            failed.append(record.getMessage())
            raise RuntimeError("a filter that fails")
        return True

    logger.handlers[0].addFilter(fails_once)
    access_log.install()
    # when
    for n in range(3):
        logger.info('"GET /encounters/%s HTTP/1.1" 200', n)
    access_log.drain()
    # then: the failure reported, the thread still writing
    assert failed == ['"GET /encounters/0 HTTP/1.1" 200']
    assert written.getvalue().splitlines() == [
        '"GET /encounters/1 HTTP/1.1" 200',
        '"GET /encounters/2 HTTP/1.1" 200',
    ]
    assert "a filter that fails" in capsys.readouterr().err


def test_given_the_log_off_the_loop_when_its_handlers_are_set_up_again_then_lines_go_to_them(
    access_logger: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, written = access_logger
    access_log.install()
    again = io.StringIO()
    # when: a handler added after the app was made, then logging configured again
    logger.addHandler(logging.StreamHandler(added := io.StringIO()))
    logger.info('"GET %s HTTP/1.1" 200', "/rulesets")
    logger.handlers = [logging.StreamHandler(again)]
    logger.info('"GET %s HTTP/1.1" 200', "/encounters")
    access_log.drain()
    # then
    assert added.getvalue() == written.getvalue() == '"GET /rulesets HTTP/1.1" 200\n'
    assert again.getvalue() == '"GET /encounters HTTP/1.1" 200\n'


class CountedWrites(io.StringIO):
    """A stream that counts its writes."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def uvicorns_handler(logger: logging.Logger, colours: bool) -> CountedWrites:
    """The access logger's handler as `uvicorn.run` sets it up (uvicorn's LOGGING_CONFIG: a
    StreamHandler of its AccessFormatter), writing to a stream that counts its writes."""
    from uvicorn.config import LOGGING_CONFIG
    from uvicorn.logging import AccessFormatter

    stream = CountedWrites()
    handler = logging.StreamHandler(stream)
    fmt = LOGGING_CONFIG["formatters"]["access"]["fmt"]
    handler.setFormatter(AccessFormatter(fmt, use_colors=colours))
    logger.handlers = [handler]
    return stream


UVICORN_CALLS = [  # (client, method, path, HTTP version, status), as uvicorn logs an answer
    ("127.0.0.1:50412", "POST", "/encounters/e/commands", "1.1", 200),
    ("[::1]:9", "GET", f"/encounters/e/stream?ticket={'T' * 30}&x=1", "1.1", 404),
    ("10.0.0.2:3", "GET", "/encounters/e/log?after=3", "1.0", 304),
    ("10.0.0.2:4", "DELETE", "/caf%C3%A9", "1.1", 599),  # no phrase for it
    ("10.0.0.2:5", "POST", "/encounters", "1.1", 500),
]


@pytest.mark.parametrize("colours", [False, True])
def test_given_uvicorns_handler_when_it_logs_answers_then_each_line_is_the_formatters_own(
    access_logger: tuple[logging.Logger, io.StringIO],
    monkeypatch: pytest.MonkeyPatch,
    colours: bool,
) -> None:
    logger, _ = access_logger
    stream = uvicorns_handler(logger, colours)
    formatter = logger.handlers[0].formatter
    assert formatter is not None
    expected = []
    for call in UVICORN_CALLS:  # what uvicorn's formatter writes of a redacted record
        record = logging.LogRecord(
            "uvicorn.access", logging.INFO, "", 0, access_log.UVICORN_LINE, call, None
        )
        access_log.RedactTokens().filter(record)
        expected.append(formatter.format(record))
    access_log.install()
    assert access_log._LISTENER is not None and access_log._LISTENER.written is not None

    def no_record(*args: Any) -> None:
        raise AssertionError("a record made for one of uvicorn's lines")

    monkeypatch.setattr(access_log.Writer, "prepare", no_record)
    # when: uvicorn's calls, on the event loop
    for call in UVICORN_CALLS:
        logger.info(access_log.UVICORN_LINE, *call)
    access_log.drain()
    # then: the same lines, made without a record; secrets redacted, colours as set
    assert stream.getvalue().splitlines() == expected
    assert "[redacted]" in expected[1] and "T" * 30 not in stream.getvalue()
    assert ("\x1b[" in stream.getvalue()) is colours


def test_given_uvicorns_handler_when_lines_come_together_then_they_are_written_together_in_order(
    access_logger: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, _ = access_logger
    stream = uvicorns_handler(logger, colours=False)
    access_log.install()
    # when: a burst of answers, one of them logged with a keyword (the usual path: a record)
    for n in range(100):
        keywords = {"stacklevel": 1} if n == 50 else {}
        logger.info(
            access_log.UVICORN_LINE, "127.0.0.1:1", "POST", f"/e/{n}", "1.1", 200, **keywords
        )
    access_log.drain()
    # then: every line, in order, in fewer writes than lines (the thread waits for more)
    lines = stream.getvalue().splitlines()
    assert [line.split('"')[1] for line in lines] == [f"POST /e/{n} HTTP/1.1" for n in range(100)]
    assert stream.writes < 100


def test_given_a_handler_of_the_hosts_own_when_the_log_is_installed_then_lines_take_the_usual_path(
    access_logger: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, _ = access_logger  # a plain Formatter: not uvicorn's
    from uvicorn.logging import AccessFormatter

    access_log.install()
    plain = access_log._LISTENER
    access_log.drain()
    logger.handlers[0].setFormatter(AccessFormatter("%(asctime)s %(client_addr)s"))
    access_log.install()
    timed = access_log._LISTENER
    access_log.drain()
    # then: neither is written out by fraylog (a time in the format: the formatter makes it)
    assert plain is not None and plain.written is None
    assert timed is not None and timed.written is None


def test_given_uvicorns_handler_when_a_line_cannot_be_written_then_only_that_line_is_lost(
    access_logger: tuple[logging.Logger, io.StringIO], capsys: pytest.CaptureFixture[str]
) -> None:
    logger, _ = access_logger
    stream = uvicorns_handler(logger, colours=False)

    def refusing(text: str) -> int:  # a stream that cannot take one of the lines
        if "/bad" in text:
            raise UnicodeEncodeError("ascii", text, 0, 1, "a line it cannot encode")
        return CountedWrites.write(stream, text)

    stream.write = refusing  # type: ignore[method-assign]
    access_log.install()
    # when: a burst, one line of which the stream refuses
    for path in ("/e/1", "/bad", "/e/2", "/e/3"):
        logger.info(access_log.UVICORN_LINE, "127.0.0.1:1", "GET", path, "1.1", 200)
    access_log.drain()
    # then: the others written, in order; the failure reported
    assert [line.split('"')[1] for line in stream.getvalue().splitlines()] == [
        "GET /e/1 HTTP/1.1",
        "GET /e/2 HTTP/1.1",
        "GET /e/3 HTTP/1.1",
    ]
    assert "a line it cannot encode" in capsys.readouterr().err


def test_given_lines_that_keep_coming_when_gathered_then_each_write_holds_at_most_the_limit(
    access_logger: tuple[logging.Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, _ = access_logger
    monkeypatch.setattr(access_log, "GATHER_MOST", 10)
    stream = uvicorns_handler(logger, colours=False)
    sizes: list[int] = []

    def counted(text: str) -> int:
        sizes.append(text.count("\n"))
        return CountedWrites.write(stream, text)

    stream.write = counted  # type: ignore[method-assign]
    access_log.install()
    # when
    for n in range(100):
        logger.info(access_log.UVICORN_LINE, "127.0.0.1:1", "GET", f"/e/{n}", "1.1", 200)
    access_log.drain()
    # then: all written, none more than ten at a time
    assert sum(sizes) == 100 and max(sizes) <= 10
    assert len(stream.getvalue().splitlines()) == 100


def test_given_an_older_uvicorn_when_colours_are_on_then_lines_are_still_its_formatters(
    access_logger: tuple[logging.Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, _ = access_logger
    stream = uvicorns_handler(logger, colours=True)
    monkeypatch.setitem(sys.modules, "uvicorn._ansi", None)  # as before uvicorn 0.55: click's
    formatter = logger.handlers[0].formatter
    assert formatter is not None
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, "", 0, access_log.UVICORN_LINE, UVICORN_CALLS[0], None
    )
    expected = formatter.format(record)
    # when
    access_log.install()
    written = access_log._LISTENER and access_log._LISTENER.written
    logger.info(access_log.UVICORN_LINE, *UVICORN_CALLS[0])
    access_log.drain()
    # then: the server starts, fraylog still makes the line, and it is the formatter's
    assert written is not None
    assert stream.getvalue().splitlines() == [expected]
