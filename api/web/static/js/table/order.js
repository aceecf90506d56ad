// The header (name, rule book, round, step, whose move) and the initiative order, with
// each name the figure the book's presentation (`table.order`) orders by.
import { $, el, words } from "./dom.js";
import { figure } from "../presentation.js";

export function drawHeader(view, names, table) {
  $("enc-name").textContent = view.name;
  document.title = `${view.name} — fraylog`;
  $("enc-book").textContent = table.title || view.ruleset;
  $("enc-round").textContent = `Round ${view.round ?? 1}`;
  $("enc-step").textContent = `Step: ${words(view.step)}${view.ended ? " (ended)" : ""}`;
  const acting = view.acting ? names.get(view.acting) : null;
  $("enc-acting").hidden = !acting;
  $("enc-acting").textContent = acting ? `${acting}’s move` : "";
}

export function drawOrder(view, table) {
  const list = $("order");
  const byId = new Map(view.combatants.map((c) => [c.id, c]));
  const ids = view.order?.length ? view.order : [];
  list.replaceChildren();
  if (!ids.length) {
    list.append(el("li.muted", {}, view.combatants.length ? "No order yet: roll initiative." : "No combatants yet."));
    return;
  }
  const next = view.acting || view.next || null;
  for (const id of ids) {
    const c = byId.get(id);
    if (!c) continue;
    const now = id === next;
    const init = table.order ? figure(c, table.order, words).text : null;
    const done = c.turn_over || c.declared === undefined ? c.turn_over : false;
    list.append(el(`li${now ? ".now" : ""}${c.down || c.dead ? ".down" : ""}`,
      { "aria-current": now ? "true" : null },
      el("span.who", {}, c.name),
      el("span.muted", {}, init !== null ? ` ${table.order.label} ${init}` : ""),
      now ? el("span.badge", {}, view.acting ? "acts now" : "next") : null,
      done && !now ? el("span.muted", {}, " · done") : null));
  }
}
