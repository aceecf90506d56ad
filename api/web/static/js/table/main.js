// The table screen at /e/{id}: one page for the GM and for a player (the token decides,
// GET …/choices says the role), built on the public HTTP API and the live feed.
import { Client, describeRuleset, tokenFor } from "../api.js";
import { $, el, nextId, words } from "./dom.js";
import { drawHeader, drawOrder } from "./order.js";
import { card } from "./cards.js";
import { drawChoices } from "./choices.js";
import { drawLog, keepEvent, lineText, loadEvents } from "./log.js";
import { sendWithDice, setupDice } from "./dice.js";
import { fieldsForm, keyStats, playerLink } from "./forms.js";
import { plainTable } from "../presentation.js";

const eid = decodeURIComponent(location.pathname.split("/")[2] || "");
const ctx = {
  client: null, view: null, choices: null, role: null, names: new Map(), mine: new Set(),
  open: new Set(), links: new Map(), busy: false, party: new Set(), states: null, table: null,
};

/** A combatant's health state ("badly_hurt") in the table's words: the rule book's
 *  (GET /rulesets/{name}), in Spanish when the table reads Spanish and the book has them. */
ctx.said = (state) => {
  const es = ctx.client?.lang === "es" ? ctx.states?.health_states_es : null;
  return es?.[state] || ctx.states?.health_states?.[state] || words(state);
};

/** How players see combatant `c`'s health (the GM's view): his own setting, else the
 *  encounter's for the party (a player token acts for him) or for the GM's combatants. */
function shownToPlayers(c) {
  const enc = ctx.view.health_shown || {};
  return c.health_shown ?? (ctx.party.has(c.id) ? enc.party : enc.gm_combatants) ?? null;
}

const SHOWN_WORDS = { exact: "exact figures", described: "described (hurt, badly hurt…)", none: "nothing" };
// the override forms' names where words(type) reads badly
const OVERRIDE_LABELS = { show_health: "show health to players", take_note: "take a note (only you see it)" };
const FIELD_LABELS = { shown: SHOWN_WORDS, party: { true: "the party", false: "your combatants" } };
const FIELD_NAMES = { shown: "players see", party: "whose health" };

/** The player tokens' combatants (the party); the GM's only. */
async function loadParty() {
  if (ctx.role !== "gm") return;
  try {
    const { tokens } = await ctx.client.get("/tokens");
    ctx.party = new Set(tokens.flatMap((t) => t.combatants || []));
  } catch { /* keeps the last known party */ }
}

ctx.say = (text, bad = false) => {
  const s = $("choices-status");
  s.textContent = text;
  s.className = `status ${bad ? "error" : "ok"}`;
};

/** Run a command (asking the table for its dice), then show what it changed. */
ctx.run = async (body) => {
  if (ctx.busy) { ctx.say("Wait: the last move is still on its way."); return; }
  ctx.busy = true;
  document.body.classList.add("busy");
  try {
    const answer = await sendWithDice(ctx.client, body, ctx.names);
    if (answer) {
      (answer.events || []).forEach(keepEvent);
      ctx.own = answer.encounter?.version ?? ctx.own;
      await refresh(answer.encounter);
      const said = (answer.events || []).map((e) => lineText(e.position) || e.type);
      ctx.say(said.length ? `Recorded: ${said.slice(-2).join(" ")}` : "Done.");
    } else {
      ctx.say("Cancelled: nothing recorded.");
    }
  } catch (e) {
    ctx.say(e.message, true);
  } finally {
    ctx.busy = false;
    document.body.classList.remove("busy");
  }
};

// each card's GM tools are kept across redraws (a half-filled form survives the feed)
// and drawn anew only when what they offer changes
const toolsKept = new Map();

function gmTools(c) {
  if (ctx.role !== "gm") return [];
  const overrides = (ctx.choices?.overrides || []).filter((o) => o.combatant === c.id);
  const signature = JSON.stringify([c.name, overrides, [...ctx.names]]);
  const kept = toolsKept.get(c.id);
  if (kept?.signature === signature) return [kept.node];
  const [node] = makeTools(c, overrides);
  toolsKept.set(c.id, { signature, node });
  return [node];
}

