// The player's own order of their hand (docs/play.md "Your hand"): by default the hand shows
// the server's arrangement (melds, deadwood, R2); once the player drags a card (Pointer
// Events: mouse, pen, touch), moves it with Shift+←/→ or sorts, it shows their order, kept in
// localStorage per match and hand (a reload keeps it; a drawn card goes to the right end, a
// card gone drops out). Display only: what is legal is the server's.

import { cardName, compareCards, parseCard } from "./cards.js";
import { $, $$, h } from "./dom.js";
import { gettext } from "./i18n.js";

const KEY = "gin.play.handOrder";
const KEPT = 20; // hands remembered, the newest last
const DRAG_PX = 6; // a press that moves less is a click (select, discard)
const memory = {}; // when localStorage refuses (a private window)

function readAll() {
  try {
    const stored = JSON.parse(window.localStorage.getItem(KEY) || "{}");
    return stored && typeof stored === "object" ? stored : {};
  } catch {
    return { ...memory };
  }
}

function writeAll(all) {
  Object.assign(memory, all);
  try {
    window.localStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    // kept for the page's life only
  }
}

const byRank = (a, b) => parseCard(a).rank - parseCard(b).rank || compareCards(a, b);

/** Say `text` to screen readers (the page's polite live region outside the table). */
export function announce(text) {
  const region = $("#announcer");
  if (!region) return;
  region.textContent = "";
  window.setTimeout(() => { region.textContent = text; }, 50);
}

export class HandOrder {
  /** `changed()` re-renders the table once the order moved. */
  constructor(matchId, changed) {
    this.matchId = matchId;
    this.changed = changed;
    this.drag = null;
    this.swallowClick = false;
  }

  key(hand) {
    return `${this.matchId}/${hand.number}`;
  }

  /** The player's order of `hand.hand` (stored cards still held, then new ones at the right
   * end), or null while they keep the server's arrangement. */
  cards(hand) {
    const all = readAll();
    const stored = all[this.key(hand)];
    if (!Array.isArray(stored)) return null;
    const kept = stored.filter((card) => hand.hand.includes(card));
    const drawn = hand.hand.filter((card) => !kept.includes(card));
    if (!drawn.length) return kept;
    // Remembered at once: the next card drawn goes after this one, whatever the server's
    // order of the two.
    all[this.key(hand)] = [...kept, ...drawn];
    writeAll(all);
    return all[this.key(hand)];
  }

  save(hand, cards) {
    const all = readAll();
    const key = this.key(hand);
    delete all[key];
    if (cards) all[key] = cards;
    const keys = Object.keys(all);
    for (const old of keys.slice(0, Math.max(0, keys.length - KEPT))) delete all[old];
    writeAll(all);
    this.changed();
  }

  /** Move `card` to `index` of `shown` (the order on screen) and say where it went. */
  place(hand, shown, card, index) {
    const cards = shown.filter((c) => c !== card);
    const at = Math.max(0, Math.min(index, cards.length));
    cards.splice(at, 0, card);
    this.save(hand, cards);
    announce(gettext("%(card)s moved to position %(position)s of %(count)s",
      { card: cardName(card), position: at + 1, count: cards.length }));
  }

  /** Shift+←/→ (or ↑/↓) on a card: move it one place; true when the key was used. */
  keyMove(event, hand) {
    const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[event.key];
    if (!event.shiftKey || !step) return false;
    event.preventDefault();
    const shown = shownCards();
    const card = event.target.closest(".card").dataset.card;
    this.place(hand, shown, card, shown.indexOf(card) + step);
    return true;
  }

  /** The buttons above the hand: sort by suit, by rank, back to the server's melds. */
  tools(hand) {
    const sort = (compare) => () => {
      this.save(hand, [...hand.hand].sort(compare));
      announce(gettext("Your hand is sorted"));
    };
    return h("div", { class: "hand-tools", role: "group", "aria-label": gettext("Arrange your hand") },
      h("button", { type: "button", class: "link-button", id: "sort-suit", onclick: sort(compareCards) }, gettext("Sort by suit")),
      h("button", { type: "button", class: "link-button", id: "sort-rank", onclick: sort(byRank) }, gettext("Sort by rank")),
      this.cards(hand) ? h("button", {
        type: "button", class: "link-button", id: "group-melds",
        onclick: () => { this.save(hand, null); announce(gettext("Your hand shows its melds")); },
      }, gettext("Group melds")) : null);
  }

