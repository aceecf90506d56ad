// The home page: start a fight (any rule book, its options), list an account's fights, or
// open one by its link.
import {
  Client, accountKey, createEncounter, describeRuleset, forgetAccountKey, keepAccountKey,
  keepToken, listFights, openAccount, readAccount, tokenFor,
} from "./api.js";

const $ = (id) => document.getElementById(id);

/** Inputs for a rule book's options, from its options JSON Schema (enums, booleans, numbers). */
async function showOptions() {
  const { options_schema: schema } = await describeRuleset($("ruleset").value);
  const box = $("option-fields");
  box.replaceChildren();
  const props = schema?.properties || {};
  $("options").hidden = Object.keys(props).length === 0;
  for (const [name, prop] of Object.entries(props)) {
    const spec = prop.enum ? prop : (prop.anyOf || prop.allOf || []).find((p) => p.enum) || prop;
    const id = `opt-${name}`;
    const wrap = document.createElement("div");
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = prop.title || name;
    if (prop.description) label.title = prop.description;
    let input;
    if (spec.enum) {
      input = document.createElement("select");
      for (const value of spec.enum) input.append(new Option(String(value), JSON.stringify(value)));
      if (prop.default !== undefined) input.value = JSON.stringify(prop.default);
    } else if (prop.type === "boolean") {
      input = document.createElement("select");
      input.append(new Option("yes", "true"), new Option("no", "false"));
      input.value = String(prop.default ?? false);
    } else {
      input = document.createElement("input");
      input.type = prop.type === "integer" || prop.type === "number" ? "number" : "text";
      if (prop.default !== undefined && prop.default !== null) input.value = prop.default;
    }
    input.id = id;
    input.dataset.option = name;
    input.dataset.kind = spec.enum || prop.type === "boolean" ? "json" : prop.type || "string";
    wrap.append(label, input);
    box.append(wrap);
  }
}

function chosenOptions() {
  const options = {};
  for (const input of document.querySelectorAll("[data-option]")) {
    if (input.value === "") continue;
    const kind = input.dataset.kind;
    options[input.dataset.option] =
      kind === "json" ? JSON.parse(input.value)
        : kind === "integer" || kind === "number" ? Number(input.value) : input.value;
  }
  return options;
}

$("ruleset").addEventListener("change", showOptions);
$("create").addEventListener("submit", async (event) => {
  event.preventDefault();
  const status = $("create-status");
  status.textContent = "Starting…";
  status.className = "";
  try {
    const created = await createEncounter({
      name: $("name").value.trim(),
      ruleset: $("ruleset").value,
      dice_source: $("dice").value,
      options: chosenOptions(),
    }, accountKey());
    if (created.gm_token) keepToken(created.id, created.gm_token);
    location.href = `/e/${created.id}`;
  } catch (e) {
    status.textContent = e.message;
    status.className = "error";
  }
});
$("open").addEventListener("submit", (event) => {
  event.preventDefault();
  const url = new URL($("link").value.trim(), location.origin);
  if (url.origin !== location.origin || !url.pathname.startsWith("/e/")) {
    $("link").setCustomValidity("A fight's link looks like /e/<id>#token=…");
    $("link").reportValidity();
    return;
  }
  location.href = url.pathname + url.hash;
});
$("link").addEventListener("input", () => $("link").setCustomValidity(""));

async function listKnown() {
  const known = Object.keys(localStorage).filter((k) => k.startsWith("fraylog:token:"));
  if (!known.length) return;
  const list = $("known");
  list.replaceChildren();
  for (const key of known) {
    const eid = key.slice("fraylog:token:".length);
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = `/e/${eid}`;
    link.textContent = eid;
    item.append(link);
    list.append(item);
    new Client(eid, localStorage.getItem(key)).view()
      .then((v) => { link.textContent = `${v.name} (${v.ruleset}, round ${v.round ?? 1})`; })
      .catch(() => { item.remove(); localStorage.removeItem(key); });
  }
}

/** Every rule book this server plays (GET /rulesets): those the page does not list yet
 *  (one registered beside fraylog's own) are added to the choice, none taken away; the
 *  account's filter offers them all. */
