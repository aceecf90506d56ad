// A card per combatant, in the rule book's own words.
import { el, words } from "./dom.js";

const stat = (name, value, cls = "") => el(`div.stat${cls ? `.${cls}` : ""}`, {}, el("dt", {}, name),
  el("dd", {}, value instanceof Node ? value : String(value ?? "—")));

const known = (v) => v !== null && v !== undefined;
/** "126 / 137", or when the server gives no figures (a player reading the GM's combatant,
 *  docs/visibility.md) the described state in words, or "not shown". */
function health(c, now, max, said) {
  if (known(now) && known(max)) return `${now} / ${max}`;
  if (known(now)) return String(now);
  return c.health_state ? said(c.health_state) : el("span.not-shown", {}, "—", el("small", {}, " not shown"));
}

function conditionsOf(c) {
  return Object.entries(c.conditions || {}).map(([k, n]) => (n === null || n === undefined ? words(k) : `${words(k)} ${n}`));
}

function novus(c, said) {
  return {
    bar: [c.hits, c.max_hits, "Hits"],
    stats: [
      stat("Hits", health(c, c.hits, c.max_hits, said), "big"),
      stat("AP left", c.action_points_left ?? "—"),
      stat("DEF", c.def),
      stat("Bleeding", c.bleeding || 0, c.bleeding ? "warn" : ""),
      stat("Dazed", c.daze_count || 0, c.daze_count ? "warn" : ""),
      stat("Stunned", c.stun_count || 0, c.stun_count ? "warn" : ""),
    ],
    tags: [
      ...conditionsOf(c),
      c.fate_points ? `${c.fate_points} Fate Point${c.fate_points === 1 ? "" : "s"}` : null,
      c.hold_ip !== null && c.hold_ip !== undefined ? `holds to IP ${c.hold_ip}` : null,
      c.declared ? "declared" : null,
    ],
    state: c.dead ? "dead" : c.dying ? "dying" : c.down ? "down" : c.helpless ? "helpless" : null,
  };
}

function wits(c, said) {
  return {
    bar: [c.health, c.max_health, "Current Health"],
    stats: [
      stat("Current Health", health(c, c.health, c.max_health, said), "big"),
      stat("Actions left", c.actions_left),
      stat("Aim", c.aim ? `+${c.aim}` : 0),
      stat("Defense", c.defense ? words(c.defense) : "none"),
      stat("Protection", c.protection ?? 0),
    ],
    tags: [
      ...conditionsOf(c),
      c.charging ? "charging" : null,
      c.held ? "holding" : null,
      c.turn_over ? "turn over" : null,
    ],
    state: c.conditions?.dead !== undefined ? "dead" : c.down ? "down" : null,
  };
}

function phantasia(c, said) {
  const statuses = Object.entries(c.statuses || {}).map(([name, s]) => {
    const turns = s.turns === null || s.turns === undefined ? "" : ` (${s.turns} turn${s.turns === 1 ? "" : "s"})`;
    return el(`li.st.${s.kind === "beneficial" ? "good" : "bad"}`, { title: s.es || "" },
      `${words(name)}${s.es ? ` · ${s.es}` : ""}${turns}`);
  });
  return {
    bar: [c.pv, c.max_pv, "PV"],
    stats: [
      stat("PV", health(c, c.pv, c.max_pv, said), "big"),
      stat("PM", `${c.pm} / ${c.max_pm}`),
      stat("Action points", c.actions_left),
      stat("DF / DM", `${c.df} / ${c.dm}`),
      stat("PHANTÄSIA pts", c.phantasia_points),
    ],
    statuses,
    tags: [
      c.controller === "player" ? "player character" : "narrator's",
      c.negative_damage ? `negative damage ${c.negative_damage}` : null,
      c.in_turn ? "in his turn" : null,
      c.reaction_used ? "reaction used" : null,
    ],
    state: c.dead ? "dead" : c.unconscious ? "unconscious" : c.down ? "down" : null,
  };
}

const BY_BOOK = { novus, wits, phantasia };


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

/** The card of combatant `c`; `extra` (GM tools) goes at its foot. `said(state)` puts a
 *  health state in the table's words; `shown` (GM) is how players see his health. */
export function card(view, c, { acting, mine, extra = [], said = words, shown = null }) {
  const look = BY_BOOK[view.ruleset](c, said);
  const tags = look.tags.filter(Boolean);
  const notes = c.notes || [];
  return el(`article.card${acting ? ".acting" : ""}${look.state ? ".is-down" : ""}${c.hidden ? ".hidden-from-players" : ""}`,
    { "aria-labelledby": `card-${c.id}`, dataset: { combatant: c.id, name: c.name } },
    el("header", {},
      el("h3", { id: `card-${c.id}` }, c.name),
      c.side ? el("span.side", {}, c.side) : null,
      mine ? el("span.badge.mine", {}, "yours") : null,
      c.hidden ? el("span.badge.secret", { title: "The players do not see him (docs/visibility.md)" }, "hidden from players") : null,
      playersSee(c, shown, said),
      acting ? el("span.badge", {}, "acting") : null,
      look.state ? el("span.badge.bad", { dataset: { state: look.state } }, look.state) : null),
    meter(c, look.bar, said),
    el("dl.stats", {}, look.stats),
    look.statuses?.length ? el("ul.statuses", { "aria-label": "Statuses" }, look.statuses) : null,
    tags.length ? el("p.tags", {}, tags.join(" · ")) : null,
    notes.length ? el("div.notes.secret-notes", {},
      el("p.notes-head", {}, "Your notes ", el("small", {}, "· only you see this")),
      el("ul", { "aria-label": `Your notes on ${c.name} (only you see this)` }, notes.map((n) => el("li", {}, n)))) : null,
    extra);
}
