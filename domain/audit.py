"""Events as plain records, their canonical form, and the hash chain that makes an export
tamper-evident: each event's hash is SHA-256 over the previous hash and its canonical form."""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

from domain.dice import derivation_key, derived_face

BASE_FIELDS = frozenset(
    {
        "originator_id",
        "originator_version",
        "timestamp",
        "actor",
        "cause",
        "command",
        "hash",
        "originator_topic",
        "recorded_as",  # an event stored before a respelling: the record as written
    }
)
# a concealed record's list of the data members changed for its reader (docs/audit-spec.md §1)
WITHHELD = "withheld"
# the hash itself, what later events say of it, a CSV's convenience copy of the faces, and
# what a concealed record says was changed for its reader
NOT_HASHED = ("hash", "voided_by", "dice", WITHHELD)


def plain(data: dict[str, Any]) -> dict[str, Any]:
    """JSON-normal data (tuples become lists), exactly as the event store gives it back: a
    copy with new containers, its strings and numbers shared; where anything is not one of
    JSON's own types (a key that is no string, an enum, a subclass), the JSON round trip
    itself makes it so. The walk is a fifth of the round trip's time, for each event."""
    try:
        return _walked(data)
    except _NotPlain:
        return json.loads(json.dumps(data))


_SCALARS = frozenset({str, int, float, bool, type(None)})  # as they are, the exact types only


class _NotPlain(Exception):
    """A value the walk does not copy exactly as a JSON round trip would."""


def _walked(value: Any) -> Any:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            out[key] = item if type(item) in _SCALARS else _walked(item)
        return out
    if kind is list or kind is tuple:
        return [item if type(item) in _SCALARS else _walked(item) for item in value]
    raise _NotPlain


def record(
    kind: str,
    position: int,
    timestamp: str,
    actor: str,
    cause: int | None,
    command: int,
    data: dict[str, Any],
) -> dict[str, Any]:
    return {
        "position": position,
        "type": kind,
        "timestamp": timestamp,
        "actor": actor,
        "cause": cause,
        "command": command,
        "data": data,
    }


def record_of(event: Any) -> dict[str, Any]:
    """One stored event as a plain record, with its hash: as it was written (an event read
    in today's words keeps that in `recorded_as`, domain.upcasting), which its hash covers."""
    written = getattr(event, "recorded_as", None)
    if written is not None:
        kind, data = written["type"], written["data"]
    else:
        kind = type(event).__name__
        data = {k: v for k, v in vars(event).items() if k not in BASE_FIELDS}
    rec = record(
        kind,
        event.originator_version,
        event.timestamp.isoformat(),
        event.actor,
        event.cause,
        event.command,
        data,
    )
    rec["hash"] = event.hash
    return rec


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
# json.dumps(value, sort_keys=True, separators=(",", ":")) writes with the C encoder made
# here once, not once a call (a quarter of the hashing's time on a long log); it does not
# look for values that hold themselves: records are JSON, from a file or the store
_C_CANONICAL = c_make_encoder and c_make_encoder(
    None, _CANONICAL.default, encode_basestring_ascii, None, ":", ",", True, False, True
)


def canonical_json(value: Any) -> bytes:
    """Sorted keys, no spaces, non-ASCII as \\u escapes (docs/audit-spec.md §2)."""
    if _C_CANONICAL is None:  # no C accelerator: json.dumps's own way
        return _CANONICAL.encode(value).encode()
    return "".join(_C_CANONICAL(value, 0)).encode()  # ASCII: \u escapes


def canonical(rec: dict[str, Any]) -> bytes:
    """A record's canonical form, without what is not hashed: the bytes its hash covers."""
    hashed = dict(rec)
    for name in NOT_HASHED:
        hashed.pop(name, None)
    return canonical_json(hashed)


def chain(previous: str, rec: dict[str, Any]) -> str:
    """The hash of a record, chained to the previous record's hash ("" for the first)."""
    return hashlib.sha256(previous.encode() + canonical(rec)).hexdigest()


