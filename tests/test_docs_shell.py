"""The docs' shell blocks run as written: README.md's "Try it", docs/record.md's worked
example and docs/api.md's examples and walk-throughs, in bash (`set -euo pipefail`) against a
real `fraylog serve` on a free port of 127.0.0.1, as a newcomer runs them after `make run`.

Every ```sh block of those pages is marked, invisibly once rendered, by an HTML comment
right before it: `<!-- run: … -->` (this test runs it), `<!-- run on: … -->` (it goes on in
the shell of the run block before it, as in one terminal: its variables and functions) or
`<!-- not run: why -->`. A run block and the run-on blocks after it are one script; in each
block, a comment on a line of its own is what the commands above it in that block print:
each must be a line of that block's output, in order (`…` stands for any text: ids, paths,
times); a comment after a command only explains it. Any `.venv/bin/fraylog …` command a
block prints (`demo --keep`'s) is run too. The blocks run in one temporary folder where the
server keeps its events (`./fraylog.db`, as `make run` in the repository's folder), with
`.venv/bin/fraylog` there running this working tree's CLI, and `:8000` in them replaced by
the server's port.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.builders.served import fraylog_serving

ROOT = Path(__file__).resolve().parent.parent
DOCS = ("README.md", "docs/record.md", "docs/api.md")
MARK = re.compile(r"<!-- (run|run on|not run): (.+?) -->")
FENCE = "```sh\n"
PRINTED_COMMAND = re.compile(r"\.venv/bin/fraylog (replay|verify) [0-9a-f-]{36}")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int  # of the fence, 1-based
    mark: str | None  # "run", "run on", "not run", or None: unmarked
    why: str
    text: str

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}"


def shell_blocks(doc: str) -> list[Block]:
    """The ```sh blocks of a page with the mark on the line before each."""
    lines = (ROOT / doc).read_text(encoding="utf-8").splitlines(keepends=True)
    blocks = []
    for i, line in enumerate(lines):
        if line != FENCE:
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        mark = MARK.fullmatch(lines[i - 1].strip()) if i else None
        blocks.append(
            Block(
                doc,
                i + 1,
                mark[1] if mark else None,
                mark[2] if mark else "",
                "".join(lines[i + 1 : end]),
            )
        )
    return blocks


def chains(doc: str) -> list[tuple[Block, ...]]:
    """The page's run blocks, each with the run-on blocks that go on in its shell."""
    found: list[list[Block]] = []
    for block in shell_blocks(doc):
        if block.mark == "run":
            found.append([block])
        elif block.mark == "run on":
            assert found, f"{block} goes on from no run block before it"
            found[-1].append(block)
    return [tuple(chain) for chain in found]


CHAINS = [chain for doc in DOCS for chain in chains(doc)]
RUN = [b for chain in CHAINS for b in chain]
SEAM = "@@fraylog-docs: the block ends here@@"


def claimed_outputs(text: str) -> list[str]:
    """The comments on lines of their own: the output lines the block claims."""
    claims = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            claims.append(stripped[1:].strip())
    return claims


def unmatched(claims: list[str], output: str) -> list[str]:
    """The claims not found as whole output lines in order (each after the previous one's),
    `…` in a claim standing for any text."""
    lines = [line.strip() for line in output.splitlines()]
    at, missing = 0, []
    for claim in claims:
        pattern = re.compile(".*".join(re.escape(part) for part in claim.split("…")))
        found = next((i for i in range(at, len(lines)) if pattern.fullmatch(lines[i])), None)
        if found is None:
            missing.append(claim)
        else:
            at = found + 1
    return missing


@pytest.fixture(scope="module")
def tools() -> None:
    missing = [tool for tool in ("bash", "curl", "jq") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the docs' walk-throughs need {' and '.join(missing)}, not installed here")


@dataclass
class Place:
    folder: Path
    port: int
    env: dict[str, str]


@pytest.fixture(scope="module")
def place(tools: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    """A folder with `.venv/bin/fraylog` (this tree's CLI) where `fraylog serve` runs on a
    free port, its events in the folder's `fraylog.db`, as `make run` keeps them."""
    folder = tmp_path_factory.mktemp("newcomer")
    fraylog = folder / ".venv" / "bin" / "fraylog"
    fraylog.parent.mkdir(parents=True)
    fraylog.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from api.cli import app\napp()\n"
    )
    fraylog.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRAYLOG_")}
    env |= {"COLUMNS": "200", "PYTHONUNBUFFERED": "1"}
    with fraylog_serving(folder, env, program=[str(fraylog)], ready="/docs") as server:
        yield Place(folder, server.port, env)


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str  # all of it
    stderr: str
    outputs: tuple[str, ...]  # each block's own (those that ran)


_ran: dict[tuple[Block, ...], Ran] = {}


def ran(chain: tuple[Block, ...], place: Place) -> Ran:
    """The chain run once as one script, with make run's port replaced by the server's; a
    seam printed after each block tells its output from the next one's."""
    if chain not in _ran:
        script = "".join(f"{b.text}\nprintf '\\n%s\\n' '{SEAM}'\n" for b in chain)
        done = bash(script.replace(":8000", f":{place.port}"), place)
        outputs = tuple(done.stdout.split(SEAM)[: len(chain)])
        _ran[chain] = Ran(done.returncode, done.stdout, done.stderr, outputs)
    return _ran[chain]


def bash(script: str, place: Place) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + script],
        cwd=place.folder,
        env=place.env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_shell_block_of_the_walk_throughs_is_run_or_says_why_not() -> None:
    blocks = [b for doc in DOCS for b in shell_blocks(doc)]
    unmarked = [str(b) for b in blocks if b.mark is None]
    assert not unmarked, f"mark these `<!-- run: … -->` or `<!-- not run: why -->`: {unmarked}"
    assert all(b.why.strip() for b in blocks)
    # the README's Try it, the worked example, the guide's examples and walk-throughs
    assert {b.doc for b in RUN} == set(DOCS)


def test_the_api_guide_walks_through_each_rule_book_with_choices_and_table_dice() -> None:
    text = "".join(b.text for b in RUN if b.doc == "docs/api.md")
    for book in ("novus", "wits", "phantasia"):
        assert f'"ruleset": "{book}"' in text
    assert "/choices" in text and "DICE_NEEDED" in text and "preview=true" in text
    assert "/log" in text and "/verify" in text and "view=true" in text


@pytest.mark.parametrize("chain", CHAINS, ids=lambda chain: str(chain[0]))
def test_a_marked_block_runs_as_written_and_prints_what_its_comments_say(
    chain: tuple[Block, ...], place: Place
) -> None:
    text = "".join(b.text for b in chain)
    if "curl" in text:
        assert ":8000" in text, "a block that talks to the server names make run's port"
    done = ran(chain, place)
    stopped = chain[max(len(done.outputs) - 1, 0)]  # the block a failure stopped in
    said = f"{stopped} failed\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    assert done.returncode == 0 and len(done.outputs) == len(chain), said
    for block, output in zip(chain, done.outputs, strict=True):
        missing = unmatched(claimed_outputs(block.text), output)
        assert not missing, f"{block} did not print: {missing}\n--- its output\n{output}"
    for printed in PRINTED_COMMAND.finditer(done.stdout):
        again = bash(printed[0], place)
        assert again.returncode == 0, f"{printed[0]}\n{again.stdout}\n{again.stderr}"
        if printed[1] == "verify":
            assert "hash chain: intact" in again.stdout and "all match" in again.stdout
        else:
            assert "Round 3" in again.stdout, again.stdout


def test_the_readme_demos_print_the_commands_that_replay_and_verify_them(place: Place) -> None:
    (demos,) = [c for c in CHAINS if c[0].doc == "README.md" and "demo --keep" in c[0].text]
    done = ran(demos, place)
    assert done.returncode == 0, done.stderr
    printed = [m[1] for m in PRINTED_COMMAND.finditer(done.stdout)]
    assert printed == ["replay", "verify"] * 3  # one fight per rule book, each kept


def test_the_worked_example_claims_a_broken_chain_and_a_truncation_each_with_exit_1() -> None:
    (example,) = [b for b in RUN if b.doc == "docs/record.md"]
    claims = claimed_outputs(example.text)
    assert "hash chain: intact over 16 events" in claims
    assert "checkpoint: complete: whole up to the checkpoint at position 16" in claims
    broken = claims.index("hash chain: broken at position 10 (…)")
    assert claims[broken + 1] == "exit 1"
    assert claims[-2:] == [
        "checkpoint: TRUNCATED: the checkpoint vouches for 16 events; the file holds 14",
        "exit 1",
    ]


def test_the_comments_are_checked_against_the_output_in_order() -> None:
    claims = claimed_outputs("run\n# a … b\n# [1]\n")
    assert not unmatched(claims, "x\na very b\n[1]\n")
    assert unmatched(claims, "[1]\na x b\n") == ["[1]"]  # out of order
    assert unmatched(claims, "a x b\n[1] and more\n") == ["[1]"]  # whole lines only


def test_make_run_takes_another_port() -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed here")
    shown = subprocess.run(
        ["make", "-s", "-n", "-C", str(ROOT), "run", "PORT=8001"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert shown.returncode == 0, shown.stderr
    assert "fraylog serve --host 127.0.0.1 --port 8001" in shown.stdout
