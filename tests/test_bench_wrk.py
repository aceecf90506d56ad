"""`make bench`'s yardsticks read wrk's runs (bench.wrk_runs): the summary line the Lua
script prints, the tables it is given, the medians of repeated runs."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from bench.server_cpu import cpu_of
from bench.wrk_runs import Runs, Table, WrkFailed, WrkRun, parse, run, wrk_path

needs_wrk = pytest.mark.skipif(
    wrk_path() is None, reason="wrk is not installed (apt-get install wrk)"
)

WRK_OUTPUT = """Running 5s test @ http://127.0.0.1:40000
  4 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.20ms  300.00us   9.10ms   80.00%
  Latency Distribution
     50%    1.10ms
     99%    3.00ms
  12000 requests in 5.00s, 2.10MB read
Requests/sec:   2400.00
FRAYLOG_WRK {"requests": 12000, "duration_us": 5000000, "p50_us": 1100, "p90_us": 1800, \
"p99_us": 3000, "max_us": 9100, "mean_us": 1200.5, "unexpected": 0, "unexpected_status": 0, \
"connect": 0, "read": 0, "write": 0, "status": 0, "timeout": 1, "threads": 4}
"""


def run_of(requests: int, p99_us: int) -> WrkRun:
    return WrkRun(requests, 1_000_000, 1000, 2000, p99_us, p99_us, 1100.0)


def test_given_wrk_output_when_parsed_then_the_summary_line_gives_rate_and_latencies() -> None:
    # given what wrk prints for a 5 s run, its own report then the script's summary line
    # when it is parsed
    run = parse(WRK_OUTPUT)
    # then the rate is answers per second of the run, and the latencies are wrk's
    assert run.rate == pytest.approx(2400.0)
    assert (run.p50_us, run.p99_us, run.threads) == (1100, 3000, 4)
    assert run.errors == 1  # the one timeout


def test_given_wrk_output_without_the_summary_when_parsed_then_it_fails() -> None:
    # given wrk's report alone (the script did not run)
    text = WRK_OUTPUT.split("FRAYLOG_WRK")[0]
    # when it is parsed, then it fails and says so
    with pytest.raises(WrkFailed, match="no summary"):
        parse(text)


def test_given_a_table_when_written_then_absent_headers_and_bodies_are_dashes() -> None:
    # given a GET without token or ETag, and a POST with its token and two bodies
    get = Table("GET", "/encounters/e", 304)
    post = Table("POST", "/encounters/e/commands", 200, "Bearer t", "", ('{"a": 1}', '{"a": -1}'))
    # when they are written as lines of the tables file
    # then each field is in its place, a dash where nothing is sent
    assert get.line().split("\t") == ["GET", "/encounters/e", "304", "-", "-", "-"]
    assert post.line().split("\t") == [
        "POST",
        "/encounters/e/commands",
        "200",
        "Bearer t",
        "-",
        '{"a": 1}',
        '{"a": -1}',
    ]


def test_given_a_body_with_a_tab_when_written_then_it_is_refused() -> None:
    # given a body holding a tab, the file's separator
    table = Table("POST", "/x", 200, bodies=("{\t}",))
    # when it is written, then it is refused
    with pytest.raises(ValueError, match="tab"):
        table.line()


def test_given_three_runs_when_summed_up_then_the_medians_and_the_spread() -> None:
    # given three runs of one second
    runs = Runs([run_of(900, 30_000), run_of(1000, 10_000), run_of(1200, 20_000)])
    # when they are summed up
    # then the rate and the p99 are the medians, the spread the lowest and highest rate
    assert runs.rate == 1000
    assert runs.p99_ms == 20.0
    assert runs.spread == (900, 1200)


class Recorder(BaseHTTPRequestHandler):
    """Keeps (method, path, Authorization, If-None-Match, body) of every request; answers
    304 on /kept, 200 with `{}` elsewhere."""

    protocol_version = "HTTP/1.1"  # keep-alive, as wrk expects
    seen: ClassVar[list[tuple[str, str, str, str, str]]] = []

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        h = self.headers
        self.seen.append(
            (self.command, self.path, h["Authorization"] or "", h["If-None-Match"] or "", body)
        )
        if self.path == "/kept":
            self.send_response(304)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[tuple[str, str, str, str, str]]]]:
    seen: ClassVar[list[tuple[str, str, str, str, str]]] = []
    handler = type("Handler", (Recorder,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


@needs_wrk
def test_given_two_tables_when_wrk_runs_then_each_connection_sends_its_own_requests(
    recorder: tuple[str, list[tuple[str, str, str, str, str]]],
) -> None:
    url, seen = recorder
    # given two tables, each with its token, its path and two bodies to alternate
    tables = [
        Table("POST", f"/t{n}", 200, f"Bearer {n}", "", (f'{{"n": {n}}}', f'{{"n": -{n}}}'))
        for n in (1, 2)
    ]
    # when wrk runs them on two connections
    out = run(url, tables, 2, 1.0)
    # then every request is one table's: its path, its token, its two bodies by turns
    assert out.requests > 0 and out.unexpected == 0
    for n in (1, 2):
        mine = [r for r in seen if r[2] == f"Bearer {n}"]
        assert {r[:4] for r in mine} == {("POST", f"/t{n}", f"Bearer {n}", "")}
        bodies = [r[4] for r in mine]
        assert set(bodies) == {f'{{"n": {n}}}', f'{{"n": -{n}}}'}
        assert abs(bodies.count(f'{{"n": {n}}}') - bodies.count(f'{{"n": -{n}}}')) <= 1
    assert len(seen) == sum(1 for r in seen if r[2] in ("Bearer 1", "Bearer 2"))


@needs_wrk
def test_given_a_conditional_get_when_answered_304_then_the_run_counts_no_unexpected(
    recorder: tuple[str, list[tuple[str, str, str, str, str]]],
) -> None:
    url, seen = recorder
    # given a GET with If-None-Match, answered 304 as expected
    table = Table("GET", "/kept", 304, "Bearer g", '"abc"')
    # when wrk runs it
    out = run(url, [table], 1, 1.0)
    # then it sends the tag and no body, and every answer was the 304 expected
    assert out.unexpected == 0 and out.requests > 0
    assert set(seen) == {("GET", "/kept", "Bearer g", '"abc"', "")}


@needs_wrk
def test_given_an_answer_of_another_status_when_wrk_runs_then_the_run_fails(
    recorder: tuple[str, list[tuple[str, str, str, str, str]]],
) -> None:
    url, _ = recorder
    # given a table expecting 304 from a path answered 200
    table = Table("GET", "/changed", 304, "Bearer g", '"abc"')
    # when wrk runs it, then the run fails and names the status it got
    with pytest.raises(WrkFailed, match=r"not 304 \(last 200\)"):
        run(url, [table], 1, 1.0)


BUSY = """
import sys, threading, time
def burn(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
other = threading.Thread(target=burn, args=(0.3,))
other.start()
other.join()
burn(0.6)
print("done", flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="no /proc (Linux only)")
def test_given_a_busy_server_then_its_cpu_is_told_apart_loop_and_threads() -> None:
    # given a process that used 0.3 s of CPU on a thread and then 0.6 s on its main thread
    busy = subprocess.Popen(
        [sys.executable, "-c", BUSY], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert busy.stdout is not None and busy.stdout.readline().strip() == "done"
        # when its CPU is read
        cpu = cpu_of(busy.pid)
    finally:
        busy.communicate("")
    # then the main thread's counts as the loop, the other thread's apart (clock ticks)
    assert cpu is not None
    assert 0.55 <= cpu.loop < 2.0
    assert 0.25 <= cpu.threads < cpu.loop


def test_given_runs_with_the_servers_cpu_then_the_note_gives_the_medians() -> None:
    # given three runs whose server used CPU per answer, and one where it was not read
    used = ((500, 300), (700, 100), (600, 200))
    runs = Runs([replace(run_of(1000, 1), loop_us=a, threads_us=b) for a, b in used])
    # when they are summed up, then the medians, each apart
    assert runs.cpu_note == "server CPU per answer 800 µs: event loop 600, other threads 200"
    assert Runs([run_of(1000, 1)]).cpu_note == ""
