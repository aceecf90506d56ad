"""A served process's threads on one CPU of their own (infra/cpus.py, FRAYLOG_CPU): which CPUs
it may take, the claims that keep two processes off one CPU, and its threads pinned and put
back. The served process itself is in tests/api/test_serving.py."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from infra import cpus
from infra.cpus import candidates, claim, settle_on_one_cpu
from infra.settings import Settings

linux_only = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity"), reason="CPU affinity is Linux's (sched_setaffinity)"
)
two_cpus = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs a process that may run on two CPUs or more",
)


def may_run_on(monkeypatch: pytest.MonkeyPatch, allowed: set[int]) -> None:
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: set(allowed))


@linux_only
def test_given_four_cpus_when_auto_then_the_last_is_tried_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    may_run_on(monkeypatch, {0, 1, 2, 3})
    assert candidates("auto") == [3, 2, 1, 0]
    assert candidates(" AUTO ") == [3, 2, 1, 0]


@linux_only
def test_given_cpus_named_then_only_those_the_process_may_run_on_in_their_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    may_run_on(monkeypatch, {0, 1, 2, 3})
    assert candidates("2,0,7") == [2, 0]


@linux_only
def test_given_off_or_a_single_cpu_then_there_is_nothing_to_take(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    may_run_on(monkeypatch, {0, 1})
    assert candidates("off") == []
    may_run_on(monkeypatch, {5})
    assert candidates("auto") == []


@linux_only
def test_given_a_cpu_claimed_when_another_claims_then_it_takes_the_next_until_none_is_left(
    tmp_path: Path,
) -> None:
    first = claim([1, 0], tmp_path)
    second = claim([1, 0], tmp_path)
    third = claim([1, 0], tmp_path)

    assert first is not None and second is not None
    assert (first[0], second[0], third) == (1, 0, None)
    first[1].close()  # its process ended: the CPU is free again
    again = claim([1, 0], tmp_path)
    assert again is not None and again[0] == 1
    again[1].close()
    second[1].close()


@linux_only
def test_given_a_directory_that_cannot_be_made_then_no_cpu_is_claimed(tmp_path: Path) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    assert claim([1, 0], blocker / "locks") is None


@linux_only
@two_cpus
def test_given_threads_when_settled_on_one_cpu_then_each_runs_there_and_is_put_back(
    tmp_path: Path,
) -> None:
    before = os.sched_getaffinity(0)
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        pinned = settle_on_one_cpu("auto", tmp_path)
        assert pinned is not None and pinned.cpu == max(before)
        try:
            assert os.sched_getaffinity(worker.native_id) == {pinned.cpu}
            assert os.sched_getaffinity(0) == {pinned.cpu}
            assert claim([pinned.cpu], tmp_path) is None  # held while it runs
        finally:
            pinned.release()
        assert os.sched_getaffinity(worker.native_id) == before
        assert os.sched_getaffinity(0) == before
    finally:
        stop.set()
        worker.join()


@linux_only
@two_cpus
def test_given_off_then_no_thread_is_pinned(tmp_path: Path) -> None:
    before = os.sched_getaffinity(0)
    assert settle_on_one_cpu("off", tmp_path) is None
    assert os.sched_getaffinity(0) == before
    assert not any(tmp_path.iterdir())  # nothing claimed


@pytest.mark.parametrize("spec", ["auto", "off", "0", "1,3", " Auto "])
def test_given_a_cpu_setting_then_it_is_taken(spec: str) -> None:
    assert Settings(cpu=spec).cpu == spec


@pytest.mark.parametrize("spec", ["", "first", "1,", "-1", "1 2"])
def test_given_a_cpu_setting_that_names_no_cpu_then_it_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match="FRAYLOG_CPU"):
        Settings(cpu=spec)
