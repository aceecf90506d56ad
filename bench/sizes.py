"""`python -m bench.sizes`: how long fraylog's modules and functions are, per package, as
docs/architecture.md reports them (issue 17 asks for the distribution before and after
the rule books' redesign). Lines are physical lines of a module, and of a function from its
`def` (decorators excluded) to its last line; nested functions count in their own right and
in the function that holds them."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

PACKAGES = ("domain", "projections", "infra", "api")
MODULE_LIMIT, FUNCTION_LIMIT = 300, 60  # what issue 17 asks most of them to stay under


def modules(root: Path, package: str) -> Iterator[Path]:
    yield from sorted((root / package).rglob("*.py"))


def function_lengths(path: Path) -> Iterator[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, (node.end_lineno or node.lineno) - node.lineno + 1


def quantiles(values: list[int]) -> str:
    if not values:
        return "—"
    ordered = sorted(values)

    def at(q: float) -> int:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return f"{at(0.5)} / {at(0.9)} / {ordered[-1]}"


def table(root: Path) -> list[str]:
    rows = [
        "| Package | Modules | Lines: median / 90% / max | Over "
        f"{MODULE_LIMIT} | Functions | Lines: median / 90% / max | Over {FUNCTION_LIMIT} |",
        "|---|---|---|---|---|---|---|",
    ]
    for package in PACKAGES:
        paths = list(modules(root, package))
        sizes = [len(p.read_text(encoding="utf-8").splitlines()) for p in paths]
        funcs = [n for p in paths for _, n in function_lengths(p)]
        rows.append(
            f"| `{package}/` | {len(paths)} | {quantiles(sizes)} | "
            f"{sum(s > MODULE_LIMIT for s in sizes)} | {len(funcs)} | {quantiles(funcs)} | "
            f"{sum(n > FUNCTION_LIMIT for n in funcs)} |"
        )
    return rows


def longest(root: Path, count: int = 10) -> list[str]:
    found = [
        (n, f"{p.relative_to(root)}:{name}")
        for package in PACKAGES
        for p in modules(root, package)
        for name, n in function_lengths(p)
    ]
    return [f"- `{where}`: {n} lines" for n, where in sorted(found, reverse=True)[:count]]


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    print("\n".join(table(root)))
    print()
    print("The longest functions:")
    print("\n".join(longest(root)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