function makeTools(c, overrides) {
  const key = `tools-${c.id}`;
  const body = el("div.tools-body");
  const tools = el("details.tools", { open: ctx.open.has(key), ontoggle: () => (tools.open ? ctx.open.add(key) : ctx.open.delete(key)) },
    el("summary", {}, "GM tools"), body);
  if (overrides.length) {
    const id = nextId("ov");
    const select = el("select", { id }, overrides.map((o, i) => new Option(OVERRIDE_LABELS[o.type] || words(o.type), String(i))));
    const slot = el("div");
    let form = null;
    const show = () => {
      const o = overrides[Number(select.value)];
      form = fieldsForm(o.fields, ctx.names, {}, FIELD_LABELS, FIELD_NAMES);
      slot.replaceChildren(form.node);
    };
    select.addEventListener("change", show);
    show();
    body.append(el("form.override", {
      onsubmit: async (e) => {
        e.preventDefault();
        const o = overrides[Number(select.value)];
        let values;
        try { values = form.values(); } catch (err) { ctx.say(`Not valid: ${err.message}`, true); return; }
        await ctx.run({ type: o.type, combatant: c.id, ...values });
        if (o.type === "take_note" && !$("choices-status").classList.contains("error")) show();  // sent once
      },
    }, el("label", { for: id }, `Adjust ${c.name}`), select, slot, el("button", { type: "submit" }, "Apply")));
  }
  const linkSlot = el("div", {}, ctx.links.get(c.id) || null);
  body.append(el("button", {
    type: "button",
    onclick: async () => {
      try {
        const minted = await ctx.client.mintPlayer([c.id], c.name);
        const node = await playerLink(eid, minted.token, c.name);
        ctx.links.set(c.id, node);
        ctx.party.add(c.id);
        drawCards();
        linkSlot.replaceChildren(node);
      } catch (e) { ctx.say(e.message, true); }
    },
  }, ctx.links.has(c.id) ? "New player link" : "Player link"), linkSlot);
  return [tools];
}

function drawCards() {
  const view = ctx.view;
  const acting = view.acting || null;
  $("cards").replaceChildren(...view.combatants.map((c) =>
    card(ctx.table, c, {
      acting: c.id === acting, mine: ctx.mine.has(c.id), extra: gmTools(c), said: ctx.said,
      shown: ctx.role === "gm" ? shownToPlayers(c) : null,
    })));
  $("sides").replaceChildren(...[...new Set(view.combatants.map((c) => c.side).filter(Boolean))].map((s) => new Option(s)));
}

// the GM's secrets panel: what players see of health, the fight's notes, and the
// encounter's own override forms (show_health for all, take_note on the fight)
let secretsKept = null;
function drawSecrets() {
  if (ctx.role !== "gm") return;
  $("secrets-title").closest("section").hidden = false;
  const enc = ctx.view.health_shown || {};
  $("health-shown").replaceChildren(
    el("li", {}, "Your combatants: ", el("strong", {}, SHOWN_WORDS[enc.gm_combatants] || "—")),
    el("li", {}, "The party: ", el("strong", {}, SHOWN_WORDS[enc.party] || "—")));
  const notes = ctx.view.notes || [];
  $("fight-notes").replaceChildren(...(notes.length ? notes.map((n) => el("li", {}, n))
    : [el("li.muted", {}, "No notes on the fight yet.")]));
  const overrides = (ctx.choices?.overrides || []).filter((o) => !o.combatant);
  const signature = JSON.stringify(overrides);
  if (secretsKept?.signature === signature) return;
  const box = $("secrets-tools");
  box.replaceChildren();
  secretsKept = { signature };
  if (!overrides.length) return;
  const id = nextId("enc-ov");
  const select = el("select", { id }, overrides.map((o, i) => new Option(
    { show_health: "show health to players", take_note: "note on the fight" }[o.type] || words(o.type), String(i))));
  const slot = el("div");
  let form = null;
  const show = () => {
    form = fieldsForm(overrides[Number(select.value)].fields, ctx.names, {}, FIELD_LABELS, FIELD_NAMES);
    slot.replaceChildren(form.node);
  };
  select.addEventListener("change", show);
  show();
  box.append(el("form.override", {
    onsubmit: async (e) => {
      e.preventDefault();
      let values;
      try { values = form.values(); } catch (err) { ctx.say(`Not valid: ${err.message}`, true); return; }
      await ctx.run({ type: overrides[Number(select.value)].type, ...values });
      if (!$("choices-status").classList.contains("error")) show();  // a sent note is not sent twice
    },
  }, el("label", { for: id }, "For the whole fight"), select, slot, el("button", { type: "submit" }, "Apply")));
}

function draw() {
  document.querySelector("main").classList.toggle("setup", ctx.view.combatants.length < 2);
  drawHeader(ctx.view, ctx.names, ctx.table);
  drawOrder(ctx.view, ctx.table);
  drawCards();
  drawSecrets();
  drawChoices(ctx);
}

let refreshing = null;
let again = false;
/** Take a newer view (a command's answer or the feed's), then the choices and the log. */
async function refresh(view) {
  if (view && (!ctx.view || view.version >= ctx.view.version)) {
    ctx.view = view;
    ctx.names = new Map(view.combatants.map((c) => [c.id, c.name]));
  }
  if (refreshing) { again = true; return refreshing; }
  refreshing = (async () => {
    do {
      again = false;
      try {
        const [choices] = await Promise.all([ctx.client.choices(), loadParty()]);
        ctx.choices = choices;
        if (choices.version > ctx.view.version) {
          ctx.view = await ctx.client.view();
          ctx.names = new Map(ctx.view.combatants.map((c) => [c.id, c.name]));
        }
        draw();
        await drawLog(ctx);
      } catch (e) {
        ctx.say(e.message, true);
      }
    } while (again);
    refreshing = null;
  })();
  return refreshing;
}

