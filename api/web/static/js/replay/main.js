// The replay viewer at /e/{id}/replay, on the public HTTP API alone: the events (page by
// page), the log and the verification once; the view at version N when the slider stops
// there (kept, so going back is instant); the diff, the fork and the exports on request.

import { Client, Problem, describeRuleset, tokenFor } from "../api.js";
import { book, fieldName } from "./books.js";
import { plainTable } from "../presentation.js";
import { drawChart, hitSeries } from "./chart.js";

const $ = (id) => document.getElementById(id);
const eid = decodeURIComponent(location.pathname.split("/")[2] || "");
const client = new Client(eid, tokenFor(eid));

const state = {
  events: [], // every record, position order
  lines: new Map(), // position → log line
  items: [], // the log's <li>, position order
  views: new Map(), // version → view (or a promise of it)
  last: 1,
  version: 1,
  ruleset: null,
  table: null, // the book's presentation (GET /rulesets/{name}: `table`)
  name: "",
  chart: null,
  wanted: 0, // the version whose view is to be shown (a later answer wins)
  // the log's voided_by is as of now; while no correction is itself voided (an undo
  // redone, a void voided) that also tells what was void at any N. Otherwise the log as
  // of N is read when the slider stops there: version → Map(position → voided_by)
  exactVoids: false,
  voidsAt: new Map(),
};

function text(node, value) { node.textContent = value == null ? "" : String(value); }

function fail(message) {
  const box = $("fatal");
  text(box, message);
  box.hidden = false;
  $("badge").hidden = true;
}

function problemText(e) {
  if (e instanceof Problem) return `${e.detail}${e.rule ? ` (${e.rule})` : ""}`;
  return String(e?.message || e);
}

async function allEvents() {
  const out = [];
  let after = 0;
  for (;;) {
    const page = await client.events({ after, limit: 1000 });
    out.push(...page.events);
    if (page.next_after == null) return out;
    after = page.next_after;
  }
}

function view(version) {
  let v = state.views.get(version);
  if (!v) {
    v = client.view(version).then((got) => { state.views.set(version, got); return got; });
    v.catch(() => state.views.delete(version));
    state.views.set(version, v);
  }
  return Promise.resolve(v);
}

// ---- the state at version N

// a described state as a share of the meter: coarse, never a figure (docs/visibility.md)
const STATE_SHARE = { unhurt: 1, hurt: 0.66, badly_hurt: 0.33, down: 0 };

function combatantCard(c, b, acting) {
  const li = document.createElement("li");
  li.className = "card";
  li.dataset.combatant = c.id;
  const [value, max] = b.value(c);
  const head = document.createElement("div");
  head.className = "card-head";
  const name = document.createElement("strong");
  text(name, c.name);
  const side = document.createElement("span");
  side.className = "muted";
  text(side, c.side ? ` · ${c.side}` : "");
  head.append(name, side);
  if (c.id === acting) {
    const now = document.createElement("span");
    now.className = "acting";
    text(now, "acting");
    head.append(now);
  }
  const meter = document.createElement("div");
  meter.className = "meter";
  const label = document.createElement("div");
  label.className = "meter-label";
  label.innerHTML = "<span></span><span class=\"value\"></span>";
  text(label.firstChild, b.measure);
  const concealed = value == null; // the GM shows this reader his health in words, or not at all
  const words = concealed ? (c.health_state ? c.health_state.replaceAll("_", " ") : "not shown") : null;
  text(label.lastChild, concealed ? words : max != null ? `${value} / ${max}` : value);
  if (!concealed) label.lastChild.dataset.value = value;
  const bar = document.createElement("div");
  bar.className = "meter-bar";
  bar.setAttribute("role", "meter");
  bar.setAttribute("aria-label", `${c.name}: ${b.measure}`);
  bar.setAttribute("aria-valuemin", "0");
  bar.setAttribute("aria-valuemax", String(concealed ? 1 : max ?? value));
  bar.setAttribute("aria-valuenow", String(concealed ? STATE_SHARE[c.health_state] ?? 0 : Math.max(0, value)));
  if (concealed) bar.setAttribute("aria-valuetext", words);
  const fill = document.createElement("span");
  const share = concealed ? STATE_SHARE[c.health_state] ?? 0 : max ? Math.max(0, Math.min(1, value / max)) : 0;
  fill.style.width = `${(share * 100).toFixed(1)}%`;
  fill.className = share > 0.5 ? "high" : share > 0.25 ? "mid" : "low";
  bar.append(fill);
  meter.append(label, bar);
  const facts = document.createElement("dl");
  facts.className = "facts";
  for (const [k, v] of b.facts(c)) {
    if (v == null || v === "") continue;
    const dt = document.createElement("dt");
    const dd = document.createElement("dd");
    text(dt, k);
    text(dd, v);
    facts.append(dt, dd);
  }
  li.append(head, meter, facts);
  const flags = b.flags(c).filter(Boolean);
  if (flags.length) {
    const p = document.createElement("p");
    p.className = "flags";
    for (const f of flags) {
      const s = document.createElement("span");
      s.className = "flag";
      text(s, f);
      p.append(s);
    }
    li.append(p);
  }
  return li;
}

