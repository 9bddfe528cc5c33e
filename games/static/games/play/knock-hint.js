// The knock limit by the player's hand (R6: the room's option, from the view's rules) and a
// clear "You can knock now" when the server's legal actions hold a knock (or Big Gin). The
// page decides nothing: the limit is the room's, the deadwood the server's, legality the
// legal actions'.

import { h } from "./dom.js";
import { formatNumber, gettext } from "./i18n.js";

/** The room's knock limit from the view (the hand's rules, else the match's); null if none. */
export function knockLimit(view) {
  const rules = (view.hand && view.hand.rules) || view.match.rules || {};
  return Number.isInteger(rules.knock_limit) ? rules.knock_limit : null;
}

/** The limit's chip and, when going out is legal, the badge; `legal`: the legal actions. */
export function knockHint(view, legal) {
  const limit = knockLimit(view);
  const knock = legal.some((action) => action.kind === "knock");
  const bigGin = legal.some((action) => action.kind === "big_gin");
  return [
    limit === null ? null : h("span", {
      class: "knock-limit", id: "knock-limit", dataset: { limit },
      text: limit === 0 ? gettext("Only Gin goes out (knock limit 0)")
        : gettext("Knock at %(limit)s or less", { limit: formatNumber(limit) }),
    }),
    knock || bigGin ? h("strong", {
      class: "can-knock", id: "can-knock", role: "status",
      text: bigGin && !knock ? gettext("You can go Big Gin now") : gettext("You can knock now"),
    }) : null,
  ];
}
