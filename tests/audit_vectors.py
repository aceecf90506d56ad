"""The test vectors of docs/audit-spec.md: a small real export (a Wits fight on server dice,
non-ASCII names, metres that are doubles, a round's end and the encounter's, each
checkpointed), its CSV twin, the tampered copies the spec lists, and the vectors section of
the spec, all computed by fraylog's own code.

    python -m tests.audit_vectors            # play a new fight and write every file anew
    python -m tests.audit_vectors --tamper   # the tampered files and the section anew, same fight
    python -m tests.audit_vectors --check    # exit 1 if the spec's section is not the files'

The fight is played once and its files committed (its times and server dice are new each
time); tests/test_audit_spec.py checks that the spec's section is exactly what `section()`
computes from the committed files, and that both verifiers give the listed verdicts. The
checkpoints are signed with the vector key below — published here, never an installation's.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain import commands as c
from domain.audit import canonical, chain, checkpoint_statement, key_id
from domain.dice import derivation_key, derived_face
from domain.rulesystems.wits import commands as wc
from projections.audit import read_export, verify_export
from projections.export import (
    CSV_COLUMNS,
    checkpoint_line,
    checkpoint_row,
    csv_lines,
    csv_row,
    dice_faces,
    ndjson_lines,
)
from projections.view import encounter_view
from projections.visibility import Words, placeholder

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "docs" / "audit-vectors"
SPEC = ROOT / "docs" / "audit-spec.md"
BEGIN, END = "<!-- vectors: begin (python -m tests.audit_vectors) -->", "<!-- vectors: end -->"
VECTOR_KEY = hashlib.sha256(b"fraylog audit-spec vector key").digest()  # Ed25519 private seed

# canonical forms a verifier must reproduce, beyond what the example holds
VALUES: list[Any] = [
    {"b": 1, "a": [True, False, None], "A": {"z": 1, "Z": 2}},
    'Ändern 🎲 "q" \\ / \t\n\r\b\f \u0001 \u007f \u00e9',
    [3.0, 2.5, 0.0001, 1e-05, 1e16, 1.5e16, 1234567890123456.0, 0.1, -0.0, 100.0],
    [12345678901234567890, -7, 0],
    {"é": 1, "e": 2, "\U0001f3b2": 3, "\uffff": 4},
]


def vector_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(VECTOR_KEY)


def keys_document() -> dict[str, Any]:
    public = vector_key().public_key().public_bytes_raw()
    return {
        "keys": [
            {
                "id": key_id(public),
                "algorithm": "Ed25519",
                "public_key": public.hex(),
                "created": "2026-12-01T00:00:00+00:00",
                "retired": None,
                "current": True,
            }
        ]
    }


def signed(checkpoint: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint as the vector key signs it."""
    out = {**checkpoint, "key": keys_document()["keys"][0]["id"]}
    out["signature"] = vector_key().sign(checkpoint_statement(out)).hex()
    return out


# -- the fight -------------------------------------------------------------------------------
def play(folder: Path) -> tuple[list[Any], list[dict[str, Any]]]:
    """A Wits fight on server dice: initiative, a Charge from 18 ft (6.0 m), a move of
    2.5 m, an attack, the round's end, the encounter's end. Returns the events and the
    checkpoints the server signed."""
    from infra.app import Fraylog
    from infra.settings import Settings

    fighter = {
        "wits": 12,
        "move": 12,
        "health": 20,
        "skills": {"sword": 13},
        "strength": 12,
        "base_damage": "1d6",
        "armour": {"protection": 1, "defense": 1},
        "weapons": [{"name": "sword", "damage": "1d8", "skill": "sword"}],
    }
    with Fraylog(Settings(sqlite_path=str(folder / "vectors.db"))) as fraylog:
        eid = UUID(fraylog.create_encounter("Furt der Jöten", "wits", "server").state.id)
        ids = [
            fraylog.add_combatant(eid, name, side, fighter)[0]
            for name, side in (("Ægir", "heroes"), ("Brünhild 🎲", "raiders"))
        ]
        fraylog.execute(eid, c.RollInitiative())

        def acting() -> str | None:
            return encounter_view(fraylog.state(eid))["acting"]

        first = acting()
        second = next(i for i in ids if i != first)
        fraylog.execute(
            eid,
            wc.Attack(combatant=first, target=second, weapon="sword", charge=True, distance_ft=18),
        )
        if acting() == first:
            fraylog.execute(eid, c.EndTurn(combatant=first))
        if acting() == second:
            fraylog.execute(eid, wc.Move(combatant=second, distance_m=2.5))
        if acting() == second:
            fraylog.execute(eid, wc.Attack(combatant=second, target=first, weapon="sword"))
        if acting() == second:
            fraylog.execute(eid, c.EndTurn(combatant=second))
        fraylog.execute(eid, c.EndRound())
        fraylog.execute(eid, c.EndEncounter(reason="Brünhild yields"))
        return fraylog.event_log(eid), fraylog.checkpoints.of(eid)


