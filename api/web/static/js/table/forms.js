// Forms drawn from JSON Schema fields (a choice's `fields`, an override's), the add-a-
// combatant form from the rule book's stats_schema, and a player's link with its QR code.
import { el, nextId, words } from "./dom.js";

/** Inputs for `fields` ({name: JSON Schema}); `names` maps combatant ids to names;
 *  `labels` ({field: {value: words}}) names an enum's values (or a boolean's true and false)
 *  where their own words read badly, and `label` ({field: words}) a field.
 *  Returns {node, values()} where values() holds only what was filled in. */
export function fieldsForm(fields, names, initial = {}, labels = {}, label = {}) {
  const node = el("div.fields");
  const readers = [];
  for (const [name, schema] of Object.entries(fields || {})) {
    const id = nextId(`f-${name}`);
    const caption = el("label", { for: id }, label[name] || words(name));
    if (schema.description) caption.title = schema.description;
    let input;
    let read;
    const enumOf = schema.enum || schema.items?.enum;
    if (schema.type === "array" && enumOf) {
      input = el("select", { id, multiple: true, size: Math.min(enumOf.length, 4) },
        enumOf.map((v) => new Option(names.get(v) || words(v), v)));
      for (const o of input.options) o.selected = (initial[name] || []).includes(o.value);
      read = () => { const v = [...input.selectedOptions].map((o) => o.value); return v.length ? v : undefined; };
    } else if (enumOf) {
      input = el("select", { id }, new Option("—", ""), enumOf.map((v) => new Option(labels[name]?.[v] || names.get(v) || words(v), v)));
      if (initial[name] !== undefined) input.value = initial[name];
      read = () => (input.value === "" ? undefined : input.value);
    } else if (schema.type === "boolean") {
      input = el("select", { id }, new Option("—", ""), new Option(labels[name]?.true || "yes", "true"),
        new Option(labels[name]?.false || "no", "false"));
      if (initial[name] !== undefined) input.value = String(initial[name]);
      read = () => (input.value === "" ? undefined : input.value === "true");
    } else if (schema.type === "integer" || schema.type === "number") {
      input = el("input", { id, type: "number", inputmode: "numeric", min: schema.minimum, max: schema.maximum });
      if (initial[name] !== undefined) input.value = initial[name];
      read = () => (input.value === "" ? undefined : Number(input.value));
    } else if (schema.type === "object" || schema.type === "array") {
      input = el("input", { id, placeholder: schema.type === "object" ? '{"name": 1}' : "[…]", spellcheck: false });
      if (initial[name] !== undefined) input.value = JSON.stringify(initial[name]);
      read = () => (input.value.trim() === "" ? undefined : JSON.parse(input.value));
    } else {
      input = el("input", { id, maxlength: schema.maxLength });
      if (initial[name] !== undefined) input.value = initial[name];
      read = () => (input.value === "" ? undefined : input.value);
    }
    input.dataset.field = name;
    readers.push([name, read]);
    node.append(el("div.field", {}, caption, input));
  }
  return {
    node,
    values() {
      const out = {};
      for (const [name, read] of readers) {
        const v = read();
        if (v !== undefined) out[name] = v;
      }
      return out;
    },
  };
}

/** The stats shown as their own inputs: the book's key stats (its presentation's
 *  `key_stats`), else the schema's required ones; numbers and strings only. */
export function keyStats(table, schema) {
  const required = table?.key_stats ?? schema?.required ?? [];
  return required.filter((k) => ["integer", "number", "string"].includes(schema.properties?.[k]?.type)
    || (schema.properties?.[k]?.anyOf || []).some((s) => s.type === "integer"));
}

/** A player's link: the URL with his token in the fragment, and its QR code. */
export async function playerLink(eid, token, label) {
  const url = `${location.origin}/e/${eid}#token=${encodeURIComponent(token)}`;
  const { qrcode } = await import("/web/vendor/qrcode/qrcode.mjs"); // only when a link is made
  const qr = qrcode(0, "M");
  qr.addData(url);
  qr.make();
  const img = el("img.qr", { src: qr.createDataURL(4, 2), alt: `QR code of ${label}'s link`, width: 180, height: 180 });
  const input = el("input.link", { value: url, readOnly: true, "aria-label": `${label}'s link` });
  const copy = el("button", {
    type: "button",
    onclick: async () => {
      input.select();
      try { await navigator.clipboard.writeText(url); copy.textContent = "Copied"; } catch { copy.textContent = "Select and copy"; }
    },
  }, "Copy");
  return el("div.player-link", {}, el("p", {}, `${label}’s link (open it on the player's device):`),
    el("div.link-row", {}, input, copy), img);
}