function showView(v) {
  const b = book(state.table);
  text($("state-version"), v.version);
  const acting = v.combatants.find((c) => c.id === v.acting);
  text($("state-line"), `Round ${v.round} · step: ${String(v.step).replaceAll("_", " ")}` +
    (acting ? ` · ${acting.name} acts` : "") + (v.ended ? " · the encounter has ended" : ""));
  // in the order of play where there is one, then the rest as added
  const order = v.order || [];
  const sorted = [...v.combatants].sort((a, c) => {
    const ia = order.indexOf(a.id), ic = order.indexOf(c.id);
    return (ia < 0 ? 1e6 : ia) - (ic < 0 ? 1e6 : ic);
  });
  const list = $("combatants");
  list.replaceChildren(...sorted.map((c) => combatantCard(c, b, v.acting)));
  if (!sorted.length) list.innerHTML = "<li class=\"muted\">No combatants yet.</li>";
  $("combatants").classList.remove("stale");
  $("replay").dataset.shown = String(v.version);
}

// ---- the log and the timeline

function buildLog(lines) {
  const log = $("log");
  state.items = [];
  state.voidsAt.clear();
  state.exactVoids = lines.some((l) => l.type in CORRECTIONS && l.voided_by != null);
  if (state.exactVoids) state.voidsAt.set(state.last, new Map(lines.map((l) => [l.position, l.voided_by])));
  const frag = document.createDocumentFragment();
  for (const line of lines) {
    state.lines.set(line.position, line);
    const li = document.createElement("li");
    li.dataset.position = line.position;
    li.value = line.position;
    const number = document.createElement("span");
    number.className = "pos";
    text(number, line.position);
    const body = document.createElement("span");
    body.className = "text";
    text(body, line.text);
    const note = document.createElement("span");
    note.className = "void-note";
    li.append(number, body, note);
    frag.append(li);
    state.items.push(li);
  }
  log.replaceChildren(frag);
}

const CORRECTIONS = { RollVoided: "void", CommandUndone: "undo", CommandRedone: "redo" };

/** What voided a line: the correction's position, kind and reason (its full line on hover). */
function voidNote(by) {
  const e = state.events[by - 1];
  const type = e?.type || state.lines.get(by)?.type;
  const kind = type && (CORRECTIONS[type] || type);
  const reason = e?.data?.reason;
  return `voided by event ${by}${kind ? ` (${kind}${reason ? `: ${reason}` : ""})` : ""}`;
}

