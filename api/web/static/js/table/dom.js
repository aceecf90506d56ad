// Small DOM helpers for the table screen.

/** el("button.primary", {type: "button", onclick}, "text", child…): an element. */
export function el(spec, props = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const node = document.createElement(tag || "div");
  if (classes.length) node.className = classes.join(" ");
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k in node && k !== "list" && k !== "for") node[k] = v;
    else node.setAttribute(k === "for" ? "for" : k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

export const $ = (id) => document.getElementById(id);

let uid = 0;
export const nextId = (prefix) => `${prefix}-${++uid}`;

/** Words from a snake_case name: "fumble_defense" → "fumble defense". */
export const words = (name) => String(name).replaceAll("_", " ");
