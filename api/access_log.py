"""No token or stream ticket in the server's logs: uvicorn's access log prints each request's
path with its query string, so a client that sends a token in a URL anyway (`?access_token=`,
refused since stream tickets replaced it) or a ticket (`?ticket=`, single-use but still a
key for its minute) would leave it there in clear. A filter on uvicorn's loggers rewrites
the line first: the value of a `ticket`, `access_token` or `token` query parameter, and
anything shaped like a fraylog token or ticket wherever it is, become `[redacted]`."""

from __future__ import annotations

import atexit
import logging
import re
import sys
import time
import traceback
from collections.abc import Callable
from logging.handlers import QueueHandler, QueueListener
from queue import Empty, SimpleQueue
from typing import Any
from urllib.parse import unquote_plus

from infra.access import SECRET_PREFIX, TOKEN_SHAPE

REDACTED = "[redacted]"
SECRET_PARAMETERS = frozenset({"ticket", "access_token", "token"})
PARAMETER = re.compile(r"(?P<name>[^?&=\s\"']+)=(?P<value>[^&\s\"']*)")
SHAPE = re.compile(TOKEN_SHAPE)
LOGGERS = ("uvicorn.access", "uvicorn.error")
GATHER_SECONDS = 0.005  # how long the log's thread, woken by a line, waits for more
GATHER_MOST = 256  # lines written together at most


def redact(text: str) -> str:
    """`text` with every secret query value and every token-shaped string redacted (also
    when percent-encoded)."""
    if "=" not in text and SECRET_PREFIX not in text:  # neither pattern can match: most lines
        return text

    def parameter(m: re.Match[str]) -> str:
        name, value = unquote_plus(m["name"]).strip().lower(), unquote_plus(m["value"])
        if name in SECRET_PARAMETERS or SHAPE.search(value):
            return f"{m['name']}={REDACTED}"
        return m[0]

    return SHAPE.sub(REDACTED, PARAMETER.sub(parameter, text))


