// A card per combatant, in the rule book's own words.
import { el, words } from "./dom.js";

const stat = (name, value, cls = "") => el(`div.stat${cls ? `.${cls}` : ""}`, {}, el("dt", {}, name), el("dd", {}, String(value)));

function conditionsOf(c) {
  return Object.entries(c.conditions || {}).map(([k, n]) => (n === null || n === undefined ? words(k) : `${words(k)} ${n}`));
}

function novus(c) {
  return {
    bar: [c.hits, c.max_hits, "Hits"],
    stats: [
      stat("Hits", `${c.hits} / ${c.max_hits}`, "big"),
      stat("AP left", c.action_points_left ?? "—"),
      stat("DEF", c.def),
      stat("Bleeding", c.bleeding || 0, c.bleeding ? "warn" : ""),
      stat("Dazed", c.daze_count || 0, c.daze_count ? "warn" : ""),
      stat("Stunned", c.stun_count || 0, c.stun_count ? "warn" : ""),
    ],
    tags: [
      ...conditionsOf(c),
      c.fate_points ? `${c.fate_points} Fate Point(s)` : null,
      c.hold_ip !== null && c.hold_ip !== undefined ? `holds to IP ${c.hold_ip}` : null,
      c.declared ? "declared" : null,
    ],
    state: c.dead ? "dead" : c.dying ? "dying" : c.down ? "down" : c.helpless ? "helpless" : null,
  };
}

function wits(c) {
  return {
    bar: [c.health, c.max_health, "Current Health"],
    stats: [
      stat("Current Health", `${c.health} / ${c.max_health}`, "big"),
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

function phantasia(c) {
  const statuses = Object.entries(c.statuses || {}).map(([name, s]) => {
    const turns = s.turns === null || s.turns === undefined ? "" : ` (${s.turns} turn${s.turns === 1 ? "" : "s"})`;
    return el(`li.st.${s.kind === "beneficial" ? "good" : "bad"}`, { title: s.es || "" },
      `${words(name)}${s.es ? ` · ${s.es}` : ""}${turns}`);
  });
  return {
    bar: [c.pv, c.max_pv, "PV"],
    stats: [
      stat("PV", `${c.pv} / ${c.max_pv}`, "big"),
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

/** The card of combatant `c`; `extra` (GM tools) goes at its foot. */
export function card(view, c, { acting, mine, extra = [] }) {
  const shown = BY_BOOK[view.ruleset](c);
  const [now, max, barName] = shown.bar;
  const pct = Math.max(0, Math.min(100, Math.round((100 * now) / (max || 1))));
  const tags = shown.tags.filter(Boolean);
  return el(`article.card${acting ? ".acting" : ""}${shown.state ? ".is-down" : ""}${c.hidden ? ".hidden-from-players" : ""}`,
    { "aria-labelledby": `card-${c.id}`, dataset: { combatant: c.id, name: c.name } },
    el("header", {},
      el("h3", { id: `card-${c.id}` }, c.name),
      c.side ? el("span.side", {}, c.side) : null,
      mine ? el("span.badge.mine", {}, "yours") : null,
      c.hidden ? el("span.badge.secret", { title: "The players do not see him (docs/visibility.md)" }, "hidden from players") : null,
      acting ? el("span.badge", {}, "acting") : null,
      shown.state ? el("span.badge.bad", { dataset: { state: shown.state } }, shown.state) : null),
    el("div.meter", { role: "meter", "aria-label": barName, "aria-valuemin": 0, "aria-valuemax": max, "aria-valuenow": now },
      el("span", { style: `width: ${pct}%` })),
    el("dl.stats", {}, shown.stats),
    shown.statuses?.length ? el("ul.statuses", { "aria-label": "Statuses" }, shown.statuses) : null,
    tags.length ? el("p.tags", {}, tags.join(" · ")) : null,
    extra);
}
