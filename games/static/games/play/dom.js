// Building the page's DOM without innerHTML: every text from the server goes in as text.

/**
 * h("button", {class: "x", onclick: fn, "aria-label": "..."}, "text", child, ...)
 * Attributes: `class`, `text`, `on<event>` (listeners), booleans (`hidden`, `disabled`),
 * `dataset` (an object), anything else as an attribute. Children: strings, nodes, arrays,
 * null/false (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    else if (name === "text") el.textContent = value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

export function $$(selector, root = document) {
  return Array.from(root.querySelectorAll(selector));
}

/** Users who asked for less motion get none. */
export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Replay a one-shot CSS animation class on `el`. */
export function flash(el, className) {
  if (!el || reducedMotion()) return;
  el.classList.remove(className);
  void el.offsetWidth; // restart the animation
  el.classList.add(className);
  el.addEventListener("animationend", () => el.classList.remove(className), { once: true });
}