# -- files -----------------------------------------------------------------------------------
def written(records: list[dict[str, Any]], checkpoint: Any, fmt: str) -> str:
    """Records and a checkpoint written as an export of `fmt`, as fraylog writes one."""
    if fmt == "ndjson":
        lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records]
        return "".join(lines) + (checkpoint_line(checkpoint) if checkpoint else "")
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for r in records:
        writer.writerow(csv_row(r if r.get("redacted") else {**r, "dice": dice_faces(r)}))
    return out.getvalue() + (checkpoint_row(checkpoint) if checkpoint else "")


def rechained(records: list[dict[str, Any]], at: int, edit: Any) -> list[dict[str, Any]]:
    """A forger's copy: the record at `at` edited and every hash from it computed anew."""
    out, previous = [], ""
    for r in records:
        r = json.loads(json.dumps(r))
        if r["position"] == at:
            edit(r["data"])
        if r["position"] >= at:
            r["hash"] = chain(previous, r)
        previous = r["hash"]
        out.append(r)
    return out


def tamperings(text: str, fmt: str, earlier: dict[str, Any] | None = None) -> dict[str, str]:
    """The export as written and every tampering the spec lists (§9), by name; `earlier`:
    a checkpoint before the last event, for a file that goes on after it."""
    export = read_export(text)
    records, last = export.records, export.checkpoint
    assert last is not None and last["position"] == len(records)
    hit = next(r for r in records if r["data"].get("rolls"))["position"]

    def edit(data: dict[str, Any]) -> None:
        roll = next(iter(data["rolls"].values()))
        roll["total"] += 1

    def huge(data: dict[str, Any]) -> None:
        next(iter(data["rolls"].values()))["sides"][0] = 2**33

    def other(hex_: str) -> str:
        return ("1" if hex_[0] == "0" else "0") + hex_[1:]

    first = next(r for r in records if r["type"] == "CombatantAdded")["data"]
    about = Words(frozenset({first["combatant"]}), frozenset({first["name"]}), frozenset())
    player = [placeholder(r) if about.mentions(r["data"]) else r for r in records]
    swapped = list(records)
    swapped[3], swapped[4] = swapped[4], swapped[3]
    out = {
        "intact": text,
        "edited": written(_edited_in_place(records, hit), last, fmt),  # its hash kept
        "reordered": written(swapped, last, fmt),
        "deleted": written(records[:5] + records[6:], last, fmt),
        "truncated": written(records[:-2], last, fmt),
        "truncated, checkpoint removed": written(records[:-2], None, fmt),
        "rechained": written(rechained(records, hit, edit), last, fmt),
        "ill-formed": written(rechained(records, hit, huge), last, fmt),
        "withheld": written(player, last, fmt),
        "concealed": written(concealed(records), last, fmt),
        "bad signature": written(records, {**last, "signature": other(last["signature"])}, fmt),
        "re-dated checkpoint": written(records, {**last, "time": "2020-01-01T00:00:00+00:00"}, fmt),
        "unknown key": written(records, {**last, "key": other(last["key"])}, fmt),
        "malformed checkpoint": written(records, {**last, "position": "all"}, fmt),
    }
    if fmt == "ndjson":
        out["checkpoint first"] = checkpoint_line(last) + written(records, None, fmt)
        # the same values written otherwise: 1.0 as 1.00, 6.0 as 6e0 (a rewritten file)
        out["numbers rewritten"] = text.replace('"metres":6.0', '"metres":6e0').replace(
            '"metres":2.5', '"metres":2.50'
        )
    if earlier is not None:
        out["after checkpoint"] = written(records, earlier, fmt)
    return out