# -- checkpoints: the server's signed word that a record reached a position -----------------
CHECKPOINT_CONTEXT = b"fraylog-checkpoint-v1\n"
SIGNED = ("encounter", "hash", "key", "position", "time")  # what a checkpoint's signature covers
_HEX = frozenset("0123456789abcdef")


def checkpoint_statement(checkpoint: dict[str, Any]) -> bytes:
    """The bytes a checkpoint's Ed25519 signature covers (docs/audit-spec.md §6)."""
    return CHECKPOINT_CONTEXT + canonical_json({k: checkpoint[k] for k in SIGNED})


def key_id(public_key: bytes) -> str:
    """A signing key's id: the SHA-256 (hex) of its 32-byte raw public key."""
    return hashlib.sha256(public_key).hexdigest()


def _hex(value: Any, length: int) -> bool:
    return isinstance(value, str) and len(value) == length and set(value) <= _HEX


def checkpoint_problem(checkpoint: Any) -> str | None:
    """Why an object is no well-formed checkpoint (None: it is one)."""
    if not isinstance(checkpoint, dict):
        return "a checkpoint is a JSON object"
    if set(checkpoint) != {*SIGNED, "signature"}:
        return f"a checkpoint has exactly the members {', '.join([*SIGNED, 'signature'])}"
    position = checkpoint["position"]
    if type(position) is not int or position < 1:
        return "its position is an integer from 1"
    if not isinstance(checkpoint["encounter"], str) or not isinstance(checkpoint["time"], str):
        return "its encounter and time are strings"
    for name, length in (("hash", 64), ("key", 64), ("signature", 128)):
        if not _hex(checkpoint[name], length):
            return f"its {name} is {length} lowercase hex characters"
    return None


@dataclass(frozen=True)
class ChainReport:
    ok: bool
    events: int
    broken_at: int | None = None  # the position (or line) where the chain first breaks
    reason: str = ""
    redacted: int = 0  # a player's export: records withheld from him (position and hash only)
    concealed: int = 0  # records partly concealed from this reader (some data members changed)


PLACEHOLDER = frozenset({"position", "redacted", "hash"})


def is_placeholder(rec: dict[str, Any]) -> bool:
    """A record a player may not read, as his export holds it (docs/visibility.md)."""
    return rec.get("redacted") is True


def is_concealed(rec: dict[str, Any]) -> bool:
    """A record some of whose `data` members were changed for its reader (set to null, or
    entries of them blanked): an ordinary record with `withheld`, the list of those members'
    keys (docs/audit-spec.md §1). Its hash is taken as given: it cannot be recomputed."""
    return not is_placeholder(rec) and WITHHELD in rec


def withheld_of(rec: dict[str, Any]) -> frozenset[str]:
    """The data members a record says were changed for its reader (none for any other)."""
    names = rec.get(WITHHELD) if is_concealed(rec) else None
    return (
        frozenset(n for n in names if isinstance(n, str))
        if isinstance(names, list)
        else frozenset()
    )


# members the dice proof reads (§5.3): never withheld, or nothing could be proven
NEVER_WITHHELD = {
    "EncounterCreated": ("seed", "dice_commitment", "forked_from"),
    "DiceCommitted": ("commitment",),
    "DiceSecretRevealed": ("secret", "commitment", "epoch", "next_commitment"),
}


def concealed_problem(rec: dict[str, Any]) -> str | None:
    """Why a concealed record is no well-formed one (docs/audit-spec.md §3), None if it is:
    `withheld` a non-empty array of distinct strings, each a key of `data` and none a member
    the dice proof reads; the rest a well-formed record, its withheld members aside; its
    hash 64 lowercase hex characters."""
    names, data = rec.get(WITHHELD), rec.get("data")
    if not isinstance(data, dict):
        return "data is no object"
    if (
        not isinstance(names, list)
        or not names
        or not all(isinstance(n, str) for n in names)
        or len(set(names)) != len(names)
    ):
        return "withheld is no non-empty array of distinct strings"
    if missing := [n for n in names if n not in data]:
        return f"withheld names {missing[0]!r}, which is no member of data"
    if problem := record_problem(rec, frozenset(names)):
        return problem
    if proof := [n for n in names if n in NEVER_WITHHELD.get(rec["type"], ())]:
        return f"withheld names {proof[0]!r}, which the dice proof reads"
    if not _hex(rec["hash"], 64):
        return "its hash is no 64 lowercase hex characters"
    return None