function showLog(n) {
  const known = state.events.length; // the corrections' reasons once the events are in
  const exact = state.voidsAt.get(n);
  for (const li of state.items) {
    const pos = Number(li.dataset.position);
    const now = state.lines.get(pos).voided_by;
    const by = exact ? (exact.get(pos) ?? null) : now != null && now <= n ? now : null;
    const later = by == null && now != null && now > n ? now : null;
    const key = `${pos > n}|${by}|${later}|${pos === n}|${known}`;
    if (li.dataset.key === key) continue; // unchanged since the last move
    li.dataset.key = key;
    li.hidden = pos > n;
    li.classList.toggle("voided", by != null);
    li.classList.toggle("voided-later", later != null);
    li.classList.toggle("current", pos === n);
    const note = li.lastChild;
    text(note, by != null ? voidNote(by) : later != null ? `(voided later, by event ${later})` : "");
    note.title = by != null || later != null ? state.lines.get(by ?? later)?.text || "" : "";
    if (by != null) li.dataset.voidedBy = by; else delete li.dataset.voidedBy;
  }
  const log = $("log");
  const current = state.items[n - 1];
  if (current) log.scrollTop = Math.max(0, current.offsetTop - log.clientHeight + current.offsetHeight + 8);
}

function commandEnd(position) {
  const e = state.events[position - 1];
  if (!e) return position;
  let end = position;
  while (state.events[end] && state.events[end].command === e.command) end += 1;
  return end;
}

let timer = null;
function go(n, { now = false } = {}) {
  n = Math.max(1, Math.min(state.last, Math.round(n)));
  state.version = n;
  $("slider").value = String(n);
  $("slider").setAttribute("aria-valuetext", `version ${n} of ${state.last}`);
  const e = state.events[n - 1];
  const line = state.lines.get(n);
  text($("position-text"), `${n} / ${state.last}`);
  text($("event-text"), `Event ${n}${line ? ` (round ${line.round}): ${line.text}` : e ? `: ${e.type}` : ""}`);
  $("event-text").title = e ? `${e.type} by ${e.actor}` : "";
  $("first").disabled = $("prev").disabled = n <= 1;
  $("next").disabled = $("last").disabled = n >= state.last;
  text($("fork-at"), n);
  if (!$("fork-name").dataset.edited) $("fork-name").value = `${state.name} — from version ${n}`.slice(0, 120);
  if (!$("fork-status").dataset.role) text($("fork-status"), "");
  showLog(n);
  state.chart?.mark(n);
  state.wanted = n;
  clearTimeout(timer);
  const cached = state.views.get(n)?.version && (!state.exactVoids || state.voidsAt.has(n));
  if (!cached) $("combatants").classList.add("stale");
  const load = () => Promise.all([view(n), voidsAt(n)]).then(([v]) => {
    if (state.wanted !== n) return;
    showLog(n);
    showView(v);
  }).catch((err) => { if (state.wanted === n) text($("state-line"), `Could not load version ${n}: ${problemText(err)}`); });
  if (now || cached) load(); else timer = setTimeout(load, 90);
}

/** What was void as of version n, where the log as of now cannot tell (see exactVoids). */
async function voidsAt(n) {
  if (!state.exactVoids || state.voidsAt.has(n)) return;
  const log = await client.log(n);
  state.voidsAt.set(n, new Map(log.lines.map((l) => [l.position, l.voided_by])));
}

// ---- diff

