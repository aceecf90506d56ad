// Each rule book's words for a combatant: its health measure and what else a card shows.

const BOOKS = {
  novus: {
    name: "Novus",
    measure: "Hits",
    value: (c) => [c.hits, c.max_hits],
    facts: (c) => [
      ["IP", c.effective_ip ?? c.ip],
      ["AP left", c.ap_budget != null ? `${c.action_points_left} of ${c.ap_budget}` : null],
      ["Bleeding", c.bleeding || null],
      ["Dazed", c.daze_count || null],
      ["Stunned", c.stun_count || null],
      ["DEF", c.def],
      ["Fate Points", c.fate_points || null],
    ],
    flags: (c) => [c.dead && "dead", !c.dead && c.dying && "dying", !c.dead && !c.dying && c.down && "down",
      c.helpless && !c.dead && "helpless", ...conditions(c.conditions)],
  },
  wits: {
    name: "The Wits system",
    measure: "Current Health",
    value: (c) => [c.health, c.max_health],
    facts: (c) => [
      ["Actions left", c.actions_left],
      ["Aim", c.aim || null],
      ["Defense", c.defense],
      ["Wits", c.wits],
      ["Protection", c.protection || null],
    ],
    flags: (c) => [c.down && "down", c.held && "holding", c.charging && "charging", ...conditions(c.conditions)],
  },
  phantasia: {
    name: "PHANTÄSIA",
    measure: "PV",
    value: (c) => [c.pv, c.max_pv],
    facts: (c) => [
      ["PM", c.max_pm != null ? `${c.pm} / ${c.max_pm}` : c.pm],
      ["Action points", c.actions_left],
      ["PHANTÄSIA points", c.max_phantasia_points ? `${c.phantasia_points} / ${c.max_phantasia_points}` : null],
      ["Initiative", c.initiative],
      ["Negative damage", c.negative_damage || null],
    ],
    flags: (c) => [c.dead && "dead", !c.dead && c.unconscious && "unconscious",
      ...Object.entries(c.statuses || {}).map(([name, s]) =>
        `${name}${s && s.turns != null ? ` (${s.turns} turn${s.turns === 1 ? "" : "s"} left)` : ""}`)],
  },
};

function conditions(map) {
  return Object.entries(map || {}).map(([name, n]) => (n == null ? name : `${name} (${n})`));
}

export function book(ruleset) {
  return BOOKS[ruleset] || {
    name: ruleset, measure: "Hits", value: (c) => [c.hits, c.max_hits], facts: () => [], flags: () => [],
  };
}

/** A view field's name in the rule book's words, for the diff. */
export function fieldName(ruleset, key) {
  const words = {
    hits: book(ruleset).measure, max_hits: `Maximum ${book(ruleset).measure}`,
    health: "Current Health", max_health: "Maximum Health", pv: "PV", max_pv: "Maximum PV",
    pm: "PM", ip: "IP", effective_ip: "Effective IP", ap_budget: "AP budget", ap_spent: "AP spent",
    action_points_left: "AP left", actions_left: "Actions left", actions_used: "Actions used",
    daze_count: "Dazed", stun_count: "Stunned", def: "DEF", df: "DF", dm: "DM", at: "AT", am: "AM",
  };
  return words[key] || key.replaceAll("_", " ").replace(/^./, (s) => s.toUpperCase());
}
