// The page /audit: pick (or drop) an export file, check it here with verify.js, show the
// verdict in plain words, the dice, the checkpoint and every derived roll. The file never
// leaves the browser: the only request is GET /audit/keys, and only for a file with a
// checkpoint (or a keys file picked instead).

import { toJsonText } from "./canonical.js";
import { NotAnExport, hasWebCrypto, verify } from "./verify.js";

const $ = (id) => document.getElementById(id);
const body = document.body;
let run = 0;
let keysFromFile = null; // {name, answer} of a picked keys file
let serverKeys = null;   // the promise of GET /audit/keys, asked once

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/** A checkpoint's time in this browser's words (the exact text is in the details). */
function when(time) {
  const d = new Date(time);
  return Number.isNaN(d.getTime()) ? time : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}
const range = ([a, b]) => (String(a) === String(b) ? `position ${a}` : `positions ${a}–${b}`);
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

async function getKeys() {
  if (keysFromFile) return keysFromFile.answer;
  if (!serverKeys) {
    serverKeys = fetch("/audit/keys").then(async (r) => {
      if (!r.ok) throw new Error(`GET /audit/keys answered ${r.status}`);
      return r.json();
    });
    serverKeys.catch(() => { serverKeys = null; });
  }
  return serverKeys;
}

/** The records of a player's export withheld from him (§1 placeholders), in plain words. */
function withheldLine(chain) {
  if (!chain.redacted) return null;
  return `${chain.redacted === 1 ? "1 record of this file is" : `${chain.redacted} records of this file are`} withheld from you (a player's export): their content is not shown, but their place in the chain is checked.`;
}

/** The records of this file partly concealed from its reader (§1.1), in plain words. */
function concealedLine(chain) {
  if (!chain.concealed) return null;
  return `${chain.concealed === 1 ? "1 record of this file is" : `${chain.concealed} records of this file are`} partly concealed from you: some of their fields (hit points, a target number) are hidden, so their hash cannot be recomputed — their place in the chain is checked, but what they still show is not proven.`;
}

