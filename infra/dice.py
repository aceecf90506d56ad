"""The dice of one command: the table's faces, a public seed, or the committed server secret."""

from __future__ import annotations

from collections.abc import Callable

from domain.dice import Ask, DerivedDice, DiceSource, ManualDice, MixedDice, needed
from domain.errors import RuleViolation
from domain.state import EncounterState


class ServerDice:
    """Faces derived from the committed server secret, fetched at the first face drawn."""

    name = "server"

    def __init__(
        self, secret: Callable[[], bytes], position: int, attempt: Callable[[], int]
    ) -> None:
        self._secret = secret
        self._position = position
        self._attempt = attempt
        self._derived: DerivedDice | None = None

    @property
    def attempt(self) -> int:
        return self._derived.attempt if self._derived else 0

    def face(self, roll: str, sides: int, ask: Ask | None = None) -> int:
        if self._derived is None:  # a durable count: a refused command burns its draw
            self._derived = DerivedDice("server", self._secret(), self._position, self._attempt())
        return self._derived.face(roll, sides)

    def finish(self) -> None:
        return None


class UndrawnServerDice:
    """A preview's server dice: the first server face stops the command there, so a
    preview never draws, counts or reveals a server die; the refusal names the roll."""

    name = "server"
    attempt = 0

    def face(self, roll: str, sides: int, ask: Ask | None = None) -> int:
        stop = needed(roll, 1, sides, ask, None)
        stop.needed["source"] = "server"
        stop.detail = f"the server rolls '{roll}' when the command is sent: {stop.needed['label']}"
        raise stop

    def finish(self) -> None:
        return None


def dice_for(
    state: EncounterState,
    manual: dict[str, list[int]] | None,
    source: str | None,
    server_secret: Callable[[], bytes],
    attempt: Callable[[], int] = lambda: 0,
    *,
    preview: bool = False,
) -> DiceSource:
    """Manual faces where given; the rest from the chosen source. Seeded and server faces are
    HMAC-SHA256 derivations (domain.dice.derived_face) keyed by the command's position, the
    roll name and the face's ordinal, so anyone holding the seed or the revealed secret can
    re-derive them. Server draws also count attempts at a position, kept durably: a command
    refused after it drew cannot be retried to see the same faces (the attempt is recorded
    with the roll, so a server that redrew would show it). A `preview` draws no server die:
    it stops at the first one (UndrawnServerDice)."""
    name = source or state.dice_source
    fallback: DiceSource | None
    if name == "manual":
        fallback = None
    elif name == "seeded":
        if not state.seed:
            raise RuleViolation("DICE", "this encounter has no seed", field="dice_source")
        fallback = DerivedDice("seeded", state.seed.encode(), state.version + 1)
    elif preview:
        fallback = UndrawnServerDice()
    else:
        fallback = ServerDice(server_secret, state.version + 1, attempt)
    return MixedDice(ManualDice(manual or {}), fallback)