function cell(v) {
  if (v == null) return "—";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

async function showDiff(from, to) {
  const box = $("diff");
  text(box, "Comparing…");
  try {
    const d = await client.diff(from, to);
    const table = document.createElement("table");
    table.className = "diff";
    table.dataset.from = d.from;
    table.dataset.to = d.to;
    const cap = document.createElement("caption");
    text(cap, `From version ${d.from} to version ${d.to}`);
    table.append(cap);
    const headRow = document.createElement("tr");
    headRow.innerHTML = "<th scope=\"col\">What</th><th scope=\"col\">Before</th><th scope=\"col\">After</th>";
    const thead = document.createElement("thead");
    thead.append(headRow);
    table.append(thead);
    const body = document.createElement("tbody");
    const row = (what, before, after, data = {}) => {
      const tr = document.createElement("tr");
      Object.assign(tr.dataset, data);
      for (const [i, v] of [what, before, after].entries()) {
        const td = document.createElement(i === 0 ? "th" : "td");
        if (i === 0) td.scope = "row";
        text(td, v);
        tr.append(td);
      }
      body.append(tr);
    };
    for (const [k, [a, b]] of Object.entries(d.encounter || {})) row(fieldName(state.table, k), cell(a), cell(b), { field: k });
    for (const [id, c] of Object.entries(d.combatants || {})) {
      if (c.added) { row(c.name, "—", "added", { combatant: id }); continue; }
      if (c.removed) { row(c.name, "present", "—", { combatant: id }); continue; }
      for (const [k, [a, b]] of Object.entries(c.changes || {})) {
        row(`${c.name}: ${fieldName(state.table, k)}`, cell(a), cell(b), { combatant: id, field: k });
      }
    }
    table.append(body);
    if (!body.children.length) text(box, `Nothing differs between version ${d.from} and version ${d.to}.`);
    else box.replaceChildren(table);
  } catch (err) {
    box.innerHTML = "<p class=\"error\" role=\"alert\"></p>";
    text(box.firstChild, problemText(err));
  }
}

// ---- the record: fork, exports, verification

async function fork(at, name) {
  const status = $("fork-status");
  status.className = "";
  text(status, `Forking at version ${at}…`);
  try {
    const made = await client.fork(at, name);
    text(status, `Fork made: ${made.name}. Opening it…`);
    status.dataset.fork = made.id;
    location.assign(`/e/${made.id}#token=${encodeURIComponent(made.gm_token)}`);
  } catch (err) {
    status.className = "error";
    status.replaceChildren(document.createTextNode(`Not forked: ${problemText(err)}`));
    const end = commandEnd(at);
    if (err instanceof Problem && err.rule === "FORK" && end !== at) {
      const b = document.createElement("button");
      b.type = "button";
      text(b, `Fork at version ${end}, the end of that command`);
      b.addEventListener("click", () => { go(end, { now: true }); fork(end, $("fork-name").value); });
      status.append(" ", b);
    }
  }
}

async function download(format) {
  const status = $("export-status");
  text(status, `Preparing the ${format.toUpperCase()} export…`);
  try {
    const r = await fetch(client.url("/events", { format }), { headers: client.headers() });
    if (!r.ok) throw new Problem(r.status, await r.json().catch(() => ({})));
    const blob = await r.blob();
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    const safe = state.name.replace(/[^\p{L}\p{N}_-]+/gu, "-").replace(/^-|-$/g, "") || "encounter";
    a.download = `${safe}-${eid.slice(0, 8)}.${format}`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    text(status, `Saved ${a.download} (${blob.size} bytes). Check it offline with: fraylog verify ${a.download}`);
  } catch (err) {
    text(status, `Could not export: ${problemText(err)}`);
  }
}

function showVerify(v) {
  const badge = $("badge");
  const chain = v.chain || {};
  const parts = [];
  if (chain.ok) parts.push(`Hash chain intact (${chain.events} events)`);
  else parts.push(`Hash chain broken at event ${chain.broken_at}${chain.reason ? `: ${chain.reason}` : ""}`);
  const d = v.dice;
  const dice = [];
  if (d) {
    if (d.mismatches?.length) dice.push(`${d.mismatches.length} server face(s) do not match their derivation`);
    if (d.bad_reveals?.length) dice.push(`a revealed secret does not match its commitment (event ${d.bad_reveals.join(", ")})`);
    if (d.checked) dice.push(`server dice proven (${d.checked} faces re-derived)`);
    if (d.unrevealed) dice.push(`${d.unrevealed} server faces await the reveal`);
    if (d.inherited) dice.push(`${d.inherited} faces copied from the original, proven there`);
    if (d.manual) dice.push(`${d.manual} faces from the table (manual dice: nothing to prove)`);
    if (!dice.length) dice.push("no dice rolled yet");
  }
  badge.className = `badge ${v.ok ? "good" : "bad"}`;
  badge.dataset.ok = String(v.ok);
  text(badge, `${v.ok ? "✔" : "✘"} ${parts[0]}`);
  badge.title = [parts[0], ...dice].join("; ");
  text($("verify-detail"), `Verification: ${[parts[0], ...dice].join("; ")}.`);
  $("verify-detail").dataset.manual = String(d?.manual ?? 0);
}

// ---- start

function wire() {
  const slider = $("slider");
  slider.addEventListener("input", () => go(Number(slider.value)));
  $("first").addEventListener("click", () => go(1, { now: true }));
  $("prev").addEventListener("click", () => go(state.version - 1, { now: true }));
  $("next").addEventListener("click", () => go(state.version + 1, { now: true }));
  $("last").addEventListener("click", () => go(state.last, { now: true }));
  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (t === slider || (t.closest && t.closest("input, select, textarea"))) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowDown: 1, ArrowUp: -1 };
    if (t === $("log") && (ev.key === "ArrowDown" || ev.key === "ArrowUp")) return; // scrolls the log
    if (ev.key in moves) { ev.preventDefault(); go(state.version + moves[ev.key], { now: true }); }
    else if (ev.key === "Home") { ev.preventDefault(); go(1, { now: true }); }
    else if (ev.key === "End") { ev.preventDefault(); go(state.last, { now: true }); }
  });
  $("diff-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    showDiff(Number($("diff-from").value), Number($("diff-to").value));
  });
  $("diff-here").addEventListener("click", () => { $("diff-to").value = String(state.version); });
  $("diff-from-here").addEventListener("click", () => { $("diff-from").value = String(state.version); });
  $("fork-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    fork(state.version, $("fork-name").value);
  });
  $("log-lang").addEventListener("change", async () => {
    client.lang = $("log-lang").value || null;
    try {
      const log = await client.log();
      buildLog(log.lines.filter((l) => l.position <= state.last));
      go(state.version, { now: true });
      $("log").lang = client.lang || "en";
    } catch (err) {
      text($("state-line"), `Could not read the log: ${problemText(err)}`);
    }
  });
  $("fork-name").addEventListener("input", () => { $("fork-name").dataset.edited = "true"; });
  $("export-ndjson").addEventListener("click", () => download("ndjson"));
  $("export-csv").addEventListener("click", () => download("csv"));
  let width = 0;
  new ResizeObserver(() => {
    const w = $("chart").clientWidth;
    if (state.events.length && Math.abs(w - width) > 4) { width = w; drawHits(); }
  }).observe($("chart"));
}