/** The verdict: {tone: good|warn|bad, head, lines[]} in plain words. */
function verdictOf(report, format) {
  const { chain, dice, checkpoint } = report;
  if (!chain.ok) {
    return {
      tone: "bad",
      head: `✗ The record is broken at position ${chain.broken_at}`,
      lines: [
        `Why: ${chain.reason}.`,
        "The file was edited, reordered or cut after fraylog wrote it: nothing from this position on can be trusted, so its dice and checkpoint were not checked.",
      ],
    };
  }
  const n = chain.events;
  const lines = [];
  let tone = "good";
  let head;
  const c = checkpoint;
  switch (c.status) {
    case "complete":
      head = `✓ Intact and complete as of ${when(c.time)}: all ${plural(n, "event")}, up to a signed checkpoint`;
      lines.push(`The server signed this record of encounter ${c.encounter} at position ${c.position} (${when(c.time)}); every event up to it is here, unchanged.`);
      lines.push(`“Complete” means complete as of the checkpoint's time: the fight may have gone on since, and a file cut back to an earlier round's end with that round's checkpoint is complete too. Compare position ${c.position} with the latest checkpoint you know of for this encounter.`);
      break;
    case "after_checkpoint":
      tone = "warn";
      head = `✓ Intact, but ${plural(c.unsigned[1] - c.unsigned[0] + 1, "event")} after the last checkpoint: ${range(c.unsigned)} unsigned`;
      lines.push(`Everything up to position ${c.position} is vouched for by the server's signature (${when(c.time)}). What comes after it is consistent, but no signature covers it yet: it could have been cut short or made up after that point.`);
      break;
    case "none":
      tone = "warn";
      head = `✓ Intact (${plural(n, "event")}), but no signed checkpoint`;
      lines.push("Every event follows from the one before, but nothing in the file says it is whole: its end could have been cut off. Ask for an export with a checkpoint line (every fraylog export carries its latest one).");
      break;
    case "truncated":
      tone = "bad";
      head = `✗ TRUNCATED: ${range(c.missing)} missing`;
      lines.push(`The server signed a record of ${c.position} events (${when(c.time)}); this file holds only ${n}. The end of the fight was cut off.`);
      break;
    case "mismatch":
      tone = "bad";
      head = `✗ Rewritten: the event at position ${c.position} is not the one the server signed`;
      lines.push("The events are consistent with each other, but they are not the record the server vouched for: the chain was recomputed after an edit.");
      break;
    case "bad_signature":
      tone = "bad";
      head = "✗ The checkpoint's signature does not verify";
      lines.push("The checkpoint line was altered or forged: it proves nothing about this file.");
      break;
    case "unknown_key":
      tone = "bad";
      head = "✗ The checkpoint is signed with an unknown key";
      lines.push(keysFromFile
        ? `The keys file “${keysFromFile.name}” lists no key with the id ${c.key}.`
        : `This server publishes no key with the id ${c.key}. If the export comes from another fraylog server, use that server's keys file (below the file picker).`);
      break;
    default:
      tone = "bad";
      head = "✗ The checkpoint line is malformed";
      lines.push(`${c.reason}.`);
  }
  if (c.status !== "none" && c.status !== "complete" && c.status !== "after_checkpoint" && c.status !== "truncated") {
    lines.push(`The chain itself is intact (${plural(n, "event")}).`);
  }
  const withheld = withheldLine(chain);
  if (withheld) lines.push(withheld);
  const concealed = concealedLine(chain);
  if (concealed) lines.push(concealed);
  if (!dice.ok) {
    tone = "bad";
    const parts = [];
    if (dice.mismatches.length) parts.push(`${plural(dice.mismatches.length, "die", "dice")} do not match the secret`);
    if (dice.bad_reveals.length) parts.push(`${plural(dice.bad_reveals.length, "reveal")} of the dice secret do not match the commitment`);
    lines.push(`✗ The dice: ${parts.join(", and ")} (listed below).`);
    if (c.ok) head = head.replace(/^✓/, "✗") + " — but the dice do not check out";
  } else if (dice.unrevealed) {
    lines.push(`${plural(dice.unrevealed, "server die", "server dice")} cannot be checked: the file holds no reveal of their secret (fraylog reveals it when the GM ends the fight, or asks for reveal_dice).`);
  }
  if (dice.withheld) {
    lines.push(`${plural(dice.withheld, "die", "dice")} cannot be checked here: they, or an earlier record of the same command, are withheld from you, so which draw each die was is not known.`);
  }
  return { tone, head, lines, note: `Read as ${format === "csv" ? "CSV" : "NDJSON"}.` };
}

function showVerdict(v) {
  const box = $("verdict");
  const parts = [el("p", { class: "verdict-head", text: v.head }), ...v.lines.map((t) => el("p", { text: t }))];
  if (v.note) parts.push(el("p", { class: "muted", text: v.note }));
  box.replaceChildren(...parts);
  $("verdict-box").dataset.tone = v.tone;
}

function showDice(dice) {
  const out = $("dice-summary");
  if (!dice) {
    out.replaceChildren(el("p", { class: "muted", text: "Not checked: the record is broken." }));
    return;
  }
  const counts = el("ul", { class: "counts plain" },
    el("li", {}, el("strong", { text: String(dice.checked) }), " re-derived from the secret or seed, and equal"),
    el("li", {}, el("strong", { text: String(dice.manual) }), " rolled at the table (typed in: nothing to prove)"),
    el("li", {}, el("strong", { text: String(dice.unrevealed) }), " awaiting the reveal of the dice secret"),
    el("li", {}, el("strong", { text: String(dice.inherited) }), " inherited from the fight this one was forked from (its own export proves them)"),
    dice.withheld ? el("li", {}, el("strong", { text: String(dice.withheld) }), " not checkable in this export: they, or an earlier record of their command, are withheld from you") : null);
  const parts = [counts];
  if (dice.mismatches.length) {
    parts.push(el("h3", { text: "Dice that do not match" }), el("ul", { class: "problems" },
      ...dice.mismatches.map((m) => el("li", {
        text: `Position ${m.position}, roll “${m.roll}”, die ${m.die}: the file says ${m.face}, the secret gives ${m.expected ?? "no face"}`,
      }))));
  }
  if (dice.bad_reveals.length) {
    parts.push(el("h3", { text: "Bad reveals of the dice secret" }), el("ul", { class: "problems" },
      ...dice.bad_reveals.map((p) => el("li", {
        text: `Position ${p}: the revealed secret does not hash to the commitment made before the dice were rolled`,
      }))));
  }
  if (dice.ok) parts.push(el("p", { class: "ok", text: "✓ No die disagrees with its secret, and every reveal matches its commitment." }));
  out.replaceChildren(...parts);
}