def concealed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A reader's copy with two records concealed (docs/audit-spec.md §1): the first attack
    test's skill (its target number; in a fight without one, the first combatant's hits) and
    the damage after it (the hits before and after), nulled and named in `withheld`; their
    hashes kept, as the server gives them."""
    out = json.loads(json.dumps(records))
    test = next((r for r in out if r["type"] == "AttackTestRolled"), None)
    first = test or next(r for r in out if r["type"] == "CombatantAdded")
    damage = next(r for r in out if r["type"] == "DamageApplied")
    for rec, names in (
        (first, ["skill"] if test else ["hits"]),
        (damage, ["hits_before", "hits_after"]),
    ):
        rec["data"].update(dict.fromkeys(names))
        rec["withheld"] = names
    return out


def _edited_in_place(records: list[dict[str, Any]], hit: int) -> list[dict[str, Any]]:
    out = json.loads(json.dumps(records))
    roll = next(iter(out[hit - 1]["data"]["rolls"].values()))
    roll["total"] += 1
    return out


EXPECTED = {  # the checkpoint's status (None: the chain breaks first), ok
    "intact": ("complete", True),
    "edited": (None, False),
    "reordered": (None, False),
    "deleted": (None, False),
    "truncated": ("truncated", False),
    "truncated, checkpoint removed": ("none", True),
    "rechained": ("mismatch", False),
    "ill-formed": (None, False),
    "withheld": ("complete", True),
    "concealed": ("complete", True),
    "bad signature": ("bad_signature", False),
    "re-dated checkpoint": ("bad_signature", False),
    "unknown key": ("unknown_key", False),
    "malformed checkpoint": ("malformed", False),
    "checkpoint first": ("malformed", False),
    "numbers rewritten": ("complete", True),
    "after checkpoint": ("after_checkpoint", True),
}


def stem(name: str) -> str:
    """A tampering's file name, without the extension (the intact file is the example)."""
    return "example" if name == "intact" else name.replace(", ", "-").replace(" ", "-")


def named(path: Path) -> str:
    """The tampering a vector file holds."""
    return next(name for name in EXPECTED if stem(name) == path.stem)


def make(folder: Path = FOLDER) -> None:
    """Play the fight and write every vector file and the spec's section."""
    with tempfile.TemporaryDirectory() as scratch:
        events, kept = play(Path(scratch))
    assert len(kept) == 2, kept  # the round's end and the encounter's
    last, earlier = signed(kept[-1]), signed(kept[0])
    texts = {
        "ndjson": "".join(ndjson_lines(events)) + checkpoint_line(last),
        "csv": "".join(csv_lines(events)) + checkpoint_row(last),
    }
    write(folder, texts, earlier)


def remake(folder: Path = FOLDER) -> None:
    """Write every tampered file and the spec's section anew from the committed example
    (the fight as it was played): after a new tampering, say, without a new fight."""
    texts = {fmt: (folder / f"example.{fmt}").read_bytes().decode() for fmt in ("ndjson", "csv")}
    earlier = read_export((folder / "after-checkpoint.ndjson").read_text(encoding="utf-8"))
    write(folder, texts, earlier.checkpoint)


