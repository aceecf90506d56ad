// The canonical form of docs/audit-spec.md §2, written from the spec alone: a JSON parser
// that keeps whether a number was written as an integer or a double (integers of any size as
// their decimal text; doubles as IEEE 754 values), and the writer of Python's
// json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).
//
// Parsed values: objects are Maps (file order kept, a repeated key keeps its last value),
// arrays are Arrays, strings are strings, true/false/null as they are, and numbers are
// JNum instances.

export class JsonError extends Error {}

/** A number as the file wrote it: an integer (`int`, its decimal text in `text`, any size)
 *  or a double (`value`). */
export class JNum {
  constructor(int, text, value) {
    this.int = int;
    this.text = text;   // integers: canonical decimal; doubles: Python's repr
    this.value = value; // the Number (an integer's may be rounded when huge)
  }
  toJSON() { return this.value; }
  toString() { return this.text; }
}

export function isInt(v) { return v instanceof JNum && v.int; }
/** The integer as a Number, or null when `v` is no integer. */
export function intOf(v) { return isInt(v) ? Number(v.text) : null; }

const WS = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

/** Parse one JSON text (Python's json.loads grammar: also NaN, Infinity, -Infinity). */
export function parse(text) {
  let i = 0;
  const fail = (what) => { throw new JsonError(`${what} at character ${i + 1}`); };
  const skip = () => { while (i < text.length && WS.has(text[i])) i++; };

  function string() {
    i++; // the opening quote
    let out = "";
    let start = i;
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const c = text.charCodeAt(i);
      if (c === 0x22) { out += text.slice(start, i); i++; return out; }
      if (c < 0x20) fail("control character in a string");
      if (c === 0x5c) {
        out += text.slice(start, i);
        const e = text[i + 1];
        if (e === "u") {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("bad \\u escape");
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else if (e !== undefined && Object.hasOwn(ESCAPES, e)) {
          out += ESCAPES[e];
          i += 2;
        } else fail("bad escape");
        start = i;
        continue;
      }
      i++;
    }
  }

  function number() {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) fail("bad number");
    const raw = m[0];
    i += raw.length;
    if (m[1] === undefined && m[2] === undefined) {
      let digits = raw.replace(/^-/, "");
      // Python's int() refuses a text of more than 4300 digits (sys.int_info)
      if (digits.length > 4300) { i -= raw.length; fail("an integer of more than 4300 digits"); }
      const negative = raw.startsWith("-") && digits !== "0";
      return new JNum(true, (negative ? "-" : "") + digits, Number(raw));
    }
    const value = Number(raw);
    return new JNum(false, pyFloat(value), value);
  }

  function value(depth) {
    if (depth > 10000) fail("too deep");
    skip();
    const c = text[i];
    if (c === "{") {
      i++;
      const map = new Map();
      skip();
      if (text[i] === "}") { i++; return map; }
      for (;;) {
        skip();
        if (text[i] !== '"') fail("expected a key");
        const key = string();
        skip();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        const v = value(depth + 1);
        map.set(key, v); // a repeated key: its last value, in its first place (as a dict)
        skip();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "}") { i++; return map; }
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const list = [];
      skip();
      if (text[i] === "]") { i++; return list; }
      for (;;) {
        list.push(value(depth + 1));
        skip();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "]") { i++; return list; }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    if (text.startsWith("true", i)) { i += 4; return true; }
    if (text.startsWith("false", i)) { i += 5; return false; }
    if (text.startsWith("null", i)) { i += 4; return null; }
    if (text.startsWith("NaN", i)) { i += 3; return new JNum(false, "NaN", NaN); }
    if (text.startsWith("Infinity", i)) { i += 8; return new JNum(false, "Infinity", Infinity); }
    if (text.startsWith("-Infinity", i)) { i += 9; return new JNum(false, "-Infinity", -Infinity); }
    if (c === "-" || (c >= "0" && c <= "9")) return number();
    fail(i >= text.length ? "unexpected end" : "unexpected character");
  }

  const v = value(0);
  skip();
  if (i < text.length) fail("extra data");
  return v;
}

