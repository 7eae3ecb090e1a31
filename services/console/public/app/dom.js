/**
 * Building the DOM without HTML strings: cards carry text a model chose, so every value goes in
 * as text (textContent, attributes), never as markup.
 */

/**
 * An element: `props` are attributes (`class`, `aria-*`, `data-*`, …), `text` (its text),
 * `on<event>` (listeners) or boolean properties (`disabled`, `checked`, `hidden`); `children` are
 * nodes or strings (added as text).
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'class') node.className = value;
    else if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2), value);
    } else if (value === true) node.setAttribute(key, '');
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Empties `node` and puts `children` in it. */
export function fill(node, ...children) {
  node.replaceChildren(
    ...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false),
  );
  return node;
}

let idCounter = 0;

/** A fresh element id with `prefix`. */
export function freshId(prefix) {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** A value as readable text: strings as they are, anything else as indented JSON. */
export function shown(value) {
  if (value === null || value === undefined) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** "4 min 05 s", "12 s", "expired" for a span of ms. */
export function countdownText(ms) {
  if (ms <= 0) return 'expired';
  const seconds = Math.ceil(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  if (m > 0) return `${m} min ${String(s).padStart(2, '0')} s`;
  return `${s} s`;
}

/** A local time of day for an ISO instant. */
export function timeOf(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleTimeString();
}
