// A card per combatant, in the rule book's own words: its presentation (the `table` of
// GET /rulesets/{name}) says which fields a card shows and how (../presentation.js).
import { el, words } from "./dom.js";
import { figure, known, marks, read, stateOf } from "../presentation.js";

const stat = (name, value, cls = "") => el(`div.stat${cls ? `.${cls}` : ""}`, {}, el("dt", {}, name),
  el("dd", {}, value instanceof Node ? value : String(value ?? "—")));

/** "126 / 137", or when the server gives no figures (a player reading the GM's combatant,
 *  docs/visibility.md) the described state in words, or "not shown". */
function health(c, now, max, said) {
  if (known(now) && known(max)) return `${now} / ${max}`;
  if (known(now)) return String(now);
  return c.health_state ? said(c.health_state) : el("span.not-shown", {}, "—", el("small", {}, " not shown"));
}

/** Statuses ({name: {turns, es, kind}}), each with its Spanish name and turns left. */
function statusesOf(c, field) {
  if (!field) return [];
  return Object.entries(read(c, field) || {}).map(([name, s]) => {
    const turns = known(s.turns) ? ` (${s.turns} turn${s.turns === 1 ? "" : "s"})` : "";
    return el(`li.st.${s.kind === "beneficial" ? "good" : "bad"}`, { title: s.es || "" },
      `${words(name)}${s.es ? ` · ${s.es}` : ""}${turns}`);
  });
}

/** What a card shows of `c`, as the book's presentation `table` says. */
function look(table, c, said) {
  const { health: h, card: shown } = table;
  const [now, max] = [read(c, h.current), read(c, h.maximum)];
  return {
    bar: [now, max, h.label],
    stats: [
      stat(h.label, health(c, now, max, said), "big"),
      ...(shown.stats || []).map((f) => {
        const { text, warn } = figure(c, f, words);
        return stat(f.label, text ?? f.empty, warn ? "warn" : "");
      }),
    ],
    statuses: statusesOf(c, shown.statuses),
    tags: marks(c, shown.tags, (k, n) => (known(n) ? `${words(k)} ${n}` : words(k))),
    state: stateOf(c, shown.state),
  };
}

// a described state's share of the meter: coarse on purpose, never the figures
const STATE_FILL = { unhurt: 100, hurt: 66, badly_hurt: 33, down: 0 };

function meter(c, [now, max, barName], said) {
  if (known(now) && known(max)) {
    const pct = Math.max(0, Math.min(100, Math.round((100 * now) / (max || 1))));
    return el("div.meter", { role: "meter", "aria-label": barName, "aria-valuemin": 0, "aria-valuemax": max, "aria-valuenow": now },
      el("span", { style: `width: ${pct}%` }));
  }
  const state = c.health_state;
  const fill = state ? STATE_FILL[state] ?? 0 : 0;
  return el(`div.meter.described${state ? `.state-${state}` : ".unknown"}`, {
    role: "meter", "aria-label": barName, "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": fill,
    "aria-valuetext": state ? said(state) : "not shown", dataset: { state: state || "none" },
  }, el("span", { style: `width: ${fill}%` }));
}

/** How players see his health, when not exactly (the GM's screen): "hurt", "nothing", or
 *  null when they read his figures. `shown` is what applies to him (docs/visibility.md). */
function playersSee(c, shown, said) {
  if (!shown || shown === "exact" || c.hidden) return null;
  const what = shown === "none" ? "nothing" : c.health_state ? said(c.health_state) : "nothing";
  return el("span.badge.secret.players-see", { title: `Players do not read his figures: they see ${shown === "none" ? "no health at all" : "a described state"} (show health in GM tools)` },
    `players see: ${what}`);
}

/** The card of combatant `c` as the book's presentation `table` says; `extra` (GM tools)
 *  goes at its foot. `said(state)` puts a health state in the table's words; `shown` (GM)
 *  is how players see his health. */
export function card(table, c, { acting, mine, extra = [], said = words, shown = null }) {
  const seen = look(table, c, said);
  const tags = seen.tags;
  const notes = c.notes || [];
  return el(`article.card${acting ? ".acting" : ""}${seen.state ? ".is-down" : ""}${c.hidden ? ".hidden-from-players" : ""}`,
    { "aria-labelledby": `card-${c.id}`, dataset: { combatant: c.id, name: c.name } },
    el("header", {},
      el("h3", { id: `card-${c.id}` }, c.name),
      c.side ? el("span.side", {}, c.side) : null,
      mine ? el("span.badge.mine", {}, "yours") : null,
      c.hidden ? el("span.badge.secret", { title: "The players do not see him (docs/visibility.md)" }, "hidden from players") : null,
      playersSee(c, shown, said),
      acting ? el("span.badge", {}, "acting") : null,
      seen.state ? el("span.badge.bad", { dataset: { state: seen.state } }, seen.state) : null),
    meter(c, seen.bar, said),
    el("dl.stats", {}, seen.stats),
    seen.statuses?.length ? el("ul.statuses", { "aria-label": "Statuses" }, seen.statuses) : null,
    tags.length ? el("p.tags", {}, tags.join(" · ")) : null,
    notes.length ? el("div.notes.secret-notes", {},
      el("p.notes-head", {}, "Your notes ", el("small", {}, "· only you see this")),
      el("ul", { "aria-label": `Your notes on ${c.name} (only you see this)` }, notes.map((n) => el("li", {}, n)))) : null,
    extra);
}