async function setupAdd() {
  $("add-title").closest("section").hidden = false;
  const { stats_schema: schema } = ctx.states || await describeRuleset(ctx.view.ruleset);
  const keys = keyStats(ctx.table, schema);
  const example = structuredClone(ctx.table.example || {});
  const box = $("add-stats");
  box.replaceChildren();
  for (const k of keys) {
    const prop = schema.properties[k];
    const id = `stat-${k}`;
    const numeric = prop.type !== "string";
    const input = el("input", { id, required: true, type: numeric ? "number" : "text", dataset: { stat: k, kind: numeric ? "number" : "string" } });
    if (example[k] !== undefined) input.value = example[k];
    const label = el("label", { for: id, title: prop.description || "" }, prop.title && prop.title.toLowerCase() !== k ? `${prop.title} (${k})` : k.toUpperCase() === k ? k : words(k));
    box.append(el("div.field", {}, label, input));
    delete example[k];
  }
  $("add-json").value = JSON.stringify(example, null, 2);
  $("add-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const status = $("add-status");
    let stats;
    try {
      stats = $("add-json").value.trim() ? JSON.parse($("add-json").value) : {};
    } catch (err) {
      status.textContent = `The JSON is not valid: ${err.message}`;
      status.className = "status error";
      return;
    }
    for (const input of box.querySelectorAll("[data-stat]")) {
      if (input.value !== "") stats[input.dataset.stat] = input.dataset.kind === "number" ? Number(input.value) : input.value;
    }
    try {
      const answer = await ctx.client.addCombatant({ name: $("add-name").value.trim(), side: $("add-side").value.trim(), stats });
      status.textContent = `${answer.combatant.name} joins the fight.`;
      status.className = "status ok";
      $("add-name").value = "";
      await refresh(answer.encounter);
    } catch (err) {
      status.textContent = `${err.message}${err.field ? ` (${err.field})` : ""}`;
      status.className = "status error";
    }
  });
}

async function start() {
  setupDice();
  const token = tokenFor(eid);
  if (!token) {
    $("fatal").hidden = false;
    $("fatal").textContent = "This browser has no token for this fight: open the link the GM gave you (…#token=…).";
    return;
  }
  ctx.client = new Client(eid, token);
  // the view, the choices and the event records at once (the records are for the GM's void)
  const records = loadEvents(ctx.client).catch(() => null);
  const choices = ctx.client.choices().catch(() => null);
  const log = ctx.client.log().catch(() => null);
  try {
    ctx.view = await ctx.client.view();
  } catch (e) {
    $("fatal").hidden = false;
    $("fatal").textContent = e.status === 404 ? "No such fight, or this token is not one of its." : e.message;
    return;
  }
  ctx.names = new Map(ctx.view.combatants.map((c) => [c.id, c.name]));
  const states = describeRuleset(ctx.view.ruleset).catch(() => null);
  ctx.choices = (await choices) || await ctx.client.choices();
  ctx.role = ctx.choices.role;
  ctx.mine = new Set(ctx.choices.combatants || []);
  document.body.classList.add(`role-${ctx.role}`, `book-${ctx.view.ruleset}`);
  $("role").textContent = ctx.role === "gm" ? "GM" : `Player: ${[...ctx.mine].map((id) => ctx.names.get(id)).join(", ")}`;
  ctx.states = await states;
  ctx.table = ctx.states?.table || plainTable(ctx.view.ruleset);
  await loadParty();
  if (ctx.table.languages.includes("es")) {  // the book's log reads in Spanish too
    $("lang-wrap").hidden = false;
    $("lang-es").addEventListener("change", () => {
      ctx.client.lang = $("lang-es").checked ? "es" : null;
      drawCards();  // the health states' words
      drawLog(ctx).catch((e) => ctx.say(e.message, true));
    });
  }
  if (ctx.role === "gm") await records;
  draw();
  await drawLog(ctx, log);
  // for the tests: when the screen was whole, by the browser's clock since navigation
  document.body.dataset.readyAt = String(Math.round(performance.now()));
  document.body.dataset.ready = "true";
  if (ctx.role === "gm") await setupAdd();
  ctx.client.follow({
    after: ctx.view.version,
    onEvent: keepEvent,
    onView: (view) => {
      // another's move: what this screen last did is no longer the news
      if (view.version > (ctx.own ?? 0) && !$("choices-status").classList.contains("error")) ctx.say("");
      refresh(view);
    },
    onState: (state) => {
      const feed = $("feed");
      feed.textContent = state === "live" ? "● live" : state === "closed" ? "feed closed" : "reconnecting…";
      feed.className = `tag feed ${state}`;
    },
  });
}

start();