def _int(value: Any, least: int = 0) -> bool:
    return type(value) is int and value >= least


def _roll_problem(name: str, roll: Any) -> str | None:
    if not isinstance(roll, dict):
        return f"roll {name} is no object"
    faces, sides = roll.get("faces"), roll.get("sides")
    if not isinstance(faces, list) or not all(type(f) is int for f in faces):
        return f"roll {name}: faces is no array of integers"
    if (
        not isinstance(sides, list)
        or len(sides) != len(faces)
        or not all(type(n) is int and 1 <= n <= 2**32 for n in sides)
    ):
        return f"roll {name}: sides is no array of as many integers from 1 to 2^32"
    if not isinstance(roll.get("source"), str):
        return f"roll {name}: source is no string"
    if "attempt" in roll and not _int(roll["attempt"]):
        return f"roll {name}: attempt is no integer from 0"
    return None


STRINGS = ("type", "timestamp", "actor", "hash")  # a record's members that are strings


def record_problem(rec: dict[str, Any], withheld: frozenset[str] = frozenset()) -> str | None:
    """Why a record is no well-formed fraylog record (docs/audit-spec.md §3), None if it is
    one: what the dice and the corrections are read from is of the shape they need. The
    data members in `withheld` (a concealed record's) may hold anything: not checked."""
    command, cause = rec.get("command"), rec.get("cause")
    if type(command) is not int or command < 1:  # not _int(command, 1), inline: per record
        return "command is no integer from 1"
    if cause is not None and (type(cause) is not int or cause < 1):
        return "cause is neither null nor an integer from 1"
    kind, at, actor, hashed = (
        rec.get("type"),
        rec.get("timestamp"),
        rec.get("actor"),
        rec.get("hash"),
    )
    if not (
        isinstance(kind, str)
        and isinstance(at, str)
        and isinstance(actor, str)
        and isinstance(hashed, str)
    ):
        name = next(n for n in STRINGS if not isinstance(rec.get(n), str))
        return f"{name} is no string"
    data = rec.get("data")
    if not isinstance(data, dict):
        return "data is no object"
    rolls = data.get("rolls")
    if rolls is not None and "rolls" not in withheld:
        if not isinstance(rolls, dict):
            return "rolls is no object"
        for name, roll in rolls.items():
            if problem := _roll_problem(name, roll):
                return problem
    kind = rec["type"]
    if (
        kind in CORRECTION_TYPES
        and "cascade" not in withheld
        and not (
            isinstance(data.get("cascade"), list) and all(type(p) is int for p in data["cascade"])
        )
    ):
        return "cascade is no array of integers"
    if kind == "EncounterCreated":
        forked = data.get("forked_from")
        if data.get("seed") is not None and not isinstance(data["seed"], str):
            return "seed is neither null nor a string"
        if data.get("dice_commitment") is not None and not _hex(data["dice_commitment"], 64):
            return "dice_commitment is neither null nor 64 hex characters"
        if forked is not None and not (isinstance(forked, dict) and _int(forked.get("at"))):
            return "forked_from is neither null nor an object whose at is an integer"
    if kind == "DiceCommitted" and not _hex(data.get("commitment"), 64):
        return "commitment is no 64 hex characters"
    if kind == "DiceSecretRevealed":
        if not (_hex(data.get("secret"), 64) and _hex(data.get("commitment"), 64)):
            return "secret or commitment is no 64 hex characters"
        if not _int(data.get("epoch")):
            return "epoch is no integer from 0"
        following = data.get("next_commitment")
        if following is not None and not _hex(following, 64):
            return "next_commitment is neither null nor 64 hex characters"
    return None


