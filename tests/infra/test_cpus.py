"""A served process's threads on one CPU of their own (infra/cpus.py, FRAYLOG_CPU): which CPUs
it may take, the claims that keep two processes off one CPU, its threads pinned and put back,
and every way it can fail leaving the process unpinned. The served process itself is in
tests/api/test_serving.py and tests/infra/test_workers.py."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from infra import cpus
from infra.cpus import candidates, claim, settle_on_one_cpu
from infra.settings import Settings
from tests.builders.cpus import two_cpus

linux_only = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity"), reason="CPU affinity is Linux's (sched_setaffinity)"
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
    first[1].close()
    second[1].close()


@linux_only
def test_given_a_claim_given_up_when_another_claims_then_it_takes_that_cpu(
    tmp_path: Path,
) -> None:
    first = claim([1, 0], tmp_path)
    assert first is not None
    first[1].close()  # its process ended

    again = claim([1, 0], tmp_path)

    assert again is not None and again[0] == 1
    again[1].close()


@linux_only
def test_given_no_lock_directory_when_claiming_then_it_is_made_for_every_user(
    tmp_path: Path,
) -> None:
    locks = tmp_path / "fraylog-cpus"
    claimed = claim([0], locks)
    assert claimed is not None
    claimed[1].close()
    assert stat.S_IMODE(locks.stat().st_mode) == 0o1777


@linux_only
def test_given_a_lock_file_that_is_a_link_then_its_cpu_is_passed_over(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").write_text("")
    (tmp_path / "cpu-1.lock").symlink_to(tmp_path / "elsewhere")

    claimed = claim([1, 0], tmp_path)

    assert claimed is not None and claimed[0] == 0
    claimed[1].close()


@linux_only
@two_cpus
@pytest.mark.parametrize("where", ["a file", "a link to a directory"])
def test_given_a_lock_directory_that_is_not_one_of_its_own_then_nothing_is_pinned(
    tmp_path: Path, where: str
) -> None:
    locks = tmp_path / "locks"
    if where == "a file":
        locks.write_text("")
    else:
        (tmp_path / "home").mkdir()
        locks.symlink_to(tmp_path / "home")
    before = os.sched_getaffinity(0)

    assert settle_on_one_cpu("0,1", locks) is None

    assert os.sched_getaffinity(0) == before
    with pytest.raises(OSError):
        claim([0], locks)


@linux_only
@two_cpus
def test_given_a_system_that_refuses_affinities_then_the_process_runs_unpinned_and_unclaimed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = os.sched_getaffinity(0)

    def refused(pid: int, mask: set[int]) -> None:
        raise PermissionError("refused by the system's policy")

    monkeypatch.setattr(cpus.os, "sched_setaffinity", refused)

    assert settle_on_one_cpu("auto", tmp_path) is None

    monkeypatch.undo()
    assert os.sched_getaffinity(0) == before
    again = claim([max(before)], tmp_path)  # the claim was given up
    assert again is not None
    again[1].close()


def test_given_no_affinity_in_the_system_then_there_is_nothing_to_take(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(cpus.os, "sched_setaffinity", raising=False)
    assert candidates("auto") == []
    assert settle_on_one_cpu("0,1") is None


@linux_only
def test_given_cpus_named_that_the_process_may_not_run_on_then_it_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    may_run_on(monkeypatch, {0, 1})
    assert settle_on_one_cpu("6,7") is None
    assert "FRAYLOG_CPU=6,7 names no CPU" in caplog.text


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
