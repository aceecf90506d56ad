"""The eventsourcing Application for encounters, on SQLite or PostgreSQL."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from copy import deepcopy
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent
from eventsourcing.persistence import IntegrityError, JSONTranscoder, Transcoding
from eventsourcing.utils import get_topic

from domain import events as ev
from domain.commands import DiceSourceName, EndEncounter, Redo, RevealDice, Undo, Void
from domain.dice import ManualDice
from domain.encounter import GM, Encounter, project_encounter
from domain.errors import DamagedRecord, DiceNeeded, DomainError
from domain.rulesystems import get_rule_system
from domain.state import EncounterState
from domain.upcasting import respell
from infra.access import AccessStore, Grant, check_command
from infra.accounts import Account, Accounts
from infra.checkpoints import Checkpoints
from infra.choices import choices
from infra.dice import dice_for
from infra.export_rows import StoredLog
from infra.group_commit import GroupCommit, LoopCommits, Turns
from infra.history import StoredHistory, corrections_of
from infra.idempotency import (
    ALSO,
    MARK,
    UNNUMBERED,
    Also,
    IdempotencyKeys,
    Mark,
    columns,
    recorder_env,
)
from infra.kept_reads import KeptAnswers, KeptNarratives, PositionsAsync, PositionsHere
from infra.runner_lock import creating_tables
from infra.secrets import SecretStore
from infra.settings import Settings, register_rule_books
from infra.sidetables import SideTables
from infra.sqlite_tuning import keep_connections, set_synchronous
from projections.audit import NO_CHECKPOINT, Audit, judged
from projections.visibility import Sight, departed, for_player, sight_of

log = logging.getLogger("fraylog.checkpoints")
RULESETS_KEPT = 10_000  # encounters whose rule book Fraylog.ruleset keeps in memory
CHECKPOINTED = (ev.RoundEnded, ev.EncounterEnded)  # events after which a checkpoint is signed
# an encounter another process recorded on twice within this long (not a table that moved
# once from one worker to another): its commands read the store first until as long passes
# without another process's record found
ELSEWHERE_SECONDS = 60.0


def _checkpointed(events: list[Any]) -> bool:
    """Whether a checkpoint is signed once these events are recorded (`_sign_after`)."""
    return any(isinstance(e, CHECKPOINTED) for e in events)


class EncounterStateAsDict(Transcoding):
    """Snapshots hold the folded state as plain JSON."""

    type = EncounterState
    name = "encounter_state"

    def encode(self, obj: EncounterState) -> dict[str, Any]:
        return obj.model_dump()

    def decode(self, data: dict[str, Any]) -> EncounterState:
        return EncounterState.model_validate(respell(data))  # one taken before `defense`


def _saving(encounter: Encounter, **saved: Any) -> ProcessingEvent[UUID]:
    """What a save records: the encounter's pending events (collected) and `saved`, as the
    library's ProcessingEvent.collect_events makes it, without its checks of what it is
    given against the library's runtime protocols (about 10 µs, of the 60-90 µs a command
    is decided in here)."""
    saving: ProcessingEvent[UUID] = ProcessingEvent()
    saving.events = list(encounter.collect_events())
    saving.aggregates[encounter.id] = encounter
    saving.saved_kwargs.update(saved)
    return saving


class StoreNeeded(Exception):
    """Raised when deciding a command on the event loop would read or write the store (a
    server die's draw is counted durably): the command is decided in a worker thread."""


class AfterCommitFailed(RuntimeError):
    """Raised when a command was recorded but what follows its commit failed (its snapshot,
    say): the command stands; the failure is the server's."""


def _rolled(
    encounter: Encounter,
    command: Any,
    actor: str,
    secret: Callable[[], bytes],
    attempt: Callable[[], int],
    preview: bool = False,
) -> None:
    """A command that is neither a correction nor a reveal decided on `encounter`, its dice
    the table's, the seed's or the server's (`secret`, and `attempt`, which counts a draw:
    infra.dice.dice_for)."""
    dice = dice_for(
        encounter.state, command.dice, command.dice_source, secret, attempt, preview=preview
    )
    encounter.execute(command, dice, actor=actor)


def _store_needed() -> Any:
    raise StoreNeeded


class Conflict(DomainError):
    """Raised when a command was decided on a version that is no longer the latest."""

    status = 409
    title = "Version conflict"


class EncounterNotFound(DomainError):
    """Raised when no encounter has the id asked for."""

    status = 404
    title = "Encounter not found"


@dataclass(frozen=True)
class Recorded:
    """What a command recorded (or, previewed, would record), and the encounter after it;
    a preview that stopped at a face not given says which (`needed`)."""

    events: list[Any]
    state: EncounterState
    needed: dict[str, Any] | None = None


class Fraylog(Application[UUID]):
    """Encounters as event streams; snapshots every `snapshot_interval` events."""

    name = "fraylog"
    snapshotting_projectors = {Encounter: project_encounter}  # noqa: RUF012

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings.from_env()
        register_rule_books(self.settings.rule_books)
        self.snapshotting_intervals = {Encounter: self.settings.snapshot_interval}
        with creating_tables(self.settings):  # another process may be creating them too
            if self.settings.backend == "postgres" and self.settings.postgres_schema:
                ensure_schema(self.settings)
            # its recorder marks an Idempotency-Key in the transaction of its command's events
            env = {**self.settings.eventsourcing_env(), **recorder_env(self.settings)}
            super().__init__(env=env)
            self.secrets = SecretStore(self.settings)
            self.access = AccessStore(self.settings)
            self.keys = IdempotencyKeys(self.settings)
            self.accounts = Accounts(self.settings)
            self.read_tables = SideTables(self.settings)  # the read models', for the reads
            self.checkpoints = Checkpoints(self.settings)
        if self.settings.backend == "sqlite":
            pool = self.recorder.datastore.pool  # type: ignore[attr-defined]
            set_synchronous(pool, self.settings.sqlite_synchronous)
            keep_connections(pool)
        self.commits = GroupCommit(
            self._record_together,
            self.settings.commit_group_size,
            own=(IntegrityError, DomainError),  # a taken position; a key's mark, a cap
        )
        # PostgreSQL: what is decided on the event loop is committed there too
        self.loop_commits: LoopCommits | None = None
        url = self.settings.database_url
        if self.settings.backend == "postgres" and url and self.settings.commit_on_loop:
            self.loop_commits = LoopCommits(
                url,
                self.recorder.at_once,  # type: ignore[attr-defined]
                self._columns_of,
                self.commits,
                self.settings.commit_group_size,
                f"fraylog commits {self.settings.postgres_schema or 'public'}",
            )
        self.turns = Turns()  # one write at a time per encounter in this process
        self.listeners: list[Callable[[str], None]] = []  # told of each encounter saved
        self._rulesets: dict[UUID, str] = {}  # an encounter's rule book, once read
        # encounters another process recorded on: when this one last found out, and how many
        # times in a row, each within ELSEWHERE_SECONDS of the one before (Fraylog._kept)
        self._elsewhere: OrderedDict[UUID, tuple[float, int]] = OrderedDict()
        self._elsewhere_lock = threading.Lock()

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        super().register_transcodings(transcoder)
        transcoder.register(EncounterStateAsDict())

    # -- writes -----------------------------------------------------------------
    def create_encounter(
        self,
        name: str,
        ruleset: str,
        dice_source: DiceSourceName = "server",
        seed: str | None = None,
        options: dict[str, Any] | None = None,
        actor: str = GM,
        account: Account | None = None,
    ) -> Recorded:
        """A new encounter; with an `account`, owned by it (within its cap), its claim
        recorded in the transaction of the encounter's first events."""
        encounter_id = uuid4()
        commitment = self.secrets.commit(encounter_id)  # kept before anything is recorded
        encounter = Encounter.start(
            name,
            ruleset,
            dice_source,
            seed,
            options,
            actor=actor,
            encounter_id=encounter_id,
            dice_commitment=commitment,
        )
        started = encounter.pending_events[0]
        created_at = started.timestamp.isoformat()
        claim = account and self.accounts.claim(account, encounter_id, name, ruleset, created_at)
        recorded = self._save(encounter, also=claim)
        self._keep_ruleset(encounter_id, started.ruleset)  # its first command needs no read
        return recorded

    def add_combatant(
        self,
        encounter_id: UUID,
        name: str,
        side: str,
        stats: dict[str, Any],
        expected_version: int | None = None,
        actor: str = GM,
        *,
        hidden: bool = False,
        until_acting: bool = True,
        health: str | None = None,
        then: Callable[[Any], list[Any]] | None = None,
    ) -> tuple[str, Recorded]:
        """Add a combatant; `then(him)`: the GM's commands run on him in the same save (the
        lasting state a roster copy starts with, infra.campaigns), rolling no dice."""
        with self.turns.of(encounter_id):
            return self._add_combatant(
                encounter_id,
                name,
                side,
                stats,
                expected_version,
                actor,
                hidden,
                until_acting,
                health,
                then,
            )

    def _add_combatant(
        self,
        encounter_id: UUID,
        name: str,
        side: str,
        stats: dict[str, Any],
        expected_version: int | None,
        actor: str,
        hidden: bool,
        until_acting: bool,
        health: str | None,
        then: Callable[[Any], list[Any]] | None,
    ) -> tuple[str, Recorded]:
        encounter = self._load(encounter_id, expected_version)
        if len(encounter.state.combatants) >= self.settings.max_combatants:
            raise DomainError(
                "LIMIT",
                f"an encounter holds at most {self.settings.max_combatants} combatants "
                "(FRAYLOG_MAX_COMBATANTS)",
            )
        combatant = encounter.add_combatant(
            name, side, stats, actor=actor, hidden=hidden, until_acting=until_acting, health=health
        )
        for command in then(encounter.state.combatants[combatant]) if then else ():
            encounter.execute(command, ManualDice({}), actor=actor)
        return combatant, self._save(encounter)

    def execute(
        self,
        encounter_id: UUID,
        command: Any,
        grant: Grant | None = None,
        *,
        preview: bool = False,
        idempotency: Mark | None = None,
    ) -> Recorded:
        """Run a command; with a `grant` (a token's), only what it allows, its actor the
        token's; without one (open mode, the CLI), the command's `actor` or the GM. With
        `idempotency` (a key's Mark), its key is marked recorded with its events, at once.

        A command that needs a face the table has not given yet records nothing and raises
        DiceNeeded, with `so_far` the events the faces given decided (unstored) and
        `before` the state they follow. A `preview` runs the command on a copy and saves
        nothing: it draws no server die (it stops at the first, like at a missing face).

        Commands on one encounter take turns in this process (infra.group_commit.Turns):
        each is decided on what the one before it recorded, as this process keeps it, without
        asking the store. Should another process have recorded on the encounter since, the
        save finds the position taken and nothing is recorded; so a command refused, or not
        saved, on what this process kept is decided again on the store's latest. An encounter
        another process has recorded on lately is read from the store first, as before
        (`Fraylog._kept`): workers sharing a busy encounter would lose most saves otherwise."""
        if preview:
            encounter = self._load(encounter_id, command.expected_version)
            return self._execute(encounter, command, grant, True, None)
        with self.turns.of(encounter_id):
            kept = self._kept(encounter_id, command)
            if kept is not None:
                version = kept.version
                try:
                    checked = self._checked(kept, command.expected_version)
                    return self._execute(checked, command, grant, False, idempotency)
                except DomainError:
                    if self.encounter(encounter_id).version == version:
                        raise  # decided on the latest: the answer stands
            encounter = self._load(encounter_id, command.expected_version)
            return self._execute(encounter, command, grant, False, idempotency)

    async def execute_on_loop(
        self, encounter_id: UUID, command: Any, grant: Grant | None = None
    ) -> Recorded | None:
        """Run a command on the event loop, where the store is not needed to decide it: on
        the encounter as this process keeps it (`_kept`), its turn free, its events committed
        on the loop (PostgreSQL: `LoopCommits`, unless what follows needs the store) or
        handed to the writer (GroupCommit.submit), and awaited. No worker thread decides it
        or waits for its commit, which under load was most of a command's cost in hand-offs
        between threads.

        None, having recorded nothing, where `execute` must run instead, in a worker thread:
        the encounter not kept, or recorded on by another process lately; a correction (it
        reads the history), a reveal; a server die drawn (its attempt is counted in the
        store); another command holding or waiting for the turn; a refusal (decided again
        there, so its answer is the one `execute` gives, with what a player may see of it);
        the save finding its position taken by another process (decided again on the
        latest). What follows the commit runs where it was committed (the loop, or the
        writer's thread) before the turn is given back (`_after_commit`), whether or not
        this coroutine still waits."""
        if isinstance(command, Void | Undo | Redo):
            return None
        give_back = self.turns.take_now(encounter_id)
        if give_back is None:
            return None
        committed = None
        try:
            encounter = self._kept(encounter_id, command)
            if encounter is None or command.expected_version not in (None, encounter.version):
                return None
            actor = grant.actor if grant is not None else command.actor or GM
            try:
                if grant is not None:
                    check_command(grant, command, encounter.state)
                _rolled(encounter, command, actor, _store_needed, _store_needed)
            except (DomainError, StoreNeeded):
                return None
            pending = list(encounter.pending_events)
            saving = _saving(encounter)

            def then(error: BaseException | None) -> BaseException | None:
                return self._after_commit(error, saving, pending, give_back)

            # committed on the loop, unless what follows needs the store: a snapshot, a
            # checkpoint (they are written by the writer thread, the loop never waits)
            if self.loop_commits is not None and not self._follows_with_store(pending):
                committed = self.loop_commits.submit(saving, then)
            if committed is None:
                committed = self.commits.submit(saving, then=then)
        finally:
            if committed is None:
                give_back()
        try:
            # cancelled, this coroutine cancels only the future: the save is committed and
            # what follows it run all the same (infra.group_commit `_answered`)
            await committed
        except IntegrityError:  # its positions are taken by another process: nothing recorded
            return None
        return Recorded(pending, encounter.state)

    def _after_commit(
        self,
        error: BaseException | None,
        saving: ProcessingEvent[UUID],
        pending: list[Any],
        give_back: Callable[[], None],
    ) -> BaseException | None:
        """What follows a command's commit from the event loop, on the committing thread,
        the encounter's turn held till it is done: the commit's answer (None: recorded). A
        commit whose answer was lost (its positions taken by its own events, `_landed`) is
        recorded; what follows a commit and fails is an error that says it was recorded."""
        try:
            (encounter,) = saving.aggregates.values()
            landed = isinstance(error, IntegrityError) and self._landed(encounter.id, pending)
            if error is not None and not landed:
                return error
            try:
                self._recorded(encounter, saving, pending)
            except Exception as failed:  # never read as "not recorded"
                followed = AfterCommitFailed("recorded; what follows its commit failed")
                followed.__cause__ = failed
                return followed
            return None
        finally:
            give_back()

    def _kept(self, encounter_id: UUID, command: Any) -> Encounter | None:
        """A copy of the encounter as this process last recorded or read it. None when it
        keeps none; when it is shared (another process's records found on it twice, each
        within ELSEWHERE_SECONDS of the one before, the last within as long); for a reveal
        (`reveal_dice`, `end_encounter`: a secret is published, decided on the latest
        only). Found once, the encounter moved here from another process (a client whose
        connection now lands on this worker): the latest, read then, is what is kept."""
        cache = self.repository.cache
        if cache is None or isinstance(command, RevealDice | EndEncounter):
            return None
        with self._elsewhere_lock:
            seen, times = self._elsewhere.get(encounter_id, (0.0, 0))
        if times > 1 and time.monotonic() - seen < ELSEWHERE_SECONDS:
            return None
        try:
            return deepcopy(cache.get(encounter_id))
        except KeyError:
            return None

    def _recorded_elsewhere(self, encounter_id: UUID) -> None:
        """Note that another process recorded on the encounter (a fast-forward found events
        this process did not keep), for `_kept`; the notes of the most encounters kept."""
        now = time.monotonic()
        with self._elsewhere_lock:
            seen, times = self._elsewhere.get(encounter_id, (0.0, 0))
            lately = now - seen < ELSEWHERE_SECONDS
            self._elsewhere[encounter_id] = (now, times + 1 if lately else 1)
            self._elsewhere.move_to_end(encounter_id)
            if len(self._elsewhere) > RULESETS_KEPT:
                self._elsewhere.popitem(last=False)

    def _execute(
        self,
        encounter: Encounter,
        command: Any,
        grant: Grant | None,
        preview: bool,
        idempotency: Mark | None,
    ) -> Recorded:
        encounter_id = encounter.id
        state = encounter.state
        before = state.version
        actor = grant.actor if grant is not None else command.actor or GM
        try:
            try:
                if grant is not None:
                    check_command(grant, command, state)
                self._run(encounter, encounter_id, command, actor, preview)
            except DiceNeeded as needed:
                if preview:
                    return Recorded(list(encounter.pending_events), encounter.state, needed.needed)
                needed.so_far = list(encounter.pending_events)
                needed.before = lambda: self.state(encounter_id, before)
                raise
        except DomainError as refused:  # what it says may name a combatant hidden from him
            if grant is not None and not grant.is_gm:
                refused.sight = self.sight(encounter_id, grant, state)
            raise
        if preview:
            return Recorded(list(encounter.pending_events), encounter.state)
        return self._save(encounter, idempotency)

    def _run(
        self, encounter: Encounter, encounter_id: UUID, command: Any, actor: str, preview: bool
    ) -> None:
        state = encounter.state
        if isinstance(command, Void | Undo | Redo):
            encounter.correct(command, self._history(encounter_id, encounter.version), actor)
        elif isinstance(command, RevealDice | EndEncounter):
            if preview:  # its event holds the secret
                raise DomainError(
                    "PREVIEW",
                    f"{command.type} reveals the dice secret; it cannot be previewed",
                    field="preview",
                )
            encounter.refuse_if_ended()
            ending = command.reason if isinstance(command, EndEncounter) else None
            following = None if ending else self.secrets.commit(encounter_id)
            encounter.reveal_dice(
                self._secret(encounter_id, state), following, actor, ending=ending
            )
        else:
            _rolled(
                encounter,
                command,
                actor,
                lambda: self._secret(encounter_id, state),
                lambda: self.secrets.next_attempt(encounter_id, state.version + 1),
                preview,
            )

    def choices(self, encounter_id: UUID, grant: Grant | None = None) -> dict[str, Any]:
        """What `grant` (None: open mode, the GM) may send now (infra.choices)."""
        encounter = self.encounter(encounter_id)
        corrections = {}
        if grant is None or grant.is_gm:
            for correction in (Undo(), Redo()):
                try:
                    self.execute(encounter_id, correction, None, preview=True)
                    corrections[correction.type] = True
                except DomainError:
                    corrections[correction.type] = False
        return choices(encounter, grant, corrections)

    def _history(self, encounter_id: UUID, version: int) -> StoredHistory:
        """The stored events up to `version` as a correction reads them (infra.history): its
        corrections at once, the rest lazily from the latest, states from the snapshots."""
        return StoredHistory(
            self.recorder,
            self.mapper,
            self.events,
            self.snapshots,
            encounter_id,
            version,
            chunk=self.settings.snapshot_interval,
        )

    def _secret(self, encounter_id: UUID, state: EncounterState) -> bytes:
        try:
            return self.secrets.get(encounter_id, state.dice_commitment or "")
        except LookupError:
            raise DomainError(
                "DICE", "this encounter has no server dice secret under its commitment"
            ) from None

    def fork(self, encounter_id: UUID, at: int, name: str, actor: str = GM) -> Recorded:
        """A new encounter with this one's first `at` events; the original is untouched. The
        fork of an account's encounter is the account's too."""
        history = self.event_log(encounter_id, until=at + 1)  # one more: is `at` a command's end?
        fork_id = uuid4()
        fork = Encounter.fork(
            history, at, name, fork_id, lambda: self.secrets.commit(fork_id), actor
        )
        owner = self.accounts.owner_of(str(encounter_id))
        created_at = fork.pending_events[0].timestamp.isoformat()
        claim = owner and self.accounts.claim(owner, fork_id, name, history[0].ruleset, created_at)
        return self._save(fork, also=claim)

    def close(self) -> None:
        if getattr(self, "loop_commits", None) is not None:
            self.loop_commits.forget()  # its loop gone without `close_on_loop` (tests, CLI)
        positions = self.__dict__.get("_positions_async")
        if positions is not None:
            positions.forget()  # the same
        if hasattr(self, "commits"):
            self.commits.close()  # what was handed over is committed first
        super().close()
        if hasattr(self, "secrets"):
            self.secrets.close()
        if hasattr(self, "access"):
            self.access.close()
        if hasattr(self, "keys"):
            self.keys.close()
        if hasattr(self, "accounts"):
            self.accounts.close()
        if hasattr(self, "read_tables"):
            self.read_tables.close()
        if hasattr(self, "checkpoints"):
            self.checkpoints.close()
        here = self.__dict__.get("_positions_here")  # made on the first kept read
        if here is not None:
            here.close()

    def verify(self, encounter_id: UUID, sight: Sight | None = None) -> dict[str, Any]:
        """Recompute the hash chain, re-derive the seeded and revealed server faces, and
        check the latest checkpoint against the installation's keys; with a player's
        `sight`, over the records he may read (the others as placeholders). One pass over
        the stored rows, a page at a time, each record made from its row's JSON
        (infra.export_rows) and dropped once checked."""
        log, audit, last = StoredLog.of(self), Audit(), 0
        end = self.last_position(encounter_id)  # events recorded meanwhile are not read:
        voided = log.voided(encounter_id, end)  # their corrections would not be either
        for page in log.pages(encounter_id, until=end):
            last = page[-1][0]  # its position
            readable = for_player(log.records(encounter_id, page, voided), sight)
            if not all(map(audit.add, readable)):
                break  # the chain is broken: the rest changes nothing
        if not last:
            raise EncounterNotFound("ENCOUNTER", f"no encounter {encounter_id}")
        latest = self.checkpoints.latest(encounter_id, last)
        signed = NO_CHECKPOINT if latest is None else latest
        return judged(audit, signed, self.checkpoints.keys())

    def checkpoint(self, encounter_id: UUID) -> dict[str, Any]:
        """Sign a checkpoint of the encounter as it stands (its last event)."""
        encounter = self.encounter(encounter_id)
        return self.checkpoints.sign(encounter_id, encounter.version, encounter.last_hash)

    def _load(self, encounter_id: UUID, expected_version: int | None) -> Encounter:
        return self._checked(self.encounter(encounter_id), expected_version)

    def _checked(self, encounter: Encounter, expected_version: int | None) -> Encounter:
        if expected_version is not None and expected_version != encounter.version:
            raise Conflict(
                "VERSION",
                f"the command was decided on version {expected_version}, "
                f"but the encounter is at version {encounter.version}",
                field="expected_version",
            )
        return encounter

    def _save(
        self, encounter: Encounter, idempotency: Mark | None = None, also: Also | None = None
    ) -> Recorded:
        """Save the pending events; with them, in one transaction, `idempotency`'s mark and
        `also`, a write of fraylog's own (an account's claim on a new encounter)."""
        pending = list(encounter.pending_events)
        saving = _saving(encounter, **{MARK: idempotency, ALSO: also})
        try:  # with the saves of other commands that wait for the store (infra.group_commit)
            self.commits.commit(saving)
        except IntegrityError:  # its positions are taken: by another command, or by itself
            if not self._landed(encounter.id, pending):
                raise Conflict(
                    "VERSION",
                    "another command was recorded on this encounter first; reload and try again",
                ) from None
        self._recorded(encounter, saving, pending)
        return Recorded(pending, encounter.state)

    def _recorded(
        self, encounter: Encounter, saving: ProcessingEvent[UUID], pending: list[Any]
    ) -> None:
        """What follows a commit: the encounter kept as recorded (the next command starts
        from it), its snapshot and checkpoint when due, the feed told."""
        self._keep(encounter)
        self._take_snapshots(saving)
        if _checkpointed(pending):
            self._sign_after(encounter)
        for listener in self.listeners:
            listener(str(encounter.id))

    def _landed(self, encounter_id: UUID, pending: list[Any]) -> bool:
        """Whether these very events are stored: a commit that landed but whose answer was
        lost (the connection dropped; the recorder's retry then found its positions taken).
        Each event's hash chains its content, time and the hash before it."""
        if not pending:
            return False
        first, last = pending[0].originator_version, pending[-1].originator_version
        stored = self.events.get(encounter_id, gt=first - 1, lte=last)
        return [e.hash for e in stored] == [e.hash for e in pending]

    def _record_together(self, savings: Sequence[ProcessingEvent[UUID]]) -> None:
        """Record the events of several saves in one transaction, each with its own key's
        mark and its own write (the recorders of infra.idempotency take them as lists)."""
        together: ProcessingEvent[UUID] = ProcessingEvent()
        marks: list[Mark] = []
        writes: list[Also] = []
        for saving in savings:
            together.events += saving.events
            together.aggregates.update(saving.aggregates)
            mark, also = saving.saved_kwargs.get(MARK), saving.saved_kwargs.get(ALSO)
            marks += [mark] if mark is not None else []
            writes += [also] if also is not None else []
        together.saved_kwargs = {MARK: marks, ALSO: writes, UNNUMBERED: True}
        self._record(together)

    def _sign_after(self, encounter: Encounter) -> None:
        """A round's end, or the encounter's, is checkpointed once recorded. The events are
        saved by then: a signature that fails is logged, never the command's failure (the
        next round's end, or the GM's POST …/checkpoints, signs again)."""
        try:
            self.checkpoints.sign(encounter.id, encounter.version, encounter.last_hash)
        except Exception:
            log.exception(
                "no checkpoint signed for encounter %s at %s", encounter.id, encounter.version
            )

    # -- reads ------------------------------------------------------------------
    def encounter(self, encounter_id: UUID, version: int | None = None) -> Encounter:
        """The aggregate at `version` (else the latest, fast-forwarded): a copy, which the
        caller may change (a command does)."""
        try:
            return self.repository.get(encounter_id, version=version, projector_func=self._fold)
        except AggregateNotFoundError:
            raise EncounterNotFound("ENCOUNTER", f"no encounter {encounter_id}") from None

    def _fold(self, folded: Encounter | None, events: Iterable[Any]) -> Encounter | None:
        """The repository's projector. An aggregate in the cache is never changed in place
        (a command's answer may still be reading its state, another thread copying it): one
        fast-forwarded by events recorded elsewhere is a copy, kept in its place."""
        if folded is None:
            return project_encounter(None, events)
        events = iter(events)
        first = next(events, None)
        if first is None:
            return folded
        self._recorded_elsewhere(folded.id)  # this process keeps what it records itself
        moved = project_encounter(deepcopy(folded), chain((first,), events))
        if moved is not None:
            self._keep(moved)
        return moved

    def _keep(self, encounter: Encounter) -> None:
        """Cache `encounter` as the latest this process knows (it is not changed after),
        not over a later one found there. Not atomic with the library's own put (a read that
        missed the cache puts what it folded): an earlier version may be left kept, and the
        next command then finds its position taken and is decided again."""
        cache = self.repository.cache
        if cache is None:
            return
        try:
            kept = cache.get(encounter.id)
        except KeyError:
            kept = None
        if kept is None or kept.version < encounter.version:
            cache.put(encounter.id, encounter)

    def sight(self, encounter_id: UUID, player: Grant, state: Any = None) -> Sight:
        """What a player's token may read of an encounter as it stands (`state`, or now):
        who acts for whom, and the combatants corrections took away, whose records stay."""
        state = state if state is not None else self.state(encounter_id)
        gone = departed(self.corrections(encounter_id))
        return sight_of(state, player.combatants, self.party(encounter_id), gone)

    def party(self, encounter_id: UUID) -> frozenset[str]:
        """The combatants some player acts for: how other players see their health is the
        party's (docs/visibility.md)."""
        return frozenset(c for t in self.access.players(encounter_id) for c in t["combatants"])

    def state(self, encounter_id: UUID, version: int | None = None) -> EncounterState:
        """The folded state after event `version` (the latest if None or beyond it)."""
        if version is not None and version < 1:
            raise DomainError("VERSION", "versions start at 1", field="version")
        return self.encounter(encounter_id, version).state

    def ruleset(self, encounter_id: UUID) -> str:
        """The name of the rule book an encounter is played by (from its first event; it
        never changes, so it is kept once read)."""
        known = self._rulesets.get(encounter_id)
        if known is None:
            known = self.event_log(encounter_id, 1)[0].ruleset
            self._keep_ruleset(encounter_id, known)
        return known

    def _keep_ruleset(self, encounter_id: UUID, ruleset: str) -> None:
        if len(self._rulesets) >= RULESETS_KEPT:
            self._rulesets.clear()
        self._rulesets[encounter_id] = ruleset

    def known_ruleset(self, encounter_id: UUID) -> str | None:
        """The rule book's name if this process has read it already (no I/O), else None."""
        return self._rulesets.get(encounter_id)

    def command(self, encounter_id: UUID, body: Any, ruleset: str | None = None) -> Any:
        """A command's body parsed by the encounter's rule book (`ruleset`, when the caller
        has it already): the core's commands and its own (pydantic's ValidationError for a
        body that is none of them)."""
        rules = get_rule_system(ruleset or self.ruleset(encounter_id))
        return rules.command_adapter().validate_python(body)

    def event_page(
        self, encounter_id: UUID, after: int = 0, until: int | None = None, size: int = 0
    ) -> list[Any]:
        """At most `size` (default: the page size) stored events after position `after`."""
        limit = size or self.settings.page_size
        return list(self.events.get(encounter_id, gt=after, lte=until, limit=limit))

    def event_pages(
        self, encounter_id: UUID, after: int = 0, until: int | None = None
    ) -> Iterator[list[Any]]:
        """The stored events after position `after` (up to `until`), a page at a time, so a
        long log is never held in memory at once."""
        while True:
            page = self.event_page(encounter_id, after, until)
            if page:
                yield page
            if len(page) < self.settings.page_size:
                return
            after = page[-1].originator_version

    def corrections(self, encounter_id: UUID, until: int | None = None) -> list[Any]:
        """The corrections of an encounter up to `until` (else its last event): what
        `voided_by` needs, read alone by their topics and kept (infra.history)."""
        end = self._last_stored(encounter_id)
        if end is None:
            return []
        return corrections_of(
            self.recorder, self.mapper, encounter_id, end if until is None else min(until, end)
        )

    def _last_stored(self, encounter_id: UUID) -> int | None:
        """The position of an encounter's last stored event; None if it has none."""
        last = self.recorder.select_events(encounter_id, desc=True, limit=1)
        return last[0].originator_version if last else None

    def event_log(self, encounter_id: UUID, until: int | None = None) -> list[Any]:
        """The stored events of one encounter, in order, up to position `until`; none, yet
        some stored after it: its first event is lost, a damaged record."""
        events = list(self.events.get(encounter_id, lte=until))
        if not events:
            first = next(iter(self.events.get(encounter_id, limit=1)), None)
            if first is None:
                raise EncounterNotFound("ENCOUNTER", f"no encounter {encounter_id}")
            raise DamagedRecord.gap(encounter_id, 1, first.originator_version)
        return events

    def last_position(self, encounter_id: UUID) -> int:
        """The position of an encounter's last stored event (one row read): what a kept
        read is found by, asked of the store each time since another process may record."""
        last = self._last_stored(encounter_id)
        if last is None:
            raise EncounterNotFound("ENCOUNTER", f"no encounter {encounter_id}")
        return last

    @cached_property
    def narratives(self) -> KeptNarratives:
        """The narrative logs kept in memory (infra.kept_reads), told on from the store."""
        return KeptNarratives(
            self.settings.narrative_cache_size,
            lambda encounter_id, after: (
                e for page in self.event_pages(encounter_id, after) for e in page
            ),
        )

    @cached_property
    def answers(self) -> KeptAnswers:
        """The view's and the log's answers kept in memory (infra.kept_reads)."""
        return KeptAnswers(self.settings.answer_cache_bytes)

    @cached_property
    def _positions_here(self) -> PositionsHere | None:
        path = self.settings.sqlite_path
        if self.settings.backend != "sqlite" or ":memory:" in path or "mode=memory" in path:
            return None
        return PositionsHere(path, self.recorder.events_table_name)  # type: ignore[attr-defined]

    def last_position_here(self, encounter_id: UUID) -> int | None:
        """`last_position` read on the calling thread without the thread pool, where the
        store allows it (a SQLite file: infra.kept_reads.PositionsHere); None elsewhere, or
        for an encounter with no event: ask `last_position` in the thread pool."""
        here = self._positions_here
        return None if here is None else here.last(encounter_id)

    @cached_property
    def _positions_async(self) -> PositionsAsync | None:
        url = self.settings.database_url
        if self.settings.backend != "postgres" or not url:
            return None
        table = self.recorder.events_table_name  # type: ignore[attr-defined]
        return PositionsAsync(url, self.settings.postgres_schema, table)

    async def last_position_async(self, encounter_id: UUID) -> int | None:
        """`last_position` awaited on the event loop without the thread pool, where the store
        allows it (PostgreSQL: infra.kept_reads.PositionsAsync); None elsewhere, for an
        encounter with no event, or when that read failed: ask `last_position` in the pool."""
        positions = self._positions_async
        return None if positions is None else await positions.last(encounter_id)

    async def close_on_loop(self) -> None:
        """Commit what waits on the serving event loop and close what it opened there (the
        app's shutdown, before `close`)."""
        try:
            if self.loop_commits is not None:
                await self.loop_commits.close()
        finally:
            await self.close_reads_on_loop()

    async def close_reads_on_loop(self) -> None:
        """Close what the reads opened on the serving event loop (the app's shutdown, before
        `close`)."""
        try:
            positions = self.__dict__.get("_positions_async")
            if positions is not None:
                await positions.close()
        finally:
            await self.access.close_on_loop()

    def _snapshots_due(self, events: Iterable[Any]) -> set[UUID]:
        """The encounters whose events cross a multiple of the snapshot interval."""
        if self.snapshots is None:
            return set()
        interval = self.settings.snapshot_interval
        return {e.originator_id for e in events if e.originator_version % interval == 0}

    def _follows_with_store(self, pending: list[Any]) -> bool:
        """Whether what follows these events' commit (`_recorded`) writes to the store: a
        snapshot due, a checkpoint to sign."""
        return _checkpointed(pending) or bool(self._snapshots_due(pending))

    def _columns_of(self, savings: list[ProcessingEvent[UUID]]) -> tuple[list[Any], ...]:
        """The saves' events as the recorder's one-query insert takes them (`LoopCommits`)."""
        return columns([self.mapper.to_stored_event(e) for s in savings for e in s.events])

    def _take_snapshots(self, processing_event: ProcessingEvent[UUID]) -> None:
        """Snapshot the aggregate just saved, from memory, when its events cross a multiple of
        the interval (the library's own way reloads it from the store first)."""
        for encounter_id in self._snapshots_due(processing_event.events):
            aggregate = processing_event.aggregates.get(encounter_id)
            if isinstance(aggregate, Encounter):
                self.snapshots.put([Encounter.Snapshot.take(aggregate)])

    def list_encounters(self, limit: int = 100) -> list[dict[str, Any]]:
        """Every encounter's creation event (scans the log's EncounterCreated topic)."""
        topic = get_topic(ev.EncounterCreated)
        out = []
        for n in self.recorder.select_notifications(start=None, limit=limit, topics=[topic]):
            created = self.mapper.to_domain_event(n)
            out.append(
                {
                    "id": str(created.originator_id),
                    "name": created.name,
                    "ruleset": created.ruleset,
                    "created_at": created.timestamp.isoformat(),
                }
            )
        return out


def ensure_schema(settings: Settings) -> None:
    """Create the PostgreSQL schema the settings name, if it is missing."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(settings.database_url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(
            sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                sql.Identifier(settings.postgres_schema)
            )
        )