class ChainCheck:
    """The chain recomputed record by record (docs/audit-spec.md §3): `add` says whether a
    record fits; the first whose position, form or hash does not is the report's. A
    placeholder's hash, and a concealed record's, is taken as it is: the chain goes on from
    it, and they are counted."""

    def __init__(self) -> None:
        self.previous, self.count, self.redacted, self.concealed = "", 0, 0, 0
        self.broken: ChainReport | None = None

    def add(self, rec: dict[str, Any]) -> bool:
        self.count = count = self.count + 1
        position = rec.get("position")
        where = count  # where it breaks: its position, or its number in the file if none
        if position != count or type(position) is not int:  # count >= 1: _int(position)
            where = position if _int(position) else count
            reason = f"expected position {count}"
        elif rec.get("redacted") is True:  # a placeholder (is_placeholder)
            if set(rec) == PLACEHOLDER and _hex(rec["hash"], 64):
                self.previous, self.redacted = rec["hash"], self.redacted + 1
                return True
            reason = "a withheld record holds its position and a 64-hex hash, nothing else"
        elif WITHHELD in rec:  # a concealed record (is_concealed)
            if not (problem := concealed_problem(rec)):
                self.previous, self.concealed = rec["hash"], self.concealed + 1  # as given
                return True
            reason = f"not a well-formed concealed record: {problem}"
        elif problem := record_problem(rec):
            reason = f"not a well-formed record: {problem}"
        else:
            hashed = dict(rec)  # chain(self.previous, rec), its steps inline: per record
            for name in NOT_HASHED:
                hashed.pop(name, None)
            digest = hashlib.sha256(self.previous.encode() + canonical_json(hashed))
            if rec.get("hash") == (expected := digest.hexdigest()):
                self.previous = expected
                return True
            reason = "hash does not match the event's content and the previous hash"
        self.broken = ChainReport(False, count, where, reason, self.redacted, self.concealed)
        return False

    def report(self) -> ChainReport:
        return self.broken or ChainReport(
            True, self.count, redacted=self.redacted, concealed=self.concealed
        )


def verify_chain(records: Iterable[dict[str, Any]]) -> ChainReport:
    """Recompute the chain; report the first record that does not fit (ChainCheck)."""
    check = ChainCheck()
    for rec in records:
        if not check.add(rec):
            break
    return check.report()


CORRECTION_TYPES = ("RollVoided", "CommandUndone", "CommandRedone")


def voided_by_records(records: list[dict[str, Any]]) -> dict[int, int]:
    """domain.corrections.voided_by, on records: position -> the correction voiding it."""
    return _voided(
        (rec["position"], rec["data"]["cascade"])
        for rec in records
        if rec["type"] in CORRECTION_TYPES and "cascade" not in withheld_of(rec)
    )


def _voided(corrections: Iterable[tuple[int, list[int]]]) -> dict[int, int]:
    """Walking back from the latest correction (position, cascade), one counts only if no
    later one voided it (a concealed cascade is not read: no voided_by is checked then)."""
    voided: dict[int, int] = {}
    for at, cascade in reversed(list(corrections)):
        if at not in voided:
            for position in cascade:
                voided.setdefault(position, at)
    return voided


