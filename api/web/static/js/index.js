// The home page: start a fight (any rule book, its options) or open one by its link.
import { Client, createEncounter, describeRuleset, keepToken } from "./api.js";

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
    });
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
 *  (one registered beside fraylog's own) are added to the choice, none taken away. */
async function listBooks() {
  const select = $("ruleset");
  const { rulesets } = await fetch("/rulesets").then((r) => r.json());
  const listed = new Set([...select.options].map((o) => o.value));
  for (const { name, title } of rulesets) if (!listed.has(name)) select.append(new Option(title, name));
}

showOptions();
listKnown();
listBooks().catch(() => {});  // the page's own three still offered
