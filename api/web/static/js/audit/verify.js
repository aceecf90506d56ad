// The browser's verifier of a fraylog export (docs/audit-spec.md), pure: the file's text and
// the published keys in, the report of §7 out, with Web Crypto (SHA-256, HMAC-SHA-256,
// Ed25519). No DOM: a test page may import it.

import { JNum, JsonError, canonical, intOf, isInt, parse, plain, same } from "./canonical.js";

export class NotAnExport extends Error {}

const CORRECTIONS = new Set(["RollVoided", "CommandUndone", "CommandRedone"]);
const UNHASHED = new Set(["hash", "voided_by", "dice"]);
const CHECKPOINT_MEMBERS = ["encounter", "hash", "key", "position", "signature", "time"];
const SIGNED_PREFIX = "fraylog-checkpoint-v1\n";
const utf8 = new TextEncoder();

const subtle = () => globalThis.crypto?.subtle;
export const hasWebCrypto = () => Boolean(globalThis.isSecureContext !== false && subtle());

export function hex(bytes) {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function unhex(text) {
  if (typeof text !== "string" || text.length % 2 || !/^[0-9a-fA-F]*$/.test(text)) return null;
  const out = new Uint8Array(text.length / 2);
  for (let k = 0; k < out.length; k++) out[k] = parseInt(text.slice(2 * k, 2 * k + 2), 16);
  return out;
}

export async function sha256hex(bytes) {
  return hex(await subtle().digest("SHA-256", bytes));
}

const get = (v, key) => (v instanceof Map ? v.get(key) : undefined);
const shown = (v) => (v === undefined || v === null ? "None" : canonical(v));

// -- §1 reading the file ---------------------------------------------------------------

/** RFC 4180 rows (a quoted field may hold commas, quotes doubled and line breaks), read as
 *  leniently as Python's csv module: a quote is special only at the start of a field, and
 *  text after a closing quote joins the field. */
export function csvRows(text) {
  const rows = [];
  let row = [];
  let field = "";
  let state = "start"; // start | plain | quoted | after-quote
  const endRow = () => { row.push(field); rows.push(row); row = []; field = ""; state = "start"; };
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (state === "quoted") {
      if (c === '"') state = "after-quote";
      else field += c;
      continue;
    }
    if (state === "after-quote" && c === '"') { field += '"'; state = "quoted"; continue; }
    if (c === ",") { row.push(field); field = ""; state = "start"; continue; }
    if (c === "\r" || c === "\n") {
      endRow();
      if (c === "\r" && text[k + 1] === "\n") k++;
      continue;
    }
    if (state === "start" && c === '"') { state = "quoted"; continue; }
    field += c;
    state = "plain";
  }
  if (state === "quoted") throw new NotAnExport("a quoted CSV field is not closed");
  if (field !== "" || row.length || state === "after-quote") endRow();
  return rows.filter((r) => !(r.length === 1 && r[0].trim() === ""));
}

function csvInt(text, column, line) {
  if (text.trim() === "") return null;
  if (!/^\s*[+-]?[0-9]+\s*$/.test(text)) throw new NotAnExport(`row ${line}: ${column} is not an integer`);
  const v = BigInt(text.trim());
  return new JNum(true, v.toString(), Number(v));
}

function csvJson(text, column, line) {
  try {
    return parse(text);
  } catch (e) {
    throw new NotAnExport(`row ${line}: the ${column} column is not JSON (${e.message})`);
  }
}

function errorAnswer(v) {
  return v instanceof Map && v.has("status") && v.has("title");
}

/** The records and checkpoint lines of an export: {format, records: [Map], checkpoints:
 *  [{value, last}]}; throws NotAnExport. */
export function readExport(text) {
  if (text.startsWith("\ufeff")) text = text.slice(1);
  const first = text.split("\n").find((l) => l.trim() !== "");
  if (first === undefined) throw new NotAnExport("the file is empty");
  return first.trimStart().startsWith("{") ? readNdjson(text) : readCsv(text);
}

function readNdjson(text) {
  const lines = text.split("\n").map((l, k) => [l, k + 1]).filter(([l]) => l.trim() !== "");
  const records = [];
  const checkpoints = [];
  lines.forEach(([line, number], k) => {
    let v;
    try {
      v = parse(line);
    } catch (e) {
      if (e instanceof JsonError) throw new NotAnExport(`line ${number} is not JSON (${e.message})`);
      throw e;
    }
    if (k === 0 && errorAnswer(v)) {
      throw new NotAnExport("it is an error answer of the server saved by mistake, not an export");
    }
    if (!(v instanceof Map)) throw new NotAnExport(`line ${number} is not a JSON object`);
    if (v.size === 1 && v.has("checkpoint")) {
      checkpoints.push({ value: v.get("checkpoint"), last: k === lines.length - 1 });
      return;
    }
    if (!v.has("position") || !v.has("hash")) {
      throw new NotAnExport(`line ${number} is not an event (no position or hash)`);
    }
    records.push(v);
  });
  if (!records.length) throw new NotAnExport("it holds no events");
  return { format: "ndjson", records, checkpoints };
}

