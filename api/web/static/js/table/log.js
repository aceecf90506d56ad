// The narrative log, kept live (fetched again after each command the feed brings), each
// line with a void button for the GM that first previews what the void would take back.
import { $, el } from "./dom.js";

let lines = [];
// what the void needs to know of each event: its cause and whether it rolled dice
const events = new Map();
const CORRECTIONS = new Set(["RollVoided", "CommandUndone", "CommandRedone"]);

/** The log line of event `position`, once drawn. */
export const lineText = (position) => lines.find((l) => l.position === position)?.text;

/** Keep an event record (from GET …/events or the live feed). */
export function keepEvent(record) {
  const rolls = record.data?.rolls;
  events.set(record.position, {
    cause: record.cause,
    type: record.type,
    rolled: !!rolls && Object.values(rolls).some((faces) => Array.isArray(faces) ? faces.length : faces),
  });
}

/** Every event so far, a page at a time. */
export async function loadEvents(client) {
  let after = 0;
  for (;;) {
    const page = await client.events({ after });
    for (const record of page.events || []) keepEvent(record);
    if (page.next_after === null || page.next_after === undefined) return;
    after = page.next_after;
  }
}

/** A void may take an event that rolled, one whose cause chain leads to a roll, or a
 *  correction (docs/api.md, Corrections); unknown events are offered too. */
function voidable(position, seen = 0) {
  const e = events.get(position);
  if (!e) return true;
  if (e.rolled || CORRECTIONS.has(e.type)) return true;
  return e.cause !== null && e.cause !== undefined && seen < 500 && voidable(e.cause, seen + 1);
}

export async function drawLog(ctx, fetched = null) {
  const answer = (fetched && (await fetched)) || (await ctx.client.log());
  lines = answer.lines || [];
  const list = $("log");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const canVoid = ctx.role === "gm" && (ctx.choices?.corrections || []).some((c) => c.type === "void");
  list.replaceChildren(...lines.map((line) => el(`li${line.voided_by ? ".voided" : ""}`,
    { dataset: { position: line.position } },
    el("span.pos", { "aria-label": `event ${line.position}` }, String(line.position)),
    el("span.text", {}, line.text, line.voided_by ? el("span.muted", {}, ` (voided by ${line.voided_by})`) : null),
    canVoid && !line.voided_by && line.position > 1 && voidable(line.position)
      ? el("button.void.small", { type: "button", "aria-label": `Void event ${line.position}`, onclick: () => voidLine(ctx, line) }, "Void")
      : null)));
  if (atBottom || !list.dataset.drawn) list.scrollTop = list.scrollHeight;
  list.dataset.drawn = "1";
}

async function voidLine(ctx, line) {
  const body = { type: "void", target: line.position, reason: $("confirm-reason").value.trim() || "voided at the table" };
  let preview;
  try {
    preview = await ctx.client.command(body, { preview: true });
  } catch (e) {
    ctx.say(`Event ${line.position} cannot be voided: ${e.message}`, true);
    return;
  }
  const cascade = preview.events?.[0]?.data?.cascade || [line.position];
  const byPos = new Map(lines.map((l) => [l.position, l]));
  $("confirm-title").textContent = `Void event ${line.position}?`;
  $("confirm-text").textContent = `This takes back ${cascade.length} event${cascade.length === 1 ? "" : "s"}:`;
  $("confirm-lines").replaceChildren(...cascade.map((p) => el("li", {}, `${p}: ${byPos.get(p)?.text || ""}`)));
  const dialog = $("confirm");
  dialog.returnValue = "";
  dialog.showModal();
  $("confirm-no").focus();
  const answer = await new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue), { once: true }));
  if (answer !== "yes") return;
  await ctx.run({ ...body, reason: $("confirm-reason").value.trim() || body.reason });
}