def write(folder: Path, texts: dict[str, str], earlier: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    (folder / "keys.json").write_text(json.dumps(keys_document(), indent=2) + "\n")
    for fmt, text in texts.items():
        for name, body in tamperings(text, fmt, earlier).items():
            (folder / f"{stem(name)}.{fmt}").write_bytes(body.encode())
    SPEC.write_text(spliced(SPEC.read_text(), section(folder)))


# -- the spec's section ----------------------------------------------------------------------
def _wrap(text: str, width: int = 88) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


def server_faces(records: list[dict[str, Any]]) -> Iterator[tuple[Any, ...]]:
    """Every server face of `records` with its derivation key (the spec, §5.3): (record,
    roll name, k: the face's ordinal under its command, attempt and roll name, key, sides,
    face)."""
    drawn: dict[tuple[int, int, str], int] = {}
    for r in records:
        for name, roll in (r["data"].get("rolls") or {}).items():
            mark = (r["command"], roll.get("attempt", 0), name)
            first = drawn.get(mark, 0)
            drawn[mark] = first + len(roll["faces"])
            if roll["source"] != "server":
                continue
            for n, (face, sides) in enumerate(zip(roll["faces"], roll["sides"], strict=True)):
                key = derivation_key(mark[0], mark[1], name, first + n)
                yield r, name, first + n, key, sides, face


def section(folder: Path = FOLDER) -> str:
    """The vectors section of the spec, computed from the committed files."""
    keys = json.loads((folder / "keys.json").read_text())["keys"]
    example = read_export((folder / "example.ndjson").read_text(encoding="utf-8"))
    records, last = example.records, example.checkpoint
    out: list[str] = []
    say = out.append
    say("### 10.1 Canonical forms")
    say("")
    say("Each JSON value (as Python writes it) and its canonical form (§2):")
    say("")
    for value in VALUES:
        say("```")
        say(json.dumps(value, ensure_ascii=False))
        say(json.dumps(value, sort_keys=True, separators=(",", ":")))
        say("```")
    say("")
    say("Longer texts below are wrapped at 88 characters; the bytes have no line breaks.")
    say("")
    say("### 10.2 The example export")
    say("")
    say(
        f"[`example.ndjson`](audit-vectors/example.ndjson) ({len(records)} events) and its CSV "
        "twin [`example.csv`](audit-vectors/example.csv): a Wits fight on server dice, "
        "ended (the secret revealed), with a checkpoint signed by the vector key of "
        "[`keys.json`](audit-vectors/keys.json). Each record's hash, chained from the "
        "empty string:"
    )
    say("")
    say("| position | type | hash |")
    say("|---|---|---|")
    for r in records:
        say(f"| {r['position']} | {r['type']} | `{r['hash']}` |")
    say("")
    for r in records:
        if r["type"] in ("CombatantAdded", "Moved") or r["position"] == 1:
            previous = records[r["position"] - 2]["hash"] if r["position"] > 1 else ""
            assert chain(previous, r) == r["hash"]
            say(
                f"The canonical form of record {r['position']} ({r['type']}), hashed after "
                f"`{previous or '(the empty string)'}`:"
            )
            say("")
            say("```")
            say(_wrap(canonical(r).decode()))
            say("```")
            say("")
    say("### 10.3 The dice")
    say("")
    reveal = next(r for r in records if r["type"] == "DiceSecretRevealed")
    secret = bytes.fromhex(reveal["data"]["secret"])
    created = records[0]["data"]
    say(
        f"The secret revealed at position {reveal['position']} is `{secret.hex()}`; its "
        f"SHA-256, `{hashlib.sha256(secret).hexdigest()}`, is the first record's "
        f"`dice_commitment` (`{created['dice_commitment']}`). Every server face:"
    )
    say("")
    say("| position | roll | k | key | sides | HMAC-SHA-256 (counter 0) | face |")
    say("|---|---|---|---|---|---|---|")
    for r, name, k, key, sides, face in server_faces(records):
        assert derived_face(secret, key, sides) == face
        digest = hmac.new(secret, f"{key}#0".encode(), hashlib.sha256).hexdigest()
        say(f"| {r['position']} | {name} | {k} | `{key}` | {sides} | `{digest}` | {face} |")
    say("")
    say("### 10.4 The checkpoint")
    say("")
    public = keys[0]["public_key"]
    say(f"- Vector private key (the Ed25519 seed; never an installation's): `{VECTOR_KEY.hex()}`")
    say(f"- Public key: `{public}`; key id (its SHA-256): `{keys[0]['id']}`")
    say(
        "- The checkpoint, the last line of example.ndjson: "
        f"`{json.dumps(last, separators=(',', ':'))}`"
    )
    say("- The signed bytes (the line feed after `v1` shown as `\\n`):")
    say("")
    say("```")
    say(_wrap(checkpoint_statement(last).decode().replace("\n", "\\n")))
    say("```")
    say("")
    say(f"- Its signature: `{last['signature']}`")
    say("")
    say("### 10.5 The verdicts")
    say("")
    say(
        "Each file of [`audit-vectors/`](audit-vectors/) with `keys.json`, and what both "
        "verifiers say of it (`ok`; the chain's break; the checkpoint's status):"
    )
    say("")
    say("| file | made by | ok | chain broken at | checkpoint |")
    say("|---|---|---|---|---|")
    for path in sorted(folder.iterdir()):
        if path.name == "keys.json":
            continue
        report = verify_export(read_export(path.read_bytes().decode()), keys)
        name = named(path)
        status = report["checkpoint"] and report["checkpoint"]["status"]
        expected = EXPECTED[name]
        assert (status, report["ok"]) == expected, (path.name, report)
        broken = report["chain"]["broken_at"]
        extra = ""
        if status == "truncated":
            extra = f" (missing {report['checkpoint']['missing']})"
        elif status == "after_checkpoint":
            extra = f" (unsigned {report['checkpoint']['unsigned']})"
        if report["chain"]["redacted"]:
            extra += f"; {report['chain']['redacted']} records withheld"
        if report["chain"]["concealed"]:
            extra += f"; {report['chain']['concealed']} records concealed"
        say(
            f"| [`{path.name}`](audit-vectors/{path.name}) | {MADE_BY[name]} | "
            f"{'yes' if report['ok'] else 'no'} | {broken if broken is not None else '—'} | "
            f"{status or '—'}{extra} |"
        )
    return "\n".join(out) + "\n"


def expected_name(stem_words: str) -> str:
    return (
        "intact"
        if stem_words == "example"
        else stem_words.replace("truncated checkpoint", "truncated, checkpoint")
    )


MADE_BY = {
    "intact": "the export as the server wrote it",
    "edited": "a roll's total changed in place (hash kept)",
    "reordered": "records 4 and 5 swapped",
    "deleted": "record 6 removed",
    "truncated": "the last two records cut, the checkpoint kept",
    "truncated, checkpoint removed": "the last two records and the checkpoint cut",
    "rechained": "a roll's total changed and every hash from it recomputed",
    "ill-formed": "a die given 2^33 sides and every hash from it recomputed",
    "withheld": "a player's export: the records naming the first combatant as placeholders",
    "concealed": "records 8 and 9 concealed: the attack test's `skill` and the damage's "
    "`hits_before`, `hits_after` nulled and named in `withheld`",
    "bad signature": "one hex digit of the signature changed",
    "re-dated checkpoint": "the checkpoint's time changed",
    "unknown key": "one hex digit of the key id changed",
    "malformed checkpoint": "the checkpoint's position made a string",
    "checkpoint first": "the checkpoint line moved to the top",
    "numbers rewritten": "`6.0` written `6e0`, `2.5` written `2.50`: the same values",
    "after checkpoint": "the round's-end checkpoint instead of the last",
}


def spliced(spec: str, body: str) -> str:
    head, rest = spec.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{body}{END}{tail}"


def current(spec: str) -> str:
    return spec.split(BEGIN, 1)[1].split(END, 1)[0].lstrip("\n")


if __name__ == "__main__":
    if "--check" in sys.argv:
        sys.exit(0 if current(SPEC.read_text()) == section() else 1)
    remake() if "--tamper" in sys.argv else make()