function readCsv(text) {
  const rows = csvRows(text);
  const header = rows[0].map((h) => h.trim());
  const at = Object.fromEntries(header.map((h, k) => [h, k]));
  if (!("position" in at) || !("hash" in at)) {
    throw new NotAnExport("it is neither NDJSON nor a CSV export with position and hash columns");
  }
  const records = [];
  const checkpoints = [];
  const body = rows.slice(1);
  body.forEach((row, k) => {
    const line = k + 2;
    const col = (name) => (name in at ? row[at[name]] ?? "" : undefined);
    if (col("type") === "Checkpoint") {
      let value;
      try {
        value = parse(col("data") ?? "");
      } catch {
        value = undefined; // not JSON: malformed
      }
      checkpoints.push({ value, last: k === body.length - 1 });
      return;
    }
    const record = new Map();
    for (const name of header) {
      const v = col(name);
      if (["position", "cause", "command", "voided_by"].includes(name)) record.set(name, csvInt(v, name, line));
      else if (name === "data") record.set(name, v.trim() === "" ? null : csvJson(v, name, line));
      else if (name === "dice") { if (v.trim() !== "") record.set(name, csvJson(v, name, line)); }
      else record.set(name, v);
    }
    if (record.get("position") === null || !record.get("hash")) {
      throw new NotAnExport(`row ${line} is not an event (no position or hash)`);
    }
    records.push(record);
  });
  if (!records.length) throw new NotAnExport("it holds no events");
  return { format: "csv", records, checkpoints };
}

// -- §2/§3 the chain --------------------------------------------------------------------

export function canonicalRecord(record) {
  const kept = new Map([...record].filter(([k]) => !UNHASHED.has(k)));
  return canonical(kept);
}

async function chainOf(records) {
  let previous = "";
  for (let k = 0; k < records.length; k++) {
    const count = k + 1;
    const r = records[k];
    const position = r.get("position");
    const at = position === undefined ? count : plain(position);
    if (!same(position, count)) {
      return { ok: false, events: count, broken_at: at, reason: `expected position ${count}` };
    }
    const computed = await sha256hex(utf8.encode(previous + canonicalRecord(r)));
    if (r.get("hash") !== computed) {
      return {
        ok: false, events: count, broken_at: at,
        reason: "the hash does not match the event's content and the previous hash",
      };
    }
    previous = computed;
  }
  return { ok: true, events: records.length, broken_at: null, reason: "" };
}

function rollsOf(record) {
  const rolls = get(record.get("data"), "rolls");
  return rolls instanceof Map ? rolls : new Map();
}

/** §4: voided_by and the CSV dice column, or null when they agree. */
function derivedColumns(records) {
  const claimed = new Map();
  for (let k = records.length - 1; k >= 0; k--) {
    const r = records[k];
    if (!CORRECTIONS.has(r.get("type"))) continue;
    const p = k + 1;
    if (claimed.has(p)) continue;
    const cascade = get(r.get("data"), "cascade");
    for (const q of Array.isArray(cascade) ? cascade : []) {
      const n = q instanceof JNum ? q.value : q;
      if (!claimed.has(n)) claimed.set(n, p);
    }
  }
  for (let k = 0; k < records.length; k++) {
    const r = records[k];
    const p = k + 1;
    if (r.has("voided_by")) {
      const expected = claimed.has(p) ? claimed.get(p) : null;
      if (!same(r.get("voided_by"), expected)) {
        return {
          ok: false, events: records.length, broken_at: p,
          reason: `voided_by says ${shown(r.get("voided_by"))}, the corrections say ${expected ?? "None"}`,
        };
      }
    }
    if (r.has("dice")) {
      const expected = new Map([...rollsOf(r)].map(([name, roll]) => [name, get(roll, "faces") ?? null]));
      if (!same(r.get("dice"), expected)) {
        return {
          ok: false, events: records.length, broken_at: p,
          reason: "the dice column differs from the event's rolls",
        };
      }
    }
  }
  return null;
}

// -- §5 the dice ------------------------------------------------------------------------

