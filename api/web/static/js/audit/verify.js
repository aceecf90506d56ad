// The browser's verifier of a fraylog export (docs/audit-spec.md), pure: the file's text and
// the published keys in, the report of §7 out, with Web Crypto (SHA-256, HMAC-SHA-256,
// Ed25519). No DOM: a test page may import it.

import { JNum, JsonError, canonical, intOf, isInt, parse, same } from "./canonical.js";

export class NotAnExport extends Error {}

const CORRECTIONS = new Set(["RollVoided", "CommandUndone", "CommandRedone"]);
const UNHASHED = new Set(["hash", "voided_by", "dice", "withheld"]);
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

const HEADER = ["position", "type", "timestamp", "actor", "cause", "command", "voided_by", "dice", "data", "hash"];
const INTEGER_COLUMNS = new Set(["position", "cause", "command", "voided_by"]);

/** The rows of a CSV text as Python's csv module reads them (excel dialect, not strict): a
 *  quote opens a quoted field only at a field's start (then `""` is a quote, and a quoted
 *  field holds commas and line breaks); text after a closing quote joins the field. A row
 *  ends at `\n`, with or without a `\r` before it, and nowhere else (§1: a lone `\r`, U+2028,
 *  U+2029 and U+0085 are ordinary characters). An empty line is a row with no column ([]). */
export function csvRows(text) {
  const rows = [];
  let row = [];
  let field = "";
  let state = "start"; // start (of a field) | plain | quoted | after-quote
  let any = false; // the row has a column (something was read on it)
  const endRow = () => {
    if (any) row.push(field);
    rows.push(row);
    row = []; field = ""; state = "start"; any = false;
  };
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (state === "quoted") {
      if (c === '"') state = "after-quote";
      else field += c;
      continue;
    }
    if (c === "\n" || (c === "\r" && text[k + 1] === "\n")) {
      if (c === "\r") k++;
      endRow();
      continue;
    }
    any = true;
    if (state === "after-quote" && c === '"') { field += '"'; state = "quoted"; continue; }
    if (c === ",") { row.push(field); field = ""; state = "start"; continue; }
    if (state === "start" && c === '"') { state = "quoted"; continue; }
    field += c;
    state = "plain";
  }
  if (state === "quoted") throw new NotAnExport("a quoted CSV field is not closed");
  if (any) endRow();
  return rows;
}

function csvInt(text, column, line) {
  if (text === "") return null;
  if (!/^-?[0-9]+$/.test(text)) throw new NotAnExport(`row ${line}: its ${column} is not an integer`);
  if (text.replace("-", "").length > 4300) throw new NotAnExport(`row ${line}: its ${column} has more than 4300 digits`);
  const v = BigInt(text);
  return new JNum(true, v.toString(), Number(v));
}

function json(text, where) {
  try {
    return parse(text);
  } catch (e) {
    if (e instanceof JsonError) throw new NotAnExport(`${where} is not JSON (${e.message})`);
    throw e;
  }
}

function errorAnswer(v) {
  return v instanceof Map && v.has("status") && v.has("title");
}

/** The records and checkpoint lines of an export: {format, records: [Map], checkpoints:
 *  [{value, last}]}; throws NotAnExport. */
export function readExport(text) {
  if (text.startsWith("\ufeff")) text = text.slice(1);
  return text.startsWith("position,") ? readCsv(text) : readNdjson(text);
}

function readNdjson(text) {
  const lines = text.split("\n").map((l, k) => [l, k + 1]).filter(([l]) => !/^[ \t\r]*$/.test(l));
  if (!lines.length) throw new NotAnExport("the file is empty");
  const records = [];
  const checkpoints = [];
  lines.forEach(([line, number], k) => {
    const v = json(line, `line ${number}`);
    if (k === 0 && errorAnswer(v)) {
      throw new NotAnExport("it is an error answer of the server saved by mistake, not an export");
    }
    if (v instanceof Map && v.size === 1 && v.has("checkpoint")) {
      checkpoints.push({ value: v.get("checkpoint"), last: k === lines.length - 1 });
      return;
    }
    if (!(v instanceof Map) || !v.has("position") || !v.has("hash")) {
      throw new NotAnExport(`line ${number} is neither an event (an object with position and hash) nor a checkpoint line`);
    }
    records.push(v);
  });
  if (!records.length) throw new NotAnExport("it holds no events");
  return { format: "ndjson", records, checkpoints };
}

