// A rule book's words for a combatant in the replay, from its presentation (the `table` of
// GET /rulesets/{name}, ../presentation.js): its health measure, facts and flags.
import { figure, marks, read } from "../presentation.js";

export { fieldName } from "../presentation.js";

/** What the replay shows of a combatant, as the book's presentation `table` says. */
export function book(table) {
  const { health, replay } = table;
  return {
    name: table.title,
    measure: health.label,
    value: (c) => [read(c, health.current), read(c, health.maximum)],
    facts: (c) => (replay.facts || []).map((f) => [f.label, figure(c, f).text]),
    flags: (c) => marks(c, replay.flags, (name, n) => (n == null ? name : `${name} (${n})`)),
  };
}