const hmacKeys = new Map();
async function hmacKey(secret) {
  const id = hex(secret);
  if (!hmacKeys.has(id)) {
    // HMAC pads a short key with zero bytes, so an empty key is the key 0x00 (Web Crypto
    // refuses a zero-length one).
    const raw = secret.length ? secret : new Uint8Array([0]);
    hmacKeys.set(id, await subtle().importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]));
  }
  return hmacKeys.get(id);
}

/** face(secret, key, sides) of §5.2. */
export async function deriveFace(secret, key, sides) {
  if (!Number.isInteger(sides) || sides < 1) return null;
  const limit = 2 ** 32 - (2 ** 32 % sides);
  const k = await hmacKey(secret);
  for (let counter = 0; counter < 10000; counter++) {
    const d = new Uint8Array(await subtle().sign("HMAC", k, utf8.encode(`${key}#${counter}`)));
    for (let i = 0; i < 32; i += 4) {
      const n = d[i] * 2 ** 24 + (d[i + 1] << 16) + (d[i + 2] << 8) + d[i + 3];
      if (n < limit) return (n % sides) + 1;
    }
  }
  return null;
}

async function diceOf(records) {
  const first = get(records[0], "data");
  let inForce = get(first, "dice_commitment") ?? null;
  const seed = get(first, "seed");
  const forkAt = intOf(get(get(first, "forked_from"), "at"));
  const epochOf = [];
  const secrets = new Map();
  const badReveals = [];
  let epoch = 0;
  for (let k = 0; k < records.length; k++) {
    const r = records[k];
    const data = r.get("data");
    epochOf.push(epoch);
    if (r.get("type") === "DiceCommitted") inForce = get(data, "commitment") ?? null;
    if (r.get("type") === "DiceSecretRevealed") {
      const secret = unhex(get(data, "secret"));
      const digest = secret ? await sha256hex(secret) : null;
      const good = digest !== null && digest === get(data, "commitment") && digest === inForce;
      if (!good) badReveals.push(k + 1);
      const which = intOf(get(data, "epoch"));
      if (secret && which !== null && !secrets.has(which)) secrets.set(which, secret);
      const next = get(data, "next_commitment");
      if (next !== undefined && next !== null) {
        inForce = next;
        epoch += 1;
      }
    }
  }

  const out = { checked: 0, manual: 0, unrevealed: 0, inherited: 0, mismatches: [], bad_reveals: badReveals, ok: true };
  const rolls = []; // for the page: every server or seeded roll
  const counters = new Map();
  const seedBytes = typeof seed === "string" ? utf8.encode(seed) : null;
  for (let k = 0; k < records.length; k++) {
    const r = records[k];
    const p = k + 1;
    const command = r.get("command");
    const commandText = command instanceof JNum ? command.text : String(plain(command));
    for (const [name, roll] of rollsOf(r)) {
      const faces = get(roll, "faces");
      const sides = get(roll, "sides");
      if (!Array.isArray(faces)) continue;
      const source = get(roll, "source");
      const attempt = intOf(get(roll, "attempt")) ?? 0;
      const counterKey = JSON.stringify([commandText, attempt, name]);
      const start = counters.get(counterKey) ?? 0;
      counters.set(counterKey, start + faces.length);
      const shownRoll = { position: p, type: r.get("type"), roll: name, source, attempt,
        faces: faces.map(plain), derived: [], status: [] };
      for (let d = 0; d < faces.length; d++) {
        let status;
        let expected = null;
        if (source === "manual") status = "manual";
        else if (forkAt !== null && p <= forkAt) status = "inherited";
        else {
          const secret = source === "seeded" ? seedBytes : secrets.get(epochOf[k]);
          if (!secret) status = "unrevealed";
          else {
            const key = attempt > 0 ? `${commandText}.${attempt}/${name}/${start + d}` : `${commandText}/${name}/${start + d}`;
            const s = Array.isArray(sides) ? sides[d] : undefined;
            expected = await deriveFace(secret, key, isInt(s) ? Number(s.text) : NaN);
            status = expected !== null && same(faces[d], expected) ? "checked" : "mismatch";
          }
        }
        if (status === "mismatch") {
          out.mismatches.push({ position: p, roll: name, die: d + 1, face: plain(faces[d]), expected });
        } else out[status] += 1;
        shownRoll.derived.push(expected);
        shownRoll.status.push(status);
      }
      if (source !== "manual") rolls.push(shownRoll);
    }
  }
  out.ok = out.mismatches.length === 0 && badReveals.length === 0;
  return { dice: out, rolls };
}

// -- §6 the checkpoint ------------------------------------------------------------------