  /** The player's order as one row; `card(text, role)` builds each card as the table does,
   * marked as the server arranged it (melded, deadwood, best discard). */
  row(hand, cards, card) {
    const role = (text) => (text === hand.best_discard ? "best-discard"
      : hand.deadwood_cards.includes(text) ? "deadwood" : "melded");
    return h("div", { class: "hand-row", role: "group", "aria-label": gettext("Your order") },
      cards.map((text) => card(text, role(text))));
  }

  /** Drag to rearrange on the hand's container (`el`, #hand). */
  attach(el, hand) {
    el.addEventListener("pointerdown", (event) => this.down(event, hand));
    el.addEventListener("pointermove", (event) => this.move(event));
    el.addEventListener("pointerup", (event) => this.up(event, hand));
    el.addEventListener("pointercancel", () => this.end());
    // The click that ends a drag is no discard.
    el.addEventListener("click", (event) => {
      if (!this.swallowClick) return;
      this.swallowClick = false;
      event.stopPropagation();
      event.preventDefault();
    }, true);
    return el;
  }

  down(event, hand) {
    const el = event.target.closest(".card");
    if (!el || event.button !== 0 || !hand.hand.includes(el.dataset.card)) return;
    this.swallowClick = false;
    this.drag = { el, card: el.dataset.card, id: event.pointerId, x: event.clientX, y: event.clientY, on: false, target: null };
  }

  move(event) {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.id) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.on && Math.hypot(dx, dy) < DRAG_PX) return;
    if (!drag.on || !drag.el.isConnected) {
      // A view that arrives mid-drag renders the hand anew: carry on with the new card.
      drag.el = $(`#hand .card[data-card="${drag.card}"]`);
      if (!drag.el) {
        this.end();
        return;
      }
      drag.on = true;
      drag.el.setPointerCapture(drag.id);
      drag.el.classList.add("dragging");
    }
    drag.el.style.setProperty("--drag-x", `${dx}px`);
    drag.el.style.setProperty("--drag-y", `${dy}px`);
    for (const other of $$("#hand .drop-before, #hand .drop-after")) other.classList.remove("drop-before", "drop-after");
    drag.target = dropTarget(drag.card, event.clientX, event.clientY);
    if (drag.target) drag.target.el.classList.add(drag.target.after ? "drop-after" : "drop-before");
  }

  up(event, hand) {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.id) return;
    this.end();
    if (!drag.on) return;
    this.swallowClick = true;
    window.setTimeout(() => { this.swallowClick = false; }, 400);
    if (!drag.target || !drag.target.el.isConnected) drag.target = dropTarget(drag.card, event.clientX, event.clientY);
    if (!drag.target) return;
    const shown = shownCards();
    const card = drag.card;
    const without = shown.filter((c) => c !== card);
    const index = without.indexOf(drag.target.el.dataset.card) + (drag.target.after ? 1 : 0);
    this.place(hand, shown, card, index);
  }

  end() {
    if (this.drag) {
      this.drag.el.classList.remove("dragging");
      this.drag.el.style.removeProperty("--drag-x");
      this.drag.el.style.removeProperty("--drag-y");
    }
    for (const other of $$("#hand .drop-before, #hand .drop-after")) other.classList.remove("drop-before", "drop-after");
    this.drag = null;
  }
}

function shownCards() {
  return $$("#hand .card").map((el) => el.dataset.card);
}

/** The card nearest the pointer (not the dragged one) and which side of it to drop on. */
function dropTarget(card, x, y) {
  let best = null;
  for (const el of $$("#hand .card")) {
    if (el.dataset.card === card) continue;
    const box = el.getBoundingClientRect();
    const cx = box.left + box.width / 2;
    const distance = Math.hypot(x - cx, Math.max(0, Math.abs(y - (box.top + box.height / 2)) - box.height / 2) * 3);
    if (!best || distance < best.distance) best = { el, distance, after: x > cx };
  }
  return best;
}
