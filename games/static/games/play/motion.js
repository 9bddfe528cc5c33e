// Short motion for what just changed at the table (docs/play.md): a drawn card flies from the
// stock or the pile into the hand, a discard flies from the hand (or the opponent's box) to
// the pile, the showdown's melds appear one after the other. CSS animations of transform and
// opacity only, so nothing is laid out again; none at all under "reduce motion".

import { $, $$, flash, reducedMotion } from "./dom.js";

const box = (el) => (el ? el.getBoundingClientRect() : null);

export class Motion {
  constructor() {
    this.before = null;
    this.revealed = new Set();
  }

  /** Where things were, taken before the table re-renders. */
  measure(main) {
    this.before = reducedMotion() ? null : {
      cards: new Map($$("#hand .card", main).map((el) => [el.dataset.card, box(el)])),
      stock: box($("#stock .card", main)),
      discard: box($("#discard .card", main)),
      seats: new Map($$(".player-box", main).map((el) => [Number(el.dataset.seat), box(el)])),
    };
  }

  /** After the render: `previous` and `hand` are the hand views before and now, `events` the
   * fresh ones. */
  play(main, previous, hand, events) {
    const before = this.before;
    this.before = null;
    const showdown = $("#showdown", main);
    if (showdown && !this.revealed.has(showdown.dataset.hand)) {
      this.revealed.add(showdown.dataset.hand);
      // Not flash(): each meld's end would take the class off the others mid-way.
      if (!reducedMotion()) showdown.classList.add("reveal");
    }
    if (!before || !previous || !hand || previous.number !== hand.number) return;
    const oldPile = previous.discard_pile;
    const pile = hand.discard_pile;
    const top = pile[pile.length - 1];
    if (top && (pile.length > oldPile.length || oldPile[oldPile.length - 1] !== top)) {
      const discard = events.find((event) => event.kind === "discard" && event.card === top);
      fly($("#discard-top", main), before.cards.get(top) || (discard && before.seats.get(discard.seat)));
    }
    if (previous.hand && hand.hand) {
      const oldTop = oldPile[oldPile.length - 1];
      for (const card of hand.hand.filter((c) => !previous.hand.includes(c))) {
        fly($(`#hand [data-card="${card}"]`, main), card === oldTop ? before.discard : before.stock);
      }
    }
  }
}

/** `el` moves in from where `from` (a rectangle) was; without one it just arrives. */
function fly(el, from) {
  if (!el) return;
  if (!from) {
    flash(el, "arrive");
    return;
  }
  const to = box(el);
  el.style.setProperty("--from-x", `${from.left + from.width / 2 - (to.left + to.width / 2)}px`);
  el.style.setProperty("--from-y", `${from.top + from.height / 2 - (to.top + to.height / 2)}px`);
  flash(el, "fly");
}
