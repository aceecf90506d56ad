"""`python -m bench.sizes` (docs/architecture.md, Sizes): modules and functions measured as
the table says."""

from __future__ import annotations

from pathlib import Path

from bench.sizes import function_lengths, longest, table


def test_given_a_small_tree_when_measured_then_each_count_is_as_written(tmp_path: Path) -> None:
    # given a domain package of two modules: one of 5 lines, one of 70 with a 64-line function
    (tmp_path / "domain").mkdir()
    (tmp_path / "domain" / "short.py").write_text("def f():\n    return 1\n\n\nX = 2\n")
    body = "".join(f"    x{n} = {n}\n" for n in range(62))
    long = f"import os\n\n\ndef g():\n{body}    return x0\n" + "\n" * 3
    (tmp_path / "domain" / "long.py").write_text(long)
    for package in ("projections", "infra", "api"):
        (tmp_path / package).mkdir()
    # when it is measured
    rows = table(tmp_path)
    # then the domain row counts 2 modules, 2 functions, one of them over 60 lines
    assert dict(function_lengths(tmp_path / "domain" / "long.py")) == {"g": 64}
    assert rows[2] == "| `domain/` | 2 | 70 / 70 / 70 | 0 | 2 | 64 / 64 / 64 | 1 |"
    assert rows[3].startswith("| `projections/` | 0 | — |")
    assert longest(tmp_path, 1) == ["- `domain/long.py:g`: 64 lines"]
