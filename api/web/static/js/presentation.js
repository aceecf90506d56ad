// A rule book's presentation, as its `table` in GET /rulesets/{name} declares it
// (domain/presentation.py, docs/web.md): figures and marks read from a combatant's view
// by field name and put in words by a few named formats. No rule book is named here.

export const known = (v) => v !== null && v !== undefined;

/** The value of `path` in `c` ("conditions.dead" reads into an object). */
export function read(c, path) {
  return path.split(".").reduce((o, k) => (o === null || o === undefined ? undefined : o[k]), c);
}

/** The first of `fields` that is not null, else null. */
export function firstOf(c, fields) {
  for (const f of fields || []) {
    const v = read(c, f);
    if (known(v)) return v;
  }
  return null;
}

/** A figure's words for `c`: {text, warn}; text null when it has no value to show.
 *  `words` puts an enum value in words. */
export function figure(c, f, words = String) {
  const [a, b] = [read(c, f.fields[0]), read(c, f.fields[1] ?? "")];
  switch (f.format) {
    case "of":
    case "of-words":
      if (!known(a)) return { text: null };
      return { text: known(b) ? `${a}${f.format === "of" ? " / " : " of "}${b}` : String(a) };
    case "signed": {
      const v = firstOf(c, f.fields);
      return { text: v ? (v > 0 ? `+${v}` : String(v)) : "0" };
    }
    case "words": {
      const v = firstOf(c, f.fields);
      return { text: v ? words(v) : null };
    }
    case "count-warn": {
      const v = firstOf(c, f.fields);
      return { text: String(v || 0), warn: Boolean(v) };
    }
    case "nonzero": {
      const v = firstOf(c, f.fields);
      return { text: v ? String(v) : null };
    }
    default: {
      const v = firstOf(c, f.fields);
      return { text: known(v) && v !== "" ? String(v) : null };
    }
  }
}

function holds(c, m) {
  const v = read(c, m.field);
  const when = m.when === "set" ? known(v) : m.when === "listed" ? v !== undefined : Boolean(v);
  return when && !(m.unless || []).some((f) => read(c, f));
}

const turnsLeft = (n) => `${n} turn${n === 1 ? "" : "s"}`;

/** The marks of `list` that hold for `c`, each in words. `entry(name, count)` words one
 *  key of an `entries` mark; a `statuses` mark words each status with its turns left. */
export function marks(c, list, entry) {
  const out = [];
  for (const m of list || []) {
    const v = read(c, m.field);
    if (m.format === "entries") {
      out.push(...Object.entries(v || {}).map(([k, n]) => entry(k, n)));
    } else if (m.format === "statuses") {
      out.push(...Object.entries(v || {}).map(([name, s]) =>
        `${name}${s && known(s.turns) ? ` (${turnsLeft(s.turns)} left)` : ""}`));
    } else if (holds(c, m)) {
      const text = m.values?.[v] ?? (m.plural && v !== 1 ? m.plural : m.text);
      out.push(text.replaceAll("{}", String(v)));
    }
  }
  return out.filter(Boolean);
}

/** The first mark of `list` that holds for `c` (his state's word), else null. */
export function stateOf(c, list) {
  return marks(c, (list || []).filter((m) => m.format === undefined || m.format === "text"), null)[0] ?? null;
}

/** A view field's name in the book's words (the replay's diff). */
export function fieldName(table, key) {
  const health = table?.health;
  const named = table?.replay?.fields?.[key];
  if (named) return named;
  if (health && key === health.current) return health.label;
  if (health && key === health.maximum) return `Maximum ${health.label}`;
  return key.replaceAll("_", " ").replace(/^./, (s) => s.toUpperCase());
}

/** A stand-in while the book's presentation is not known (or not served): the name, hits. */
export function plainTable(ruleset) {
  return {
    title: ruleset, languages: ["en"], health: { label: "Hits", current: "hits", maximum: "max_hits" },
    order: null, card: { stats: [], statuses: null, tags: [], state: [] },
    replay: { facts: [], flags: [], fields: {} }, example: {}, key_stats: null,
  };
}
