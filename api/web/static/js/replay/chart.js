// Each combatant's hits (Current Health, PV) over the fight, drawn as an inline SVG from
// the events: CombatantAdded's hits, every hits_after, and each correction's changes.

const NS = "http://www.w3.org/2000/svg";
// readable on the dark panel, told apart by dash too
export const COLOURS = ["#7cc4ff", "#ffcf5a", "#7bd88f", "#ff8f8f", "#d0a8ff", "#ffab6b", "#5fe0d0", "#f5a0d8"];
const DASHES = ["", "7 4", "2 4", "10 4 2 4"];

/** Series per combatant: [{id, name, points: [[position, hits], …]}], a point wherever the
 *  hits change (a step line), starting where he was added. */
export function hitSeries(events) {
  const series = new Map();
  const set = (id, position, value) => {
    const s = series.get(id);
    if (!s || typeof value !== "number") return;
    const last = s.points[s.points.length - 1];
    if (last && last[0] === position) last[1] = value;
    else if (!last || last[1] !== value) s.points.push([position, value]);
  };
  for (const e of events) {
    const d = e.data || {};
    if (e.type === "CombatantAdded") {
      // his hits withheld from this reader (docs/visibility.md): no line for him
      if (typeof d.hits !== "number") continue;
      series.set(d.combatant, { id: d.combatant, name: d.name, max: d.max_hits, points: [[e.position, d.hits]] });
    } else if (Array.isArray(d.changes)) {
      for (const ch of d.changes) {
        const p = ch.path || [];
        if (p.length === 3 && p[0] === "combatants" && p[2] === "hits") set(p[1], e.position, ch.after);
      }
    } else if (d.combatant && typeof d.hits_after === "number") {
      set(d.combatant, e.position, d.hits_after);
    }
  }
  return [...series.values()];
}

function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

function ticks(lo, hi, want) {
  const span = Math.max(1, hi - lo);
  const raw = span / want;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || mag * 10;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(Math.round(v));
  return out;
}

/** Draw into `box`; `onPick(position)` when a point of the plot is clicked. Returns an
 *  object whose `mark(position)` moves the cursor line. */
export function drawChart(box, legend, { series, last, measure, onPick, rounds = [] }) {
  const width = Math.max(300, box.clientWidth || 600);
  const height = width < 500 ? 220 : 260;
  const m = { left: 46, right: 14, top: 12, bottom: 42 };
  const w = width - m.left - m.right;
  const h = height - m.top - m.bottom;
  const values = series.flatMap((s) => s.points.map((p) => p[1]).concat(s.max ?? []));
  const lo = Math.min(0, ...values);
  const hi = Math.max(1, ...values);
  const x = (pos) => m.left + (last <= 1 ? 0 : ((pos - 1) / (last - 1)) * w);
  const y = (v) => m.top + h - ((v - lo) / (hi - lo || 1)) * h;

  const svg = el("svg", {
    viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": `${measure} of each combatant from version 1 to ${last}`,
  });
  svg.append(el("title", {}, `${measure} of each combatant over the fight`));
  svg.append(el("desc", {}, series.map((s) => {
    const vs = s.points.map((p) => p[1]);
    return `${s.name}: ${vs[0]} at first, ${vs[vs.length - 1]} at the end, lowest ${Math.min(...vs)}.`;
  }).join(" ")));
  const axes = el("g", { class: "axes" });
  for (const v of ticks(lo, hi, 5)) {
    axes.append(el("line", { x1: m.left, x2: m.left + w, y1: y(v), y2: y(v), class: v === 0 ? "zero" : "grid" }));
    axes.append(el("text", { x: m.left - 6, y: y(v) + 4, "text-anchor": "end" }, String(v)));
  }
  for (const v of ticks(1, last, width < 500 ? 4 : 8)) {
    if (v < 1) continue;
    axes.append(el("line", { x1: x(v), x2: x(v), y1: m.top + h, y2: m.top + h + 5, class: "tick" }));
    axes.append(el("text", { x: x(v), y: m.top + h + 18, "text-anchor": "middle" }, String(v)));
  }
  // where each new round starts (after a RoundEnded): a faint line, labelled where there is room
  let lastLabel = -Infinity;
  for (const { position, round } of rounds) {
    if (position >= last) continue;
    axes.append(el("line", { x1: x(position), x2: x(position), y1: m.top, y2: m.top + h, class: "round" }));
    if (x(position) - lastLabel > 64) {
      axes.append(el("text", { x: x(position) + 3, y: m.top + h - 5, class: "round-label" }, `round ${round}`));
      lastLabel = x(position);
    }
  }
  axes.append(el("line", { x1: m.left, x2: m.left + w, y1: m.top + h, y2: m.top + h, class: "axis" }));
  axes.append(el("line", { x1: m.left, x2: m.left, y1: m.top, y2: m.top + h, class: "axis" }));
  axes.append(el("text", { x: m.left + w / 2, y: height - 6, "text-anchor": "middle", class: "label" }, "Version (event)"));
  axes.append(el("text", {
    x: 16, y: m.top + h / 2, "text-anchor": "middle", class: "label",
    transform: `rotate(-90 16 ${m.top + h / 2})`,
  }, measure));
  svg.append(axes);

  legend.replaceChildren();
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const dash = DASHES[Math.floor(i / 2) % DASHES.length];
    let d = "";
    s.points.forEach(([pos, v], k) => {
      d += k === 0 ? `M${x(pos)},${y(v)}` : `H${x(pos)}V${y(v)}`;
    });
    d += `H${x(last)}`;
    const path = el("path", { d, stroke: colour, "stroke-dasharray": dash, class: "series" });
    path.append(el("title", {}, s.name));
    svg.append(path);
    const item = document.createElement("li");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.borderTopColor = colour;
    sw.style.borderTopStyle = dash ? "dashed" : "solid";
    item.append(sw, document.createTextNode(s.name));
    item.dataset.combatant = s.id;
    item.dataset.final = String(s.points[s.points.length - 1][1]);
    legend.append(item);
  });

  const cursor = el("line", { y1: m.top, y2: m.top + h, class: "cursor" });
  svg.append(cursor);
  const hit = el("rect", { x: m.left, y: m.top, width: w, height: h, fill: "transparent", class: "pick" });
  hit.addEventListener("click", (ev) => {
    const r = svg.getBoundingClientRect();
    const px = ((ev.clientX - r.left) / r.width) * width;
    const pos = Math.round(1 + ((px - m.left) / (w || 1)) * (last - 1));
    onPick(Math.min(last, Math.max(1, pos)));
  });
  svg.append(hit);
  box.replaceChildren(svg);
  return {
    mark(position) {
      cursor.setAttribute("x1", x(position));
      cursor.setAttribute("x2", x(position));
    },
  };
}