function wellFormed(c) {
  if (!(c instanceof Map)) return "the checkpoint is not a JSON object";
  const members = [...c.keys()].sort();
  if (members.join() !== CHECKPOINT_MEMBERS.join()) {
    return `the checkpoint must have exactly the members ${CHECKPOINT_MEMBERS.join(", ")}`;
  }
  if (typeof c.get("encounter") !== "string") return "its encounter is not a string";
  if (typeof c.get("time") !== "string") return "its time is not a string";
  const position = c.get("position");
  if (!isInt(position) || BigInt(position.text) < 1n) return "its position is not an integer ≥ 1";
  if (!/^[0-9a-f]{64}$/.test(c.get("hash"))) return "its hash is not 64 hex characters";
  if (!/^[0-9a-f]{64}$/.test(c.get("key"))) return "its key is not 64 hex characters";
  if (!/^[0-9a-f]{128}$/.test(c.get("signature"))) return "its signature is not 128 hex characters";
  return null;
}

/** The published keys whose id is the SHA-256 of their public key (the others ignored). */
export async function trustedKeys(answer) {
  const listed = Array.isArray(answer) ? answer : Array.isArray(answer?.keys) ? answer.keys : [];
  const out = [];
  for (const key of listed) {
    const raw = unhex(key?.public_key);
    if (!raw || raw.length !== 32 || typeof key.id !== "string") continue;
    if ((await sha256hex(raw)) !== key.id) continue;
    out.push({ ...key, raw });
  }
  return out;
}

const verdict = (status, ok, c, extra = {}) => ({
  status, ok,
  position: c ? Number(c.get("position").text) : null,
  time: c ? c.get("time") : null,
  key: c ? c.get("key") : null,
  missing: null, unsigned: null, reason: "",
  ...extra,
});

async function checkpointOf(records, checkpoints, getKeys) {
  const events = records.length;
  if (!checkpoints.length) {
    return verdict("none", true, null, { reason: "the file carries no checkpoint: nothing says it is whole" });
  }
  if (checkpoints.length > 1) {
    return verdict("malformed", false, null, { reason: "the file carries more than one checkpoint" });
  }
  if (!checkpoints[0].last) {
    return verdict("malformed", false, null, { reason: "the checkpoint is not the last line of the file" });
  }
  const c = checkpoints[0].value;
  const wrong = wellFormed(c);
  if (wrong) return verdict("malformed", false, null, { reason: wrong });
  const keys = await trustedKeys(await getKeys());
  const key = keys.find((k) => k.id === c.get("key"));
  if (!key) {
    return verdict("unknown_key", false, c, { reason: `no published key has the id ${c.get("key")}` });
  }
  const signed = new Map(["encounter", "hash", "key", "position", "time"].map((m) => [m, c.get(m)]));
  let good = false;
  try {
    const publicKey = await subtle().importKey("raw", key.raw, { name: "Ed25519" }, false, ["verify"]);
    good = await subtle().verify("Ed25519", publicKey, unhex(c.get("signature")),
      utf8.encode(SIGNED_PREFIX + canonical(signed)));
  } catch {
    good = false;
  }
  if (!good) return verdict("bad_signature", false, c, { reason: "the signature does not verify with the key it names" });
  const position = Number(c.get("position").text);
  if (position > events) {
    return verdict("truncated", false, c, {
      missing: [events + 1, position],
      reason: `the checkpoint vouches for ${position} events, the file holds ${events}`,
    });
  }
  if (records[position - 1].get("hash") !== c.get("hash")) {
    return verdict("mismatch", false, c, { reason: `the event at position ${position} is not the one the checkpoint signed` });
  }
  if (position === events) return verdict("complete", true, c);
  return verdict("after_checkpoint", true, c, {
    unsigned: [position + 1, events],
    reason: `positions ${position + 1}–${events} come after the checkpoint and no signature covers them`,
  });
}

// -- §7 the report ----------------------------------------------------------------------

/** Verify an export's text. `getKeys`: async () => the GET /audit/keys answer (asked only
 *  when the file carries a well-formed checkpoint). Returns {report, rolls, format, records}
 *  (`report` has exactly the keys of §7); throws NotAnExport. */
export async function verify(text, { getKeys = async () => ({ keys: [] }) } = {}) {
  const { format, records, checkpoints } = readExport(text);
  let chain = await chainOf(records);
  if (chain.ok) chain = derivedColumns(records) ?? chain;
  if (!chain.ok) {
    return { report: { ok: false, chain, dice: null, checkpoint: null }, rolls: [], format, records };
  }
  const { dice, rolls } = await diceOf(records);
  const checkpoint = await checkpointOf(records, checkpoints, getKeys);
  const report = { ok: chain.ok && dice.ok && checkpoint.ok, chain, dice, checkpoint };
  return { report, rolls, format, records };
}