async function listBooks() {
  const select = $("ruleset");
  const { rulesets } = await fetch("/rulesets").then((r) => r.json());
  const listed = new Set([...select.options].map((o) => o.value));
  for (const { name, title } of rulesets) {
    if (!listed.has(name)) select.append(new Option(title, name));
    $("filter-ruleset").append(new Option(title, name));
    TITLES[name] = title;
  }
}

// -- the account: its key kept in this browser, its fights listed ---------------------------

const STATUS = { active: "going on", ended: "ended" };
const TITLES = {};  // rule books' titles by name, from GET /rulesets
let nextPage = null;

function when(iso) {
  return iso ? new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" }) : "";
}

function fightItem(key, fight) {
  const item = document.createElement("li");
  const link = document.createElement("a");
  link.href = `/e/${fight.id}`;
  link.textContent = fight.name;
  // the account key is the GM's token on its fights: kept for the page unless one is already
  link.addEventListener("click", () => { if (!tokenFor(fight.id)) keepToken(fight.id, key); });
  const detail = document.createElement("span");
  detail.className = "when";
  const round = fight.round ? `, round ${fight.round}` : "";
  const down = fight.combatants_down ? `, ${fight.combatants_down} down` : "";
  detail.textContent = `${TITLES[fight.ruleset] || fight.ruleset}, ${STATUS[fight.status] || fight.status}${round}${down}`
    + ` · last played ${when(fight.last_activity)}`;
  item.append(link, detail);
  return item;
}

function filters() {
  return { name: $("filter-name").value.trim(), status: $("filter-status").value,
    ruleset: $("filter-ruleset").value };
}

async function showFights(more = false) {
  const key = accountKey();
  const page = await listFights(key, { after: more ? nextPage : null, ...filters() });
  const list = $("fights");
  if (!more) list.replaceChildren();
  for (const fight of page.encounters) list.append(fightItem(key, fight));
  if (!list.children.length) {
    const none = document.createElement("li");
    none.className = "muted";
    none.textContent = Object.values(filters()).some(Boolean)
      ? "No fight matches." : "No fight yet: start one above.";
    list.append(none);
  }
  nextPage = page.next;
  $("more").hidden = !nextPage;
  const behind = page.read_models?.behind || 0;
  $("lag").hidden = behind === 0;
  $("lag").textContent = `The list is catching up: ${behind} recent event${behind === 1 ? "" : "s"}`
    + " not counted yet.";
}

async function showAccount(newKey = null) {
  const key = accountKey();
  $("no-account").hidden = Boolean(key);
  $("account").hidden = !key;
  if (!key) return;
  const account = await readAccount(key);
  $("account-name").textContent = account.name;
  $("account-count").textContent = `${account.encounters} fight${account.encounters === 1 ? "" : "s"}`;
  $("new-key").hidden = !newKey;
  $("key-text").textContent = newKey || "";
  await showFights();
  if (newKey) $("new-key").scrollIntoView({ block: "center" });  // the one time it is shown
}

function refused(e) {
  $("account-status").textContent = e.message;
  $("account-status").className = "error";
}

$("open-account").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const opened = await openAccount($("account-name-input").value.trim());
    keepAccountKey(opened.key);
    await showAccount(opened.key);
  } catch (e) { refused(e); }
});
$("use-key").addEventListener("submit", async (event) => {
  event.preventDefault();
  const key = $("key-input").value.trim();
  try {
    await readAccount(key);
    keepAccountKey(key);
    $("key-input").value = "";
    await showAccount();
  } catch (e) { refused(e); }
});
$("forget-key").addEventListener("click", () => { forgetAccountKey(); showAccount(); });
$("copy-key").addEventListener("click", () => navigator.clipboard?.writeText($("key-text").textContent));
$("more").addEventListener("click", () => showFights(true));
let typing = null;
$("filter").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(showFights, 250); });
$("filter").addEventListener("submit", (event) => { event.preventDefault(); showFights(); });

showOptions();
listKnown();
listBooks()
  .catch(() => {})  // the page's own three still offered
  .then(() => showAccount())
  .catch((e) => {
    if (e.status === 401) { forgetAccountKey(); showAccount(); } else refused(e);
  });