function showCheckpoint(c) {
  const out = $("checkpoint-detail");
  if (!c) {
    out.replaceChildren(el("p", { class: "muted", text: "Not checked: the record is broken." }));
    return;
  }
  if (c.status === "none") {
    out.replaceChildren(el("p", { class: "muted", text: "The file carries no checkpoint line." }));
    return;
  }
  const facts = el("dl", { class: "facts" });
  const add = (k, v) => facts.append(el("dt", { text: k }), el("dd", { text: v }));
  add("Status", c.status.replace("_", " "));
  if (c.position !== null) add("Position", String(c.position));
  if (c.time !== null) add("Signed at", c.time);
  if (c.encounter !== null) add("Encounter", c.encounter);
  if (c.key !== null) add("Key id", c.key);
  if (c.missing) add("Missing", range(c.missing));
  if (c.unsigned) add("Not signed", range(c.unsigned));
  const parts = [facts];
  if (c.reason) parts.push(el("p", { class: c.ok ? "muted" : "error", text: c.reason }));
  if (keysFromFile) parts.push(el("p", { class: "muted", text: `Keys from the file “${keysFromFile.name}”.` }));
  out.replaceChildren(...parts);
}

const MARK = { checked: "✓", mismatch: "✗", unrevealed: "…", inherited: "⤷", manual: "—", withheld: "⊘" };
const WORD = { checked: "equal", mismatch: "differs", unrevealed: "awaiting the reveal", inherited: "inherited", manual: "manual", withheld: "withheld" };

function showRolls(rolls) {
  const tbody = $("rolls").tBodies[0];
  tbody.replaceChildren(...rolls.map((r) => {
    const worst = r.status.includes("mismatch") ? "mismatch" : r.status[0] ?? "checked";
    const result = [...new Set(r.status)].map((s) => `${MARK[s]} ${WORD[s]}`).join(", ");
    const name = el("td", {}, r.roll,
      r.source === "seeded" ? el("span", { class: "tag", text: "seeded" }) : null,
      r.attempt ? el("span", { class: "tag", text: `attempt ${r.attempt}` }) : null,
      el("span", { class: "event", text: r.type }));
    const derived = r.derived.map((d, k) => (r.status[k] === "checked" || r.status[k] === "mismatch" ? d ?? "?" : "·"));
    const marks = [...new Set(r.status)].map((s) => el("span", { class: `mark ${s}` },
      el("span", { "aria-hidden": "true", text: MARK[s] }), el("span", { class: "word", text: ` ${WORD[s]}` })));
    return el("tr", { class: worst, "data-position": String(r.position), "data-result": result },
      el("td", { class: "num", text: String(r.position) }),
      name,
      el("td", { class: "faces", text: r.faces.join(" ") }),
      el("td", { class: "faces", text: derived.join(" ") }),
      el("td", { class: `result ${worst}` }, ...marks));
  }));
  $("rolls-empty").hidden = rolls.length > 0;
  $("rolls").hidden = rolls.length === 0;
}

async function check(file) {
  const mine = ++run;
  body.dataset.audit = "working";
  body.dataset.run = String(mine);
  $("verdict").replaceChildren(el("p", { class: "verdict-head muted", text: `Checking “${file.name}”…` }));
  $("no-ed25519").hidden = true;
  $("verdict-box").dataset.tone = "";
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    return notAnExport(mine, file, "it is not UTF-8 text");
  }
  let result;
  try {
    result = await verify(text, { getKeys });
  } catch (e) {
    if (e instanceof NotAnExport) return notAnExport(mine, file, e.message);
    if (mine !== run) return;
    showVerdict({ tone: "bad", head: "The file could not be checked", lines: [String(e.message || e)] });
    $("results").hidden = true;
    body.dataset.audit = "error";
    return;
  }
  if (mine !== run) return;
  const { report, rolls, format } = result;
  if (!report) return noEd25519(result);
  showVerdict(verdictOf(report, format));
  showDice(report.dice);
  showCheckpoint(report.checkpoint);
  showRolls(rolls);
  $("report-json").textContent = toJsonText(report);
  $("results").hidden = false;
  body.dataset.audit = "done";
}

