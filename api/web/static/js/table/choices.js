// "What can happen now": the token's choices as buttons grouped by combatant (a small
// form where a choice has fields), and the GM's undo and redo.
import { $, el } from "./dom.js";
import { fieldsForm } from "./forms.js";

const MAX_SHOWN = 8;
const MAX_OTHERS = 3;

function choiceItem(ctx, choice) {
  const send = (extra = {}) => ctx.run({ ...choice.command, ...extra });
  const button = el("button.choice", { type: "button", onclick: () => send() }, choice.label);
  if (choice.first_roll) button.append(el("span.roll-hint", {}, ` · roll d${choice.first_roll.sides}`));
  const fields = Object.fromEntries(Object.entries(choice.fields || {}).filter(([k]) => !(k in choice.command)));
  if (!Object.keys(fields).length) return el("li", {}, button);
  const form = fieldsForm(fields, ctx.names);
  const more = el("details.more", {},
    el("summary", { "aria-label": `Options for: ${choice.label}`, title: "Options" }, "options"),
    el("form", {
      onsubmit: (e) => {
        e.preventDefault();
        let values;
        try { values = form.values(); } catch (err) { ctx.say(`Not valid: ${err.message}`, true); return; }
        send(values);
      },
    }, form.node, el("button.primary", { type: "submit" }, "Send with these")));
  return el("li", {}, el("div.choice-row", {}, button, more));
}

export function drawChoices(ctx) {
  const answer = ctx.choices;
  const box = $("choices");
  box.replaceChildren();
  const groups = new Map();
  for (const choice of answer.choices || []) {
    const key = choice.combatant || "";
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(choice);
  }
  const first = ctx.view.acting || ctx.view.next || null;
  const keys = [...groups.keys()].sort((a, b) => (b === first) - (a === first) || (a === "") - (b === ""));
  if (!keys.length) {
    box.append(el("p.muted", {}, answer.ended ? "The fight has ended."
      : ctx.role === "gm" ? (ctx.view.combatants.length ? "Nothing to do now." : "Add combatants to begin.")
        : "Nothing for you to do now: wait for your move."));
  }
  for (const key of keys) {
    const name = key ? ctx.names.get(key) || key : "The encounter";
    const all = groups.get(key);
    // the main moves first (all of them for whoever moves now, a few for the others);
    // reactions and the rest of a long list one click away
    const main = all.filter((c) => !/^Reaction\b/.test(c.label));
    const now = key === first || !first || ctx.role !== "gm";
    const shown = main.slice(0, now ? MAX_SHOWN : MAX_OTHERS);
    const rest = all.filter((c) => !shown.includes(c));
    box.append(el(`section.group${key === first ? ".now" : ""}`, { "aria-label": `${name}: choices`, dataset: { combatant: key } },
      el("h3", {}, name, key === first ? el("span.badge", {}, "now") : null),
      el("ul.plain.choice-list", {}, shown.map((c) => choiceItem(ctx, c))),
      rest.length
        ? el("details.rest", {}, el("summary", {}, `${rest.length} more for ${name}`),
          el("ul.plain.choice-list", {}, rest.map((c) => choiceItem(ctx, c))))
        : null));
  }
  const corr = $("corrections");
  corr.replaceChildren();
  for (const c of answer.corrections || []) {
    if (c.type === "undo" || c.type === "redo") {
      corr.append(el("button.small", { type: "button", onclick: () => ctx.run(c.command || { type: c.type }) },
        c.type === "undo" ? "↶ Undo" : "↷ Redo"));
    }
  }
}