class DerivedCheck:
    """What an export says of an event outside its hash — `voided_by`, and a CSV's `dice`
    column — must follow from the hashed records themselves: read record by record (those
    of a chain that holds: positions 1, 2, ... in order), the corrections kept as they pass
    (nothing is read twice), judged at the end."""

    def __init__(self) -> None:
        self.count, self.withheld, self.concealed = 0, 0, 0
        self.corrections: list[tuple[int, list[int]]] = []  # (position, cascade), in order
        self.claimed: dict[int, Any] = {}  # position -> the voided_by it says, where not null
        self.unsaid: set[int] = set()  # positions whose record says no voided_by: unchecked
        self.cascade_unknown = False  # a correction's cascade concealed
        self.bad_dice: int | None = None  # the position of the first dice column that differs

    def add(self, rec: dict[str, Any], hidden: frozenset[str]) -> None:
        """A record that fits the chain, with the data members concealed from its reader."""
        self.count += 1
        if rec.get("redacted") is True:
            self.withheld += 1
            return
        position = rec["position"]
        if WITHHELD in rec:
            self.concealed += 1
        if "cascade" in hidden:
            self.cascade_unknown = True
        elif rec["type"] in CORRECTION_TYPES:
            self.corrections.append((position, rec["data"]["cascade"]))
        said = rec.get("voided_by", _UNSAID)
        if said is _UNSAID:
            self.unsaid.add(position)
        elif said is not None:
            self.claimed[position] = said
        if self.bad_dice is None and "dice" in rec and "rolls" not in hidden:
            faces = {k: r["faces"] for k, r in (rec["data"].get("rolls") or {}).items()}
            if rec["dice"] != faces:
                self.bad_dice = position

    def report(self) -> ChainReport:
        """The first record whose voided_by (checked first) or dice column does not follow;
        with records withheld, or a cascade concealed, the corrections that decide
        `voided_by` are not all known: it is not checked."""
        first: tuple[int, str] | None = None
        if not (self.withheld or self.cascade_unknown):
            voided = _voided(self.corrections)
            wrong = [p for p, said in self.claimed.items() if said != voided.get(p)]
            wrong += [  # voided, its record saying null
                p
                for p in voided
                if 1 <= p <= self.count and p not in self.claimed and p not in self.unsaid
            ]
            if wrong:
                at = min(wrong)
                said = f"voided_by says {self.claimed.get(at)}"
                first = (at, f"{said}, the corrections say {voided.get(at)}")
        if self.bad_dice is not None and (first is None or self.bad_dice < first[0]):
            first = (self.bad_dice, "the dice column differs from the event's rolls")
        if first is None:
            return ChainReport(True, self.count, redacted=self.withheld, concealed=self.concealed)
        return ChainReport(False, self.count, first[0], first[1], self.withheld, self.concealed)


_UNSAID = object()  # a record without voided_by


def check_derived_columns(records: list[dict[str, Any]]) -> ChainReport:
    """DerivedCheck over records whose chain holds."""
    check = DerivedCheck()
    for rec in records:
        check.add(rec, withheld_of(rec))
    return check.report()


@dataclass
class DiceReport:
    """What re-deriving the seeded and server faces of a log found."""

    checked: int = 0  # faces re-derived and equal
    manual: int = 0  # faces the table typed in: nothing to prove
    unrevealed: int = 0  # server faces whose secret is not revealed yet
    inherited: int = 0  # a fork's copied faces: proven by the encounter it came from
    withheld: int = 0  # faces he cannot key or read: withheld, or his command's earlier ones
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    bad_reveals: list[int] = field(default_factory=list)  # secrets that miss their commitment

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.bad_reveals


def verify_dice(records: Iterable[dict[str, Any]]) -> DiceReport:
    """Re-derive every seeded and server face (DiceCheck) and compare."""
    check = DiceCheck()
    for rec in records:
        check.add(rec, withheld_of(rec))
    return check.report()


@dataclass
class _Secrets:
    """What re-derives a face: the encounter's seed (seeded dice), each epoch's revealed
    secret (server dice) and where each epoch starts; and what no secret here proves: a
    fork's faces up to `inherited_until`, and faces keyed after a withheld record."""

    withheld: set[int] = field(default_factory=set)  # records whose rolls he cannot read
    seed: bytes | None = None
    inherited_until: int = 0
    revealed: dict[int, bytes] = field(default_factory=dict)  # epoch -> revealed secret
    epoch_starts: list[int] = field(default_factory=lambda: [1])  # epoch e: positions from [e]
    in_force: str | None = None  # the commitment the next reveal must match

    def of(self, source: str, position: int) -> bytes | None:
        """The secret a face at `position` derives from; None where it is not revealed."""
        epoch = bisect_right(self.epoch_starts, position) - 1
        return self.seed if source == "seeded" else self.revealed.get(epoch)