def redacted(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """A log call's arguments with each string redacted."""
    return tuple(redact(a) if isinstance(a, str) else a for a in args)


class RedactTokens(logging.Filter):
    """Rewrites a record that holds a token or a ticket (it is never dropped): each string
    argument (uvicorn's access formatter reads the path from them), and the message."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = redacted(record.args)
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


class Deferred(QueueHandler):
    """Hands each access record, as it is, to the thread that writes the log (a
    QueueHandler would format it first, on the event loop). uvicorn's access record holds
    only strings and numbers, which nothing changes after."""

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        return record


class Line(tuple):
    """An access line as uvicorn logs it, queued before it is a record: the time it was
    logged (ns), its format and its arguments."""


_FACTORY = logging.getLogRecordFactory()  # logging's own, as fraylog starts


def queued_info(logger: logging.Logger, queue: SimpleQueue) -> Callable[..., None]:
    """The access logger's `info`, as the event loop calls it once a request (uvicorn's
    `access_logger.info(format, *args)`): the line queued as it is, the record made in the
    log's thread (`Writer.prepare`). Making the record where it is logged (finding the
    caller's frame, the record's dozen fields) was ~5 % of the loop's time a command under
    load. Where making it elsewhere could change it, the logger's usual path makes it here:
    a call with keywords (none of uvicorn's), filters on the logger or a record factory of
    the host's own (either may read the request's context), handlers set up again since."""
    (deferred,) = logger.handlers  # _defer's, the logger's one handler

    def info(msg: object, *args: object, **kwargs: Any) -> None:
        if (
            kwargs
            or logger.filters
            or logger.handlers != [deferred]
            or logging.getLogRecordFactory() is not _FACTORY
        ):
            kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1  # the caller is uvicorn's
            logging.Logger.info(logger, msg, *args, **kwargs)
        elif logger.isEnabledFor(logging.INFO):
            queue.put(Line((time.time_ns(), msg, args)))

    return info


UVICORN_LINE = (
    '%s - "%s %s HTTP/%s" %d'  # uvicorn's access call: client, method, path, version, status
)
ACCESS_FIELDS = frozenset({"levelprefix", "client_addr", "request_line", "status_code"})
FIELD = re.compile(r"%\((\w+)\)")
PROBES = (  # lines a written-out line must equal the formatter's own for, each status kind
    ("127.0.0.1:50000", "POST", "/encounters/x/commands", "1.1", 200),
    ("[::1]:1", "GET", f"/e?ticket={'A' * 30}&after=2", "1.1", 404),
    ("10.0.0.1:2", "DELETE", "/e/%C3%A9", "1.0", 599),
)


class Written:
    """uvicorn's access line made by the log's thread itself, where its one handler is
    uvicorn's default (a `StreamHandler` of uvicorn's `AccessFormatter`, its format of
    uvicorn's fields only): no record, no copy of it, no status looked up each time. Under
    wrk (16 connections, SQLite) the log's thread took ~45 µs of CPU a command the usual
    way, ~25 µs this way; what any thread runs holds the one interpreter lock the event
    loop needs (docs/scaling.md). The same text as the usual path: the formatter's own
    methods make the level's prefix and each status, `PROBES` are checked against the
    formatter when the log is set up (a uvicorn that formats otherwise keeps the usual
    path), secrets are redacted as `RedactTokens` does. Any other handler, filter or call
    takes the usual path."""

    def __init__(self, handler: logging.StreamHandler, formatter: Any) -> None:
        self.handler = handler
        self.formatter = formatter
        self.filters = list(handler.filters)
        self.fmt: str = formatter._style._fmt
        self.colours: bool = formatter.use_colors
        name = logging.getLevelName(logging.INFO)
        shown = formatter.color_level_name(name, logging.INFO) if self.colours else name
        self.prefix = shown + ":" + " " * (8 - len(name))  # as uvicorn's formatMessage
        self.statuses: dict[int, str] = {}
        self.bold: Callable[[str], str] = lambda text: text
        if self.colours:
            try:  # uvicorn's own since 0.55; click's before
                from uvicorn._ansi import style
            except ImportError:
                from click import style
            self.bold = lambda text: style(text, bold=True)

    @classmethod
    def of(cls, handlers: tuple[logging.Handler, ...]) -> Written | None:
        """The line written out for these handlers, where they are uvicorn's default."""
        try:
            from uvicorn.logging import AccessFormatter
        except ImportError:  # pragma: no cover (uvicorn serves fraylog)
            return None
        if len(handlers) != 1:
            return None
        (handler,) = handlers
        formatter = handler.formatter
        if type(handler) is not logging.StreamHandler or type(formatter) is not AccessFormatter:
            return None
        style = formatter._style
        if type(style) is not logging.PercentStyle or formatter.usesTime():
            return None
        if not set(FIELD.findall(style._fmt)) <= ACCESS_FIELDS:
            return None
        if any(type(f) is not RedactTokens for f in handler.filters):
            return None
        try:
            written = cls(handler, formatter)
            same = all(written.line(p) == written.usual(p) for p in PROBES)
        except Exception:  # a uvicorn unlike the one this was written for: the usual path
            return None
        return written if same else None

    def applies(self) -> bool:
        """Whether the handler is still as it was (its formatter, filters and level)."""
        handler = self.handler
        return (
            handler.formatter is self.formatter
            and handler.filters == self.filters
            and handler.level <= logging.INFO
        )

    def line(self, args: tuple[Any, ...]) -> str:
        """One access line, as the formatter makes it of uvicorn's arguments."""
        client, method, path, version, status = redacted(args)
        shown = self.statuses.get(status)
        if shown is None:
            shown = self.statuses[status] = self.formatter.get_status_code(int(status))
        request = self.bold(f"{method} {path} HTTP/{version}")
        fields = {
            "levelprefix": self.prefix,
            "client_addr": client,
            "request_line": request,
            "status_code": shown,
        }
        return self.fmt % fields

    def usual(self, args: tuple[Any, ...]) -> str:
        """The line the handler's formatter makes of the same arguments, redacted."""
        made = logging.LogRecord("uvicorn.access", logging.INFO, "", 0, UVICORN_LINE, args, None)
        for f in self.filters:
            f.filter(made)
        return self.formatter.format(made)

    def write(self, lines: list[str]) -> None:
        """Lines written as the handler's `emit` writes each (under its lock, flushed), in
        one write; that failing, one by one, so that only a line that fails (one the
        stream cannot encode, say) is lost, reported as logging reports its errors."""
        with self.handler.lock:  # type: ignore[union-attr]
            try:
                self._put(self.handler.terminator.join(lines))
            except Exception:  # a line the stream refuses: each alone
                for line in lines:
                    _reported(self._put, line)

    def _put(self, text: str) -> None:
        self.handler.stream.write(text + self.handler.terminator)
        self.handler.flush()