/** A double in Python's repr layout: the shortest round-tripping digits (from
 *  toExponential()), fixed notation when the decimal exponent e is −4 ≤ e < 16 (always a
 *  digit after the point), else d.ddde±XX. */
export function pyFloat(v) {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "Infinity";
  if (v === -Infinity) return "-Infinity";
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  const sign = v < 0 ? "-" : "";
  const [mantissa, exp] = Math.abs(v).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const e = Number(exp);
  if (e >= -4 && e < 16) {
    if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
    const whole = digits.slice(0, e + 1).padEnd(e + 1, "0");
    const frac = digits.slice(e + 1) || "0";
    return `${sign}${whole}.${frac}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const x = String(Math.abs(e)).padStart(2, "0");
  return `${sign}${m}e${e < 0 ? "-" : "+"}${x}`;
}

/** A string as json.dumps writes it with ensure_ascii: every UTF-16 unit above U+007E and
 *  below U+0020 as \uXXXX (lowercase), except the short escapes. */
export function pyString(s) {
  let out = '"';
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0c) out += "\\f";
    else if (c === 0x0d) out += "\\r";
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += s[k];
  }
  return `${out}"`;
}

/** Compare two strings by Unicode code point (not UTF-16 unit, which sorts U+E000–U+FFFF
 *  after astral characters' surrogates wrongly). */
export function byCodePoint(a, b) {
  const x = [...a];
  const y = [...b];
  const n = Math.min(x.length, y.length);
  for (let k = 0; k < n; k++) {
    const d = x[k].codePointAt(0) - y[k].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

/** The canonical JSON text of a parsed value (Maps, Arrays, JNum, strings, literals; plain
 *  JS numbers are taken as integers when integral, else doubles). */
export function canonical(v) {
  if (v === null || v === undefined) return "null";
  if (v === true) return "true";
  if (v === false) return "false";
  if (typeof v === "string") return pyString(v);
  if (v instanceof JNum) return v.text;
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : pyFloat(v);
  if (typeof v === "bigint") return v.toString();
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
  entries.sort((a, b) => byCodePoint(a[0], b[0]));
  return `{${entries.map(([k, x]) => `${pyString(k)}:${canonical(x)}`).join(",")}}`;
}

/** Python's == on parsed values: numbers by value (1 == 1.0), Maps whatever their order. */
export function same(a, b) {
  if (a instanceof JNum || b instanceof JNum || typeof a === "number" || typeof b === "number") {
    const x = a instanceof JNum ? a : typeof a === "number" ? new JNum(Number.isInteger(a), String(a), a) : null;
    const y = b instanceof JNum ? b : typeof b === "number" ? new JNum(Number.isInteger(b), String(b), b) : null;
    if (!x || !y) return false;
    if (x.int && y.int) return BigInt(x.text) === BigInt(y.text);
    return x.value === y.value;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, k) => same(x, b[k]));
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map && b instanceof Map) || a.size !== b.size) return false;
    for (const [k, x] of a) if (!b.has(k) || !same(x, b.get(k))) return false;
    return true;
  }
  return a === b;
}

/** JSON text of a value (a report) with the file's integers exact: JNum written as its
 *  text, the rest as JSON.stringify writes it (indented by `indent` spaces). */
export function toJsonText(v, indent = 2, depth = 0) {
  const pad = (d) => (indent ? `\n${" ".repeat(indent * d)}` : "");
  if (v instanceof JNum) return v.text;
  if (Array.isArray(v)) {
    if (!v.length) return "[]";
    return `[${v.map((x) => pad(depth + 1) + toJsonText(x, indent, depth + 1)).join(",")}${pad(depth)}]`;
  }
  if (v instanceof Map) v = Object.fromEntries(v);
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined);
    if (!entries.length) return "{}";
    const sep = indent ? ": " : ":";
    return `{${entries.map(([k, x]) => `${pad(depth + 1)}${JSON.stringify(k)}${sep}${toJsonText(x, indent, depth + 1)}`).join(",")}${pad(depth)}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** A parsed value as plain JS (for showing): Maps as objects, JNum as Numbers. */
export function plain(v) {
  if (v instanceof JNum) return v.value;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, plain(x)]));
  return v;
}