function drawHits() {
  state.chart = drawChart($("chart"), $("legend"), {
    series: hitSeries(state.events),
    last: state.last,
    measure: book(state.table).measure,
    onPick: (pos) => go(pos, { now: true }),
    rounds: state.events.filter((e) => e.type === "RoundEnded" && e.voided_by == null)
      .map((e) => ({ position: e.position, round: (e.data?.round ?? 0) + 1 })),
  });
  state.chart.mark(state.version);
}

async function start() {
  if (!eid) return fail("No encounter in this address.");
  $("table-link").href = `/e/${encodeURIComponent(eid)}`;
  if (!client.token) {
    return fail("This browser holds no token for this fight: open the replay with the link the GM shares (it ends in #token=…).");
  }
  const started = performance.now();
  // the timeline needs the log and the latest view; the events (page by page) follow for
  // the chart, the corrections' reasons and the commands' ends; the verification last
  let log, current;
  try {
    [log, current] = await Promise.all([client.log(), client.view()]);
  } catch (err) {
    return fail(`Could not open this fight: ${problemText(err)}`);
  }
  // the book's presentation: its measure, facts and flags, its log's languages
  const described = await describeRuleset(current.ruleset).catch(() => null);
  state.table = described?.table || plainTable(current.ruleset);
  const events = allEvents();
  state.last = current.version;
  state.ruleset = current.ruleset;
  state.name = current.name;
  state.views.set(current.version, current);
  document.title = `Replay: ${current.name} — fraylog`;
  text($("title"), current.name);
  text($("book"), state.table.title + (current.forked_from ? ` · forked from “${current.forked_from.name}” at ${current.forked_from.at}` : ""));
  const slider = $("slider");
  slider.max = String(state.last);
  $("diff-from").max = $("diff-to").max = String(state.last);
  $("diff-from").value = "1";
  $("diff-to").value = String(state.last);
  buildLog(log.lines);
  // the log in another language, where the book's log reads in more than its own
  const languages = state.table.languages;
  for (const option of $("log-lang").options) option.hidden = option.value !== "" && !languages.includes(option.value);
  $("lang-row").hidden = languages.length < 2;
  wire();
  $("replay").hidden = false;
  go(state.last, { now: true });
  showView(current);
  document.body.dataset.ready = "true";
  document.body.dataset.openedMs = String(Math.round(performance.now() - started));
  document.body.dataset.readyAt = String(Math.round(performance.now())); // since navigation

  try {
    state.events = (await events).filter((e) => e.position <= state.last);
  } catch (err) {
    text($("chart"), `Could not read the events: ${problemText(err)}`);
    return;
  }
  // the diff, by default, from once everyone is in the fight (the last combatant added)
  const joined = state.events.filter((e) => e.type === "CombatantAdded").map((e) => e.position);
  if (joined.length && joined.at(-1) < state.last) $("diff-from").value = String(joined.at(-1));
  drawHits();
  showLog(state.version);
  document.body.dataset.events = "ready";
  document.body.dataset.eventsMs = String(Math.round(performance.now() - started));
  const verify = () => client.verify().then(showVerify, (err) => {
    text($("badge"), `Could not verify: ${problemText(err)}`);
  });
  verify();
  follow(verify);
  // a fork is the GM's: a player's link says so instead of offering it (choices tell the role)
  client.choices().then((c) => {
    if (c.role !== "player") return;
    $("fork-form").hidden = true;
    text($("fork-status"), "Forking is the GM's: ask the GM to fork the fight from a version.");
    $("fork-status").dataset.role = "player";
  }, () => {});
}