class Writer(QueueListener):
    """The access log's thread: each queued line is made the record it would have been
    where it was logged (its time, the logger's filters), save where the call was made: the
    record names no file, line or function, and its thread is this one. With uvicorn's
    default handler, uvicorn's line is made without a record (`Written`).

    Woken by a line, the thread waits GATHER_SECONDS for the lines that follow it, then
    writes them together (GATHER_MOST at most a write): each wake of a thread passes the
    interpreter's lock to it and back, which under load cost the event loop more than the
    line itself (docs/scaling.md). A line is written about that much later (more only if
    writing falls behind); a server's shutdown writes every line (`drain`)."""

    def __init__(self, logger: logging.Logger, queue: SimpleQueue, *handlers: logging.Handler):
        super().__init__(queue, *handlers, respect_handler_level=True)
        self.logger = logger
        self.written = Written.of(handlers)
        self.gathered: list[str] = []  # lines made by `Written`, not yet written

    def dequeue(self, block: bool) -> Any:
        """The next queued line; none queued, the lines gathered are written and the thread
        waits for the next, then GATHER_SECONDS for those that follow it."""
        try:
            item = self.queue.get_nowait()
        except Empty:
            self._write_gathered()
            item = self.queue.get(block)
            if item is not self._sentinel:
                time.sleep(GATHER_SECONDS)
            return item
        if item is self._sentinel:  # stopping: what was gathered first
            self._write_gathered()
        return item

    def stop(self) -> None:
        super().stop()
        self._write_gathered()  # the thread has ended: nothing gathers any more

    def _write_gathered(self) -> None:
        lines, self.gathered = self.gathered, []
        if lines and self.written is not None:
            _reported(self.written.write, lines)

    def _gathered(self, record: logging.LogRecord | Line) -> bool:
        """Whether the line was made without a record (`Written`), to be written with the
        lines that follow it."""
        written = self.written
        if written is None or not isinstance(record, Line):
            return False
        _, msg, args = record
        if msg != UVICORN_LINE or len(args) != 5 or self.logger.filters:
            return False
        if not written.applies():
            return False
        self.gathered.append(written.line(args))
        if len(self.gathered) >= GATHER_MOST:  # lines that never stop coming: written all the same
            self._write_gathered()
        return True

    def prepare(self, record: logging.LogRecord | Line) -> logging.LogRecord | None:
        if not isinstance(record, Line):
            return record
        ns, msg, args = record
        made = self.logger.makeRecord(
            self.logger.name, logging.INFO, "(unknown file)", 0, msg, args, None
        )
        made.relativeCreated += (ns / 1e9 - made.created) * 1000
        made.created = ns / 1e9
        made.msecs = float((ns // 1_000_000) % 1000)
        kept = self.logger.filter(made)  # a record since Python 3.12, a bool before
        return None if not kept else kept if isinstance(kept, logging.LogRecord) else made

    def handle(self, record: logging.LogRecord | Line) -> None:  # type: ignore[override]
        """One line written (or gathered); a line that fails (a filter raising, say) is
        reported on stderr as logging reports its errors, and the thread goes on with the
        next."""
        _reported(self._handle, record)

    def _handle(self, record: logging.LogRecord | Line) -> None:
        if self._gathered(record):
            return
        self._write_gathered()  # the lines before it first
        prepared = self.prepare(record)
        if prepared is not None:
            for handler in self.handlers:
                if prepared.levelno >= handler.level:
                    handler.handle(prepared)


def _reported(work: Callable[[Any], None], arg: Any) -> None:
    """`work(arg)`, an error in it reported on stderr as logging reports its own."""
    try:
        work(arg)
    except Exception:
        if logging.raiseExceptions:
            sys.stderr.write("--- Logging error in the access log's thread ---\n")
            traceback.print_exc(file=sys.stderr)


def install() -> None:
    """The filter on uvicorn's access and error loggers, once per process (each worker makes
    its app, so each installs it). The access log is written off the event loop: its
    handlers, with the filter, run in a thread of their own (`_defer`)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if name == "uvicorn.access" and _defer(logger):
            continue
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


def _defer(logger: logging.Logger) -> bool:
    """The access logger's handlers moved behind a queue, each with the filter (a request
    only puts its record in the queue); True once done. A logger without handlers of its
    own, or one whose records also go to its parents' handlers (logging configured
    otherwise than uvicorn's default), is left as it is, filtered where it logs. The thread
    writes what is queued when the process exits; a killed process (or a worker that
    uvicorn stops without running its exit handlers) loses the lines not yet written; a
    server's shutdown writes them (`drain`)."""
    global _LISTENER
    if any(isinstance(h, Deferred) for h in logger.handlers):
        return True
    handlers = list(logger.handlers)
    if not handlers or logger.propagate:  # a record that propagates must be redacted first
        return False
    for handler in handlers:
        if not any(isinstance(f, RedactTokens) for f in handler.filters):
            handler.addFilter(RedactTokens())  # in the writing thread, before the format
    for f in [f for f in logger.filters if isinstance(f, RedactTokens)]:
        logger.removeFilter(f)
    queue: SimpleQueue[logging.LogRecord | Line] = SimpleQueue()
    logger.handlers = [Deferred(queue)]
    logger.info = queued_info(logger, queue)  # type: ignore[method-assign]  # after the handlers
    _LISTENER = Writer(logger, queue, *handlers)
    _LISTENER.start()
    atexit.unregister(drain)  # once, however many apps a process makes
    atexit.register(drain)
    return True


def drain() -> None:
    """The lines the access log's thread still holds written, and the thread stopped, its
    handlers put back on the logger (a line logged after is written where it is logged):
    at a server's shutdown (api.main's lifespan). An exit handler is not enough: uvicorn
    ends a stopped server's process by raising again the signal that stopped it, and
    SIGTERM's default action runs no exit handler, so the lines of the last requests were
    lost."""
    global _LISTENER
    listener, _LISTENER = _LISTENER, None
    if listener is None:
        return
    logger = logging.getLogger("uvicorn.access")
    logger.__dict__.pop("info", None)  # the usual path again
    if any(isinstance(h, Deferred) for h in logger.handlers):  # not set up again since
        logger.handlers = list(listener.handlers)
    listener.stop()  # writes what was queued before the handlers went back, then joins


_LISTENER: QueueListener | None = None