function readCsv(text) {
  // §1: a carriage return anywhere but right before a line feed: not an export
  if (/\r(?!\n)/.test(text)) throw new NotAnExport("a carriage return not followed by a line feed");
  const all = csvRows(text);
  if (all[0].join(",") !== HEADER.join(",") || all[0].length !== HEADER.length) {
    throw new NotAnExport(`its first row is not the header ${HEADER.join(",")}`);
  }
  const body = all.map((row, k) => [row, k + 1]).slice(1).filter(([row]) => row.length > 0);
  const records = [];
  const checkpoints = [];
  body.forEach(([row, line], k) => {
    const col = (name) => row[HEADER.indexOf(name)] ?? "";
    if (col("type") === "Checkpoint" && col("position") === "") {
      checkpoints.push({ value: json(col("data"), `row ${line}: the checkpoint`), last: k === body.length - 1 });
      return;
    }
    if (col("type") === "Redacted") {
      // §1: a placeholder: its position (an integer, strictly) and its hash, nothing else
      records.push(new Map([
        ["position", csvInt(col("position"), "position", line)],
        ["redacted", true],
        ["hash", col("hash")],
      ]));
      return;
    }
    const record = new Map();
    for (const name of HEADER) {
      const v = col(name);
      if (INTEGER_COLUMNS.has(name)) record.set(name, csvInt(v, name, line));
      else if (name === "data" || name === "dice") record.set(name, v === "" ? new Map() : json(v, `row ${line}: the ${name} column`));
      else record.set(name, v);
    }
    // §1: an 11th column, when not empty, is a concealed record's `withheld` (any JSON
    // value: §3 judges it)
    const eleventh = row[HEADER.length] ?? "";
    if (eleventh !== "") record.set("withheld", json(eleventh, `row ${line}: the 11th (withheld) column`));
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

const HEX64 = /^[0-9a-f]{64}$/;
const isHex64 = (v) => typeof v === "string" && HEX64.test(v);
const big = (v) => BigInt(v.text);
/** An integer (never a boolean or a double) at least `low`, at most `high` (BigInts). */
const intIn = (v, low, high = null) => isInt(v) && big(v) >= low && (high === null || big(v) <= high);
const nullOr = (v, test) => v === undefined || v === null || test(v);
const intList = (v) => Array.isArray(v) && v.every(isInt);
const TWO_32 = 2n ** 32n;

/** §3: why a record is not well-formed, or null when it is. (A member that must be "null or
 *  …" may also be absent.) */
export function illFormed(r, withheld = new Set()) {
  if (!intIn(r.get("command"), 1n)) return "its command is not an integer ≥ 1";
  if (!nullOr(r.get("cause"), (v) => intIn(v, 1n))) return "its cause is neither null nor an integer ≥ 1";
  for (const key of ["type", "timestamp", "actor", "hash"]) {
    if (typeof r.get(key) !== "string") return `its ${key} is not a string`;
  }
  const data = r.get("data");
  if (!(data instanceof Map)) return "its data is not an object";
  const rolls = data.get("rolls");
  if (rolls !== undefined && rolls !== null && !withheld.has("rolls")) {
    if (!(rolls instanceof Map)) return "its data.rolls is not an object";
    for (const [name, roll] of rolls) {
      const what = `its roll ${JSON.stringify(name)}`;
      if (!(roll instanceof Map)) return `${what} is not an object`;
      const faces = roll.get("faces");
      const sides = roll.get("sides");
      if (!intList(faces)) return `${what} has no faces (an array of integers)`;
      if (!intList(sides) || sides.length !== faces.length) return `${what} has no sides (an array of as many integers)`;
      if (!sides.every((v) => intIn(v, 1n, TWO_32))) return `${what} has sides not from 1 to 2^32`;
      if (typeof roll.get("source") !== "string") return `${what} has no source (a string)`;
      if (roll.has("attempt") && !intIn(roll.get("attempt"), 0n)) return `${what} has an attempt that is not an integer ≥ 0`;
    }
  }
  const type = r.get("type");
  if (CORRECTIONS.has(type) && !withheld.has("cascade") && !intList(data.get("cascade"))) return "a correction without a cascade (an array of integers)";
  if (type === "EncounterCreated") {
    if (!nullOr(data.get("seed"), (v) => typeof v === "string")) return "its seed is neither null nor a string";
    if (!nullOr(data.get("dice_commitment"), isHex64)) return "its dice_commitment is neither null nor 64 hex characters";
    if (!nullOr(data.get("forked_from"), (v) => v instanceof Map && intIn(v.get("at"), 0n))) {
      return "its forked_from is neither null nor an object whose at is an integer ≥ 0";
    }
  }
  if (type === "DiceCommitted" && !isHex64(data.get("commitment"))) return "its commitment is not 64 hex characters";
  if (type === "DiceSecretRevealed") {
    if (!isHex64(data.get("secret"))) return "its secret is not 64 hex characters";
    if (!isHex64(data.get("commitment"))) return "its commitment is not 64 hex characters";
    if (!intIn(data.get("epoch"), 0n)) return "its epoch is not an integer ≥ 0";
    if (!nullOr(data.get("next_commitment"), isHex64)) return "its next_commitment is neither null nor 64 hex characters";
  }
  return null;
}

/** §1: a placeholder is a record withheld from a player, {position, redacted: true, hash}
 *  (a CSV `Redacted` row is read as one). */
export const isPlaceholder = (r) => r instanceof Map && r.get("redacted") === true;
const PLACEHOLDER_MEMBERS = new Set(["position", "redacted", "hash"]);

/** §1.1: a concealed record: not a placeholder, with `withheld` (the data members changed
 *  for its reader). Its hash is taken as given. */
export const isConcealed = (r) => r instanceof Map && !isPlaceholder(r) && r.has("withheld");
/** The data members a (valid) concealed record withholds; empty for any other record. */
const withheldOf = (r) => {
  const names = isConcealed(r) ? r.get("withheld") : null;
  return new Set(Array.isArray(names) ? names.filter((n) => typeof n === "string") : []);
};
// §1.1: members the dice proof reads, never withheld
const NEVER_WITHHELD = new Map([
  ["EncounterCreated", ["seed", "dice_commitment", "forked_from"]],
  ["DiceCommitted", ["commitment"]],
  ["DiceSecretRevealed", ["secret", "commitment", "epoch", "next_commitment"]],
]);

/** §3.3: why a concealed record is not well-formed, or null. */
function concealedWrong(r) {
  const data = r.get("data");
  const names = r.get("withheld");
  if (!(data instanceof Map)) return "its data is not an object";
  if (!Array.isArray(names) || !names.length || !names.every((n) => typeof n === "string") || new Set(names).size !== names.length) {
    return "its withheld is not a non-empty array of distinct strings";
  }
  const missing = names.find((n) => !data.has(n));
  if (missing !== undefined) return `its withheld names ${JSON.stringify(missing)}, not a member of its data`;
  const wrong = illFormed(r, new Set(names));
  if (wrong) return wrong;
  const proof = names.find((n) => (NEVER_WITHHELD.get(r.get("type")) ?? []).includes(n));
  if (proof !== undefined) return `its withheld names ${JSON.stringify(proof)}, which the dice proof reads`;
  if (!isHex64(r.get("hash"))) return "its hash is not 64 lowercase hex characters";
  return null;
}

async function chainOf(records) {
  let previous = "";
  let redacted = 0;
  let concealed = 0;
  const broken = (count, at, reason) => ({ ok: false, events: count, broken_at: at, reason, redacted, concealed });
  for (let k = 0; k < records.length; k++) {
    const count = k + 1;
    const r = records[k];
    const position = r.get("position");
    // broken_at: the record's position when it is an integer, else its ordinal
    const at = isInt(position) ? position : count;
    if (!isInt(position) || big(position) !== BigInt(count)) {
      return broken(count, at, `expected position ${count}`);
    }
    if (isPlaceholder(r)) {
      // §3.2: only position, redacted and hash; its hash taken as given, the next record
      // chains to it
      const extra = [...r.keys()].filter((m) => !PLACEHOLDER_MEMBERS.has(m));
      if (extra.length) {
        return broken(count, at, `a placeholder with a member other than position, redacted and hash (${extra.join(", ")})`);
      }
      if (!isHex64(r.get("hash"))) {
        return broken(count, at, "a placeholder whose hash is not 64 lowercase hex characters");
      }
      redacted += 1;
      previous = r.get("hash");
      continue;
    }
    if (isConcealed(r)) {
      // §3.3: its data was changed for its reader: its hash taken as given
      const bad = concealedWrong(r);
      if (bad) return broken(count, at, `not a well-formed concealed record: ${bad}`);
      concealed += 1;
      previous = r.get("hash");
      continue;
    }
    const wrong = illFormed(r);
    if (wrong) return broken(count, at, `not a well-formed record: ${wrong}`);
    const computed = await sha256hex(utf8.encode(previous + canonicalRecord(r)));
    if (r.get("hash") !== computed) {
      return broken(count, at, "hash does not match the event's content and the previous hash");
    }
    previous = computed;
  }
  return { ok: true, events: records.length, broken_at: null, reason: "", redacted, concealed };
}

function rollsOf(record) {
  const rolls = get(record.get("data"), "rolls");
  return rolls instanceof Map ? rolls : new Map();
}

/** §4: voided_by and the CSV dice column, or null when they agree (`chain`: the intact
 *  chain's verdict). voided_by only when the file holds no placeholder (the corrections
 *  that decide it may be withheld); placeholders aside. */
function derivedColumns(records, chain) {
  // §4: with a placeholder, or a correction's cascade withheld, the corrections are not all
  // known
  const withheld = records.some((r) => isPlaceholder(r) || withheldOf(r).has("cascade"));
  const claimed = new Map();
  for (let k = records.length - 1; k >= 0; k--) {
    const r = records[k];
    if (isPlaceholder(r) || withheldOf(r).has("cascade") || !CORRECTIONS.has(r.get("type"))) continue;
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
    if (isPlaceholder(r)) continue;
    if (!withheld && r.has("voided_by")) {
      const expected = claimed.has(p) ? claimed.get(p) : null;
      if (!same(r.get("voided_by"), expected)) {
        return {
          ok: false, events: records.length, broken_at: p,
          reason: `voided_by says ${shown(r.get("voided_by"))}, the corrections say ${expected ?? "None"}`,
          redacted: chain.redacted, concealed: chain.concealed,
        };
      }
    }
    if (r.has("dice") && !withheldOf(r).has("rolls")) {
      const expected = new Map([...rollsOf(r)].map(([name, roll]) => [name, get(roll, "faces") ?? null]));
      if (!same(r.get("dice"), expected)) {
        return {
          ok: false, events: records.length, broken_at: p,
          reason: "the dice column differs from the event's rolls",
          redacted: chain.redacted, concealed: chain.concealed,
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
  if (!Number.isInteger(sides) || sides < 1 || sides > 2 ** 32) return null;
  // With 1 ≤ sides ≤ 2^32 (a well-formed record's, §3), limit > 2^31: each 4-byte draw is
  // refused with odds below 1/2, so the loop ends; the counter's bound below is only a
  // safety net (2^-80000 odds) that no file can reach.
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
  // §5.3: only a first record that is an EncounterCreated says the seed, the commitment and
  // the fork
  // (a placeholder is no record here: the first record is used only when it is at
  // position 1, readable, and an EncounterCreated)
  const first = !isPlaceholder(records[0]) && records[0].get("type") === "EncounterCreated" ? records[0].get("data") : null;
  let inForce = get(first, "dice_commitment") ?? null;
  const seed = get(first, "seed");
  const forkAt = intOf(get(get(first, "forked_from"), "at"));
  const epochOf = [];
  const secrets = new Map(); // an epoch's decimal text → its secret (the latest reveal's)
  const badReveals = [];
  let epoch = 0;
  for (let k = 0; k < records.length; k++) {
    const r = records[k];
    epochOf.push(String(epoch));
    if (isPlaceholder(r)) continue;
    const data = r.get("data");
    if (r.get("type") === "DiceCommitted") inForce = data.get("commitment");
    if (r.get("type") === "DiceSecretRevealed") {
      const secret = unhex(data.get("secret"));
      const digest = await sha256hex(secret);
      if (!(digest === data.get("commitment") && digest === inForce)) badReveals.push(k + 1);
      secrets.set(data.get("epoch").text, secret);
      const next = data.get("next_commitment") ?? null;
      inForce = next;
      if (next !== null) epoch += 1;
    }
  }

  const out = {
    checked: 0, manual: 0, unrevealed: 0, inherited: 0, withheld: 0,
    mismatches: [], bad_reveals: badReveals, ok: true,
  };
  // §5.4: a face is withheld when a placeholder lies at a position from its record's
  // command up to before its record (the command's earlier records are withheld)
  // (a concealed record whose rolls are withheld counts as one: §5.4)
  const placeholders = records.flatMap((r, k) => (isPlaceholder(r) || withheldOf(r).has("rolls") ? [BigInt(k + 1)] : []));
  const withheldBefore = (command, p) => placeholders.some((q) => q >= command && q < p);
  const rolls = []; // for the page: every server or seeded roll
  const counters = new Map();
  // null or "": no seed, so seeded faces await a reveal that never comes
  const seedBytes = typeof seed === "string" && seed !== "" ? utf8.encode(seed) : null;
  for (let k = 0; k < records.length; k++) {
    const r = records[k];
    const p = k + 1;
    if (isPlaceholder(r)) continue;
    if (withheldOf(r).has("rolls")) {
      // §5.4: its rolls were changed for this reader: the faces it still lists are withheld
      const shown = r.get("data").get("rolls");
      if (shown instanceof Map) {
        for (const roll of shown.values()) {
          if (roll instanceof Map && Array.isArray(roll.get("faces"))) out.withheld += roll.get("faces").length;
        }
      }
      continue;
    }
    const commandText = r.get("command").text;
    const withheld = withheldBefore(big(r.get("command")), BigInt(p));
    for (const [name, roll] of rollsOf(r)) {
      const faces = roll.get("faces");
      const sides = roll.get("sides");
      const source = roll.get("source");
      const attempt = roll.has("attempt") ? roll.get("attempt").text : "0";
      const counterKey = JSON.stringify([commandText, attempt, name]);
      const start = counters.get(counterKey) ?? 0;
      counters.set(counterKey, start + faces.length);
      const shownRoll = { position: p, type: r.get("type"), roll: name, source, attempt: Number(attempt),
        faces: faces.map((f) => f.text), derived: [], status: [] };
      for (let d = 0; d < faces.length; d++) {
        let status;
        let expected = null;
        if (source === "manual") status = "manual";
        else if (forkAt !== null && p <= forkAt) status = "inherited";
        else if (withheld) status = "withheld";
        else {
          const secret = source === "seeded" ? seedBytes : secrets.get(epochOf[k]) ?? null;
          if (!secret) status = "unrevealed";
          else {
            const key = attempt !== "0" ? `${commandText}.${attempt}/${name}/${start + d}` : `${commandText}/${name}/${start + d}`;
            expected = await deriveFace(secret, key, Number(sides[d].text));
            status = expected !== null && same(faces[d], expected) ? "checked" : "mismatch";
          }
        }
        if (status === "mismatch") {
          out.mismatches.push({ position: p, roll: name, die: d + 1, face: faces[d], expected });
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
  if (!isHex64(c.get("hash"))) return "its hash is not 64 lowercase hex characters";
  if (!isHex64(c.get("key"))) return "its key is not 64 lowercase hex characters";
  const signature = c.get("signature");
  if (typeof signature !== "string" || !/^[0-9a-f]{128}$/.test(signature)) return "its signature is not 128 lowercase hex characters";
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
  position: c ? c.get("position") : null,
  time: c ? c.get("time") : null,
  key: c ? c.get("key") : null,
  encounter: c ? c.get("encounter") : null,
  missing: null, unsigned: null, reason: "",
  ...extra,
});

/** This browser's Web Crypto has no Ed25519: the signature cannot be checked here (which
 *  says nothing of the file). */
export class NoEd25519 extends Error {}

async function ed25519Verify(raw, signature, bytes) {
  let publicKey;
  try {
    publicKey = await subtle().importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
  } catch (e) {
    // DataError: these 32 bytes are no Ed25519 key (a key that cannot verify anything);
    // anything else (NotSupportedError, a TypeError of an older engine): no Ed25519 here
    if (e?.name === "DataError") return false;
    throw new NoEd25519(`this browser cannot check Ed25519 signatures (${e?.name || e})`);
  }
  try {
    return await subtle().verify("Ed25519", publicKey, signature, bytes);
  } catch {
    return false;
  }
}

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
  const good = await ed25519Verify(key.raw, unhex(c.get("signature")), utf8.encode(SIGNED_PREFIX + canonical(signed)));
  if (!good) return verdict("bad_signature", false, c, { reason: "the signature does not verify with the key it names" });
  const position = big(c.get("position"));
  if (position > BigInt(events)) {
    return verdict("truncated", false, c, {
      missing: [events + 1, c.get("position")],
      reason: `the checkpoint vouches for ${position} events, the file holds ${events}`,
    });
  }
  const at = Number(position);
  if (records[at - 1].get("hash") !== c.get("hash")) {
    return verdict("mismatch", false, c, { reason: `the event at position ${at} is not the one the checkpoint signed` });
  }
  if (at === events) return verdict("complete", true, c);
  return verdict("after_checkpoint", true, c, {
    unsigned: [at + 1, events],
    reason: `positions ${at + 1}–${events} come after the checkpoint and no signature covers them`,
  });
}

// -- §7 the report ----------------------------------------------------------------------

/** Verify an export's text. `getKeys`: async () => the GET /audit/keys answer (asked only
 *  when the file carries a well-formed checkpoint). Returns {report, rolls, format, records}
 *  (`report` has exactly the keys of §7; its integers from the file are JNum, written
 *  exactly by toJsonText); throws NotAnExport. When this browser has no Ed25519 and the
 *  checkpoint needs it, `report` is null and `partial` holds {chain, dice}, `noEd25519` why:
 *  no verdict is given on a signature that could not be checked. */
export async function verify(text, { getKeys = async () => ({ keys: [] }) } = {}) {
  const { format, records, checkpoints } = readExport(text);
  let chain = await chainOf(records);
  if (chain.ok) chain = derivedColumns(records, chain) ?? chain;
  if (!chain.ok) {
    return { report: { ok: false, chain, dice: null, checkpoint: null }, rolls: [], format, records };
  }
  const { dice, rolls } = await diceOf(records);
  let checkpoint;
  try {
    checkpoint = await checkpointOf(records, checkpoints, getKeys);
  } catch (e) {
    if (!(e instanceof NoEd25519)) throw e;
    return { report: null, partial: { chain, dice }, noEd25519: e.message, rolls, format, records };
  }
  const report = { ok: chain.ok && dice.ok && checkpoint.ok, chain, dice, checkpoint };
  return { report, rolls, format, records };
}