/** New events from the live feed: the timeline grows (and follows them when it was at the
 *  end), the log, the chart and the badge with it. */
function follow(verify) {
  const fresh = [];
  let busy = Promise.resolve();
  client.follow({
    after: state.last,
    onEvent: (record) => { if (record.position > state.last) fresh.push(record); },
    onView: (v) => {
      busy = busy.then(() => grow(fresh.splice(0), v, verify)).catch(() => {});
    },
    onState: (s) => { $("replay").dataset.feed = s; },
  });
}

async function grow(records, v, verify) {
  if (v.version <= state.last) return;
  const log = await client.log(); // voids reach back: every line's voided_by may change
  const atEnd = state.version === state.last;
  const known = new Set(state.events.map((e) => e.position));
  state.events.push(...records.filter((e) => !known.has(e.position) && e.position <= v.version));
  if (state.events.length < v.version) { // a gap (a reconnect): read what is missing
    const after = state.events.length ? state.events.at(-1).position : 0;
    const page = await client.events({ after, until: v.version, limit: 1000 });
    state.events.push(...page.events);
  }
  // a void changes voided_by on older events too
  const by = new Map(log.lines.map((l) => [l.position, l.voided_by]));
  for (const e of state.events) if (by.has(e.position)) e.voided_by = by.get(e.position);
  state.last = v.version;
  state.views.set(v.version, v);
  $("slider").max = String(state.last);
  $("diff-from").max = $("diff-to").max = String(state.last);
  buildLog(log.lines.filter((l) => l.position <= state.last));
  drawHits();
  go(atEnd ? state.last : state.version, { now: true });
  $("replay").dataset.last = String(state.last);
  verify();
}

start();