/** The file carries a checkpoint, and this browser cannot check an Ed25519 signature: no
 *  verdict on it (the file is not to blame), the chain and the dice as far as they go, and
 *  where to check it whole. */
function noEd25519({ partial, rolls, format }) {
  const { chain, dice } = partial;
  const lines = [
    `The chain is intact (${plural(chain.events, "event")}), and ${dice.ok ? "the dice check out" : "the dice do NOT check out (listed below)"}; but the file's signed checkpoint cannot be checked here, so nothing on this page says whether the file is whole or its checkpoint genuine.`,
    "Check the file with fraylog itself: fraylog verify FILE, or send it to POST /audit/verify (no token needed), or open this page in a browser whose Web Crypto has Ed25519 (a current Chrome, Edge, Firefox or Safari).",
  ];
  const withheld = withheldLine(chain);
  if (withheld) lines.push(withheld);
  const concealed = concealedLine(chain);
  if (concealed) lines.push(concealed);
  showVerdict({
    tone: "warn",
    head: "This browser cannot check signatures: the checkpoint is not checked",
    lines,
    note: `Read as ${format === "csv" ? "CSV" : "NDJSON"}.`,
  });
  $("no-ed25519").hidden = false;
  showDice(dice);
  $("checkpoint-detail").replaceChildren(el("p", { class: "error",
    text: "Not checked: this browser's Web Crypto has no Ed25519. Use fraylog verify FILE or POST /audit/verify." }));
  showRolls(rolls);
  $("report-json").textContent = "";
  $("results").hidden = false;
  body.dataset.audit = "no-ed25519";
}

function notAnExport(mine, file, why) {
  if (mine !== run) return;
  showVerdict({
    tone: "bad",
    head: `“${file.name}” is not a fraylog export`,
    lines: [`Why: ${why}.`, "Pick the NDJSON or CSV file the replay viewer (or fraylog export) wrote."],
  });
  $("report-json").textContent = "";
  $("results").hidden = true;
  body.dataset.audit = "not-export";
}

async function pickKeys(file) {
  try {
    const answer = JSON.parse(await file.text());
    if (!Array.isArray(answer?.keys)) throw new Error("it has no keys list");
    keysFromFile = { name: file.name, answer };
    $("keys-status").textContent = `Checking checkpoints with the ${plural(answer.keys.length, "key")} of “${file.name}”.`;
    $("keys-clear").hidden = false;
  } catch (e) {
    keysFromFile = null;
    $("keys-status").textContent = `“${file.name}” is not a keys file (${e.message}); using this server's keys.`;
  }
  body.dataset.keys = keysFromFile ? "file" : "server";
  if (lastFile) await check(lastFile);
}

let lastFile = null;

function start() {
  if (!hasWebCrypto()) {
    $("insecure").hidden = false;
    $("file").disabled = true;
    $("keys-file").disabled = true;
    $("verdict").replaceChildren(el("p", { class: "verdict-head", text: "Cannot check here: this page needs https or localhost." }));
    body.dataset.audit = "insecure";
    body.dataset.ready = "true";
    return;
  }
  $("file").addEventListener("change", () => {
    const f = $("file").files[0];
    if (f) { lastFile = f; check(f); }
  });
  $("keys-file").addEventListener("change", () => {
    const f = $("keys-file").files[0];
    if (f) pickKeys(f);
  });
  $("keys-clear").addEventListener("click", () => {
    keysFromFile = null;
    $("keys-file").value = "";
    $("keys-status").textContent = "Using this server's keys.";
    $("keys-clear").hidden = true;
    body.dataset.keys = "server";
    if (lastFile) check(lastFile);
  });
  const drop = $("drop");
  // a file dropped anywhere is checked, never opened by the browser in place of the page
  document.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  document.addEventListener("dragleave", (e) => { if (!e.relatedTarget) drop.classList.remove("over"); });
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const f = e.dataTransfer?.files?.[0];
    if (f) { lastFile = f; check(f); }
  });
  body.dataset.ready = "true";
}

start();
