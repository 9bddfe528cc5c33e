// The discard pile's history on demand (docs/play.md): a button by the pile opens a dialog
// listing the view's `discard_pile` (public to everybody at the table), top first, each card
// with who discarded it when an event the page received says so. Nothing else: no card of
// anybody's hand, no stock. The dialog lives outside the table's re-rendered part and follows
// the views while it is open.

import { cardFace, cardName, cardShort } from "./cards.js";
import { h } from "./dom.js";
import { gettext, ngettext, pgettext } from "./i18n.js";

export class DiscardHistory {
  /** `who(seat)`: a seat's name for the player, null for the player's own seat. */
  constructor(who) {
    this.who = who;
    this.by = new Map(); // "hand/card" -> the seat that discarded it
    this.dialog = null;
    this.hand = null;
  }

  /** Events as they arrive: who discarded which card, in which hand. */
  seen(event) {
    if (event.kind === "discard" && event.card) this.by.set(`${event.hand}/${event.card}`, event.seat);
  }

  /** The table's new hand view: the open list follows it. */
  update(hand) {
    this.hand = hand;
    if (this.dialog && this.dialog.open) this.fill();
  }

  /** The button by the pile. */
  button() {
    return h("button", {
      type: "button", class: "link-button pile-history", id: "pile-history", "aria-haspopup": "dialog",
      onclick: () => this.open(),
    }, pgettext("discard pile", "History"));
  }

  open() {
    if (!this.dialog) {
      this.list = h("ol", { class: "plain-list pile-list", id: "pile-list" });
      this.dialog = h("dialog", { id: "pile-dialog", "aria-labelledby": "pile-title" },
        h("h2", { id: "pile-title", text: gettext("The discard pile, top first") }),
        this.count = h("p", { class: "hint", id: "pile-count" }),
        this.list,
        h("button", { type: "button", class: "button", onclick: () => this.dialog.close() }, gettext("Close")));
      document.body.append(this.dialog);
    }
    this.fill();
    this.dialog.showModal();
  }

  fill() {
    const hand = this.hand;
    const pile = hand ? [...hand.discard_pile].reverse() : [];
    this.count.textContent = ngettext("%(count)s card", "%(count)s cards", pile.length);
    this.list.replaceChildren(...pile.map((card) => {
      const key = `${hand.number}/${card}`;
      const seat = this.by.get(key);
      const name = this.by.has(key) ? this.who(seat) : undefined;
      let text = cardName(card);
      if (name === null) text = gettext("%(card)s, your discard", { card: text });
      else if (name) text = gettext("%(card)s, discarded by %(who)s", { card: text, who: name });
      const face = cardFace(card);
      return h("li", { dataset: { card } },
        h("span", { class: ["pile-face", face.red ? "red" : null], "aria-hidden": "true", text: cardShort(card) }),
        h("span", { text }));
    }));
  }

  stop() {
    if (this.dialog) this.dialog.remove();
    this.dialog = null;
  }
}
