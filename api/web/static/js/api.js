// The fraylog HTTP API and live feed, as any frontend uses them: a token per encounter
// (from the page's #token=… fragment, then kept in this browser), problem+json refusals
// as errors, and the feed read with fetch so the token travels in a header, never in a URL.

const KEY = (eid) => `fraylog:token:${eid}`;

/** The token for an encounter: the fragment's (#token=…), which is then kept in this
 *  browser and taken out of the address bar, or the one kept from an earlier visit. */
export function tokenFor(eid) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const given = fragment.get("token");
  if (given) {
    localStorage.setItem(KEY(eid), given);
    fragment.delete("token");
    const rest = fragment.toString();
    history.replaceState(null, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
    return given;
  }
  return localStorage.getItem(KEY(eid));
}

export function keepToken(eid, token) {
  localStorage.setItem(KEY(eid), token);
}

/** A refusal: the problem+json body's fields on the error (rule, field, needed, so_far…). */
export class Problem extends Error {
  constructor(status, body) {
    super(body?.detail || `HTTP ${status}`);
    this.status = status;
    Object.assign(this, body || {});
  }
}

async function answer(response) {
  const type = response.headers.get("content-type") || "";
  const json = type.startsWith("application/json") || type.includes("+json");  // not x-ndjson
  const body = json ? await response.json() : await response.text();
  if (!response.ok) throw new Problem(response.status, typeof body === "object" ? body : { detail: body });
  return body;
}

export class Client {
  constructor(eid, token, { lang = null } = {}) {
    this.eid = eid;
    this.token = token;
    this.lang = lang;
  }

  headers(extra = {}) {
    const h = { ...extra };
    if (this.token) h.Authorization = `Bearer ${this.token}`;
    return h;
  }

  url(path, params = {}) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) q.set(k, v);
    const s = q.toString();
    return `/encounters/${this.eid}${path}${s ? `?${s}` : ""}`;
  }

  async get(path, params) {
    return answer(await fetch(this.url(path, params), { headers: this.headers() }));
  }

  async post(path, body, params) {
    const r = await fetch(this.url(path, params), {
      method: "POST",
      headers: this.headers({ "Content-Type": "application/json" }),
      body: JSON.stringify(body),
    });
    return answer(r);
  }

  view(version = null) { return this.get("", { version }); }
  choices() { return this.get("/choices"); }
  log(until = null) { return this.get("/log", { until, lang: this.lang }); }
  events(params = {}) { return this.get("/events", params); }
  diff(from, to) { return this.get("/diff", { from, to }); }
  verify() { return this.get("/verify"); }
  /** Run a command (`preview`: record nothing). A DICE_NEEDED refusal is thrown as a Problem
   *  whose `needed` says which face to add to `body.dice[needed.roll]`. */
  command(body, { preview = false } = {}) {
    return this.post("/commands", body, { preview: preview ? "true" : null, lang: this.lang });
  }
  addCombatant(body) { return this.post("/combatants", body); }
  mintPlayer(combatants, label) { return this.post("/tokens", { combatants, label }); }
  fork(at, name) { return this.post("/fork", { at, name }); }

  /** Follow the live feed with view messages: onEvent(record) for each stored event,
   *  onView(view) after each command's events. Reconnects after a drop, resuming after the
   *  last event seen. Returns a function that stops it. */
  follow({ after = 0, onEvent = () => {}, onView = () => {}, onState = () => {} } = {}) {
    let last = after;
    let stopped = false;
    let controller = null;
    const run = async () => {
      while (!stopped) {
        controller = new AbortController();
        try {
          const r = await fetch(this.url("/stream", { view: "true" }), {
            headers: this.headers({ "Last-Event-ID": String(last), Accept: "text/event-stream" }),
            signal: controller.signal,
          });
          if (!r.ok) throw new Problem(r.status, await r.json().catch(() => ({})));
          onState("live");
          const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = "";
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            let cut;
            while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
              const block = buffer.slice(0, cut);
              buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
              const message = { event: "message", data: "", id: null };
              for (const line of block.split(/\r?\n/)) {
                if (line.startsWith(":")) continue;
                const colon = line.indexOf(":");
                const field = colon < 0 ? line : line.slice(0, colon);
                const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
                if (field === "data") message.data += (message.data ? "\n" : "") + value;
                else if (field === "event") message.event = value;
                else if (field === "id") message.id = value;
              }
              if (!message.data) continue;
              const data = JSON.parse(message.data);
              if (message.event === "view") onView(data);
              else {
                last = Number(message.id);
                onEvent(data);
              }
            }
          }
        } catch (e) {
          if (stopped) return;
          if (e instanceof Problem && e.status < 500) { onState("closed", e); return; }
        }
        if (!stopped) {
          onState("reconnecting");
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    };
    run();
    return () => { stopped = true; controller?.abort(); };
  }
}

/** Create an encounter (anyone may); the answer holds its GM token, shown once. */
/** Start an encounter; with an account key, the account's. */
export async function createEncounter(body, accountKey = null) {
  const headers = { "Content-Type": "application/json" };
  if (accountKey) headers.Authorization = `Bearer ${accountKey}`;
  return answer(await fetch("/encounters", { method: "POST", headers, body: JSON.stringify(body) }));
}

// A GM account (docs/api.md "GM accounts"): its key kept in this browser, its fights listed.
const ACCOUNT = "fraylog:account";

export const accountKey = () => localStorage.getItem(ACCOUNT);
export const keepAccountKey = (key) => localStorage.setItem(ACCOUNT, key);
export const forgetAccountKey = () => localStorage.removeItem(ACCOUNT);

export async function openAccount(name) {
  return answer(await fetch("/accounts", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name }),
  }));
}

export async function readAccount(key) {
  return answer(await fetch("/accounts/me", { headers: { Authorization: `Bearer ${key}` } }));
}

/** A page of the account's fights, newest activity first (`after`: the previous page's
 *  `next`; `filters`: name, status, ruleset). */
export async function listFights(key, { after = null, ...filters } = {}) {
  const q = new URLSearchParams({ limit: "20" });
  if (after) q.set("after", after);
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
  return answer(await fetch(`/encounters?${q}`, { headers: { Authorization: `Bearer ${key}` } }));
}

export async function describeRuleset(name) {
  return answer(await fetch(`/rulesets/${name}`));
}