class DiceCheck:
    """Every seeded and server face re-derived (domain.dice.derived_face, keyed by the
    command's position, the roll name and the face's ordinal) and compared, read record by
    record: the table's faces and a fork's are counted as they pass; those a secret proves
    are kept (their roll, not their record) until every secret and withheld record is known."""

    def __init__(self) -> None:
        self.dice = DiceReport()
        self.secrets = _Secrets()
        self.first = True
        self.drawn: dict[tuple[int, int, str], int] = {}  # faces of a roll name drawn so far
        self.keyed: list[tuple[int, int, str, dict[str, Any], int]] = []

    def add(self, rec: dict[str, Any], hidden: frozenset[str]) -> None:
        """A record, with the data members concealed from its reader."""
        secrets, position = self.secrets, rec["position"]
        if rec.get("redacted") is True or "rolls" in hidden:
            # his command's later faces cannot be keyed
            secrets.withheld.add(position)
            if rec.get("redacted") is True:
                return
        data, kind = rec["data"], rec["type"]
        if self.first:  # the first readable record, if it is the log's first, alone
            self.first = False
            if position == 1 and kind == "EncounterCreated":
                secrets.seed = data["seed"].encode() if data.get("seed") else None
                secrets.in_force = data.get("dice_commitment")
                if data.get("forked_from"):
                    secrets.inherited_until = data["forked_from"]["at"]
        if kind == "DiceCommitted":
            secrets.in_force = data["commitment"]
        elif kind == "DiceSecretRevealed":
            self._revealed(position, data)
        if "rolls" in hidden:  # concealed: its faces, as far as they show, withheld
            self.dice.withheld += _faces_shown(data["rolls"])
            return
        for name, roll in (data.get("rolls") or {}).items():
            # a command's dice count faces per roll name across all its events (a second
            # death check in one command draws the second face of `death`)
            key_of = (rec["command"], roll.get("attempt", 0), name)
            first = self.drawn.get(key_of, 0)
            self.drawn[key_of] = first + len(roll["faces"])
            if roll["source"] == "manual":  # the table's: nothing to prove
                self.dice.manual += len(roll["faces"])
            elif position <= secrets.inherited_until:
                self.dice.inherited += len(roll["faces"])
            else:
                self.keyed.append((rec["command"], position, name, roll, first))

    def _revealed(self, position: int, data: dict[str, Any]) -> None:
        """A reveal, checked against the commitment in force (one that misses it goes to
        `bad_reveals`)."""
        secrets = self.secrets
        secret = bytes.fromhex(data["secret"])
        digest = hashlib.sha256(secret).hexdigest()
        if digest != data["commitment"] or digest != secrets.in_force:
            self.dice.bad_reveals.append(position)
        secrets.in_force = data.get("next_commitment")
        secrets.revealed[data["epoch"]] = secret
        if data.get("next_commitment"):
            secrets.epoch_starts.append(position + 1)

    def report(self) -> DiceReport:
        withheld = sorted(self.secrets.withheld)
        for command, position, name, roll, first in self.keyed:
            # his command's earlier records withheld: a face of it cannot be keyed
            at = bisect_left(withheld, command)
            if at < len(withheld) and withheld[at] < position:
                self.dice.withheld += len(roll["faces"])
            else:
                self._check_roll(command, position, name, roll, first)
        self.keyed = []
        return self.dice

    def _check_roll(
        self, command: int, position: int, name: str, roll: dict[str, Any], first: int
    ) -> None:
        """Re-derive a roll's faces (`first`: the ordinal of its first face under its name)
        and compare; those whose secret is not revealed yet are counted."""
        faces, report = roll["faces"], self.dice
        secret = self.secrets.of(roll["source"], position)
        if secret is None:
            report.unrevealed += len(faces)
            return
        for n, face in enumerate(faces):
            key = derivation_key(command, roll.get("attempt", 0), name, first + n)
            expected = derived_face(secret, key, roll["sides"][n])
            if expected != face:
                report.mismatches.append(
                    {
                        "position": position,
                        "roll": name,
                        "die": n + 1,
                        "face": face,
                        "expected": expected,
                    }
                )
            else:
                report.checked += 1


def _faces_shown(rolls: Any) -> int:
    """The faces a concealed `rolls` still lists: of each member that is an object whose
    `faces` is an array, that array's length (anything else: none)."""
    if not isinstance(rolls, dict):
        return 0
    return sum(
        len(roll["faces"])
        for roll in rolls.values()
        if isinstance(roll, dict) and isinstance(roll.get("faces"), list)
    )
