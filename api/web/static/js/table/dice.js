// Table dice: a command the table rolls for is sent with the faces it has; each
// DICE_NEEDED answer opens the prompt ("roll a d10 — <label>") with the story so far, the
// face is added to dice[needed.roll], and the same command goes again until recorded.
import { $, el } from "./dom.js";
import { Problem } from "../api.js";

let pending = null; // {resolve} of the open prompt

function close(face) {
  const p = pending;
  pending = null;
  if ($("dice").open) $("dice").close();
  p?.resolve(face);
}

/** Ask the table for one face: resolves to the number, or null when cancelled. */
function ask(needed, soFar, who, error = null) {
  $("dice-title").textContent = who ? `${who} rolls` : "The table rolls";
  $("dice-label").textContent = `roll a d${needed.sides} — ${needed.label || needed.roll}`;
  const which = needed.die > 1 || needed.count > 1 ? `Die ${needed.die} of this roll${needed.count > 1 ? ` (${needed.count} to roll now, one at a time)` : ""}. ` : "";
  $("dice-who").textContent = which + ((soFar || []).some((e) => e.text) ? "So far:" : "");
  $("dice-so-far").replaceChildren(...(soFar || []).filter((e) => e.text).map((e) => el("li", {}, e.text)));
  $("dice-so-far").hidden = !(soFar || []).some((e) => e.text);
  $("dice-error").textContent = error || "";
  const faces = $("dice-faces");
  faces.replaceChildren();
  const big = needed.sides > 20;
  $("dice-typed").hidden = !big;
  if (!big) {
    for (let f = 1; f <= needed.sides; f += 1) {
      faces.append(el("button.face", { type: "button", "aria-label": `rolled ${f}`, onclick: () => close(f) }, String(f)));
    }
  } else {
    $("dice-face").min = 1;
    $("dice-face").max = needed.sides;
    $("dice-face").value = "";
  }
  return new Promise((resolve) => {
    pending = { resolve };
    if (!$("dice").open) $("dice").showModal();
    (big ? $("dice-face") : faces.firstElementChild)?.focus();
  });
}

export function setupDice() {
  const typed = () => {
    const input = $("dice-face");
    const v = Number(input.value);
    if (!Number.isInteger(v) || v < Number(input.min) || v > Number(input.max)) {
      $("dice-error").textContent = `A face from ${input.min} to ${input.max}, please.`;
      return;
    }
    close(v);
  };
  $("dice-enter").addEventListener("click", typed);
  $("dice-face").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); typed(); } });
  $("dice-cancel").addEventListener("click", () => close(null));
  $("dice").addEventListener("cancel", (e) => { e.preventDefault(); close(null); });
  // the face typed on the keyboard: "8" on a d10 at once, "1" then "0" for a 10
  let typedSoFar = "";
  let timer = null;
  $("dice").addEventListener("keydown", (e) => {
    const buttons = $("dice-faces").querySelectorAll("button.face");
    if (!buttons.length || !/^[0-9]$/.test(e.key)) return;
    e.preventDefault();
    clearTimeout(timer);
    typedSoFar += e.key;
    const value = Number(typedSoFar);
    const commit = () => {
      typedSoFar = "";
      if (value >= 1 && value <= buttons.length) close(value);
    };
    if (value * 10 > buttons.length || value === 0) commit();
    else timer = setTimeout(commit, 700);
  });
}

/** What the events so far decided, in words, where the answer has no log line for them
 *  (a preview's events carry none). */
function story(events) {
  return (events || []).map((e) => {
    if (e.text) return e;
    const said = [];
    for (const [k, v] of Object.entries(e.data || {})) {
      if (v === true && ["hit", "saved", "success", "fumble", "critical", "stopped"].includes(k)) said.push(k);
      if (typeof v === "number" && ["total", "margin", "amount", "damage", "ip", "face"].includes(k)) said.push(`${k} ${v}`);
    }
    const type = e.type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
    return { text: `${type}${said.length ? `: ${said.join(", ")}` : ""}` };
  });
}

/** Send `body`, asking the table for each face it needs. Each face is found by a preview
 *  (it records nothing, and answers 200 with the roll it stopped at), so the browser logs
 *  no refused request; once no face is missing the command is sent. Resolves to the
 *  answer, or null when the table cancelled; refusals are thrown. */
export async function sendWithDice(client, body, names) {
  const cmd = structuredClone(body);
  const add = async (needed, soFar) => {
    const face = await ask(needed, story(soFar), needed.for ? names.get(needed.for) : null);
    if (face === null) return false;
    cmd.dice = cmd.dice || {};
    cmd.dice[needed.roll] = [...(cmd.dice[needed.roll] || []), face];
    return true;
  };
  for (;;) {
    const preview = await client.command(cmd, { preview: true }).catch((e) => {
      if (e instanceof Problem && e.rule === "PREVIEW") return { needed: null };
      throw e;
    });
    if (preview.needed && preview.needed.source !== "server") {
      if (!(await add(preview.needed, preview.events))) return null;
      continue;
    }
    try {
      return await client.command(cmd);
    } catch (e) {
      if (!(e instanceof Problem) || e.rule !== "DICE_NEEDED" || !e.needed || e.needed.source === "server") throw e;
      if (!(await add(e.needed, e.so_far))) return null;
    }
  }
}
