// The tournament lobby (R14; docs/play.md "Tournaments"): the tournaments the player may
// enter or follow, newest first, filtered as the API filters them (`kind`, `status`), each
// with its kind, entry price, prize pool and guarantee, start, entries and status, and the
// player's own entry marked (or, before they enter, the ticket they hold to it).

import { ApiError, apiList } from "../../games/play/api.js";
import { h } from "../../games/play/dom.js";
import { showProblem } from "../../games/play/notices.js";
import { gettext, pgettext } from "../../games/play/i18n.js";
import {
  entriesText, entryPrice, KINDS, pageAddress, prizePool, startText, STATUSES,
} from "./labels.js";

const ENTRY_STATUSES = {
  registered: gettext("You are registered"),
  in: gettext("You are in"),
  out: gettext("You are out"),
  won: gettext("You won"),
};

function select(id, label, options, value, onchange) {
  return [
    h("label", { for: id, text: label }),
    h("select", { id, onchange: (event) => onchange(event.target.value) },
      options.map(([optionValue, text]) => h("option", { value: optionValue, text, selected: optionValue === value }))),
  ];
}

export class TournamentLobby {
  constructor(main) {
    this.main = main;
    this.kind = "";
    this.status = "";
    this.list = h("div", { class: "tournament-list", id: "tournament-list", "aria-live": "polite" });
  }

  async start() {
    const filters = h("div", { class: "tournament-filters", role: "group", "aria-label": gettext("Filters") },
      select("filter-kind", pgettext("a tournament's kind", "Kind"),
        [["", pgettext("any kind", "All")], ...Object.entries(KINDS)], this.kind,
        (value) => { this.kind = value; this.load(); }),
      select("filter-status", pgettext("a tournament's status", "Status"),
        [["", pgettext("any status", "All")], ...Object.entries(STATUSES)], this.status,
        (value) => { this.status = value; this.load(); }));
    this.main.replaceChildren(
      h("section", { class: "tournament-lobby", "aria-labelledby": "tournaments-title" },
        h("div", { class: "section-head" },
          h("h2", { id: "tournaments-title", text: gettext("Tournaments") }),
          h("button", { type: "button", class: "link-button", id: "tournaments-refresh", onclick: () => this.load() }, gettext("Refresh"))),
        filters,
        this.list));
    await this.load();
  }

  async load() {
    this.main.setAttribute("aria-busy", "true");
    const query = new URLSearchParams();
    if (this.kind) query.set("kind", this.kind);
    if (this.status) query.set("status", this.status);
    let tournaments;
    let mine;
    try {
      [tournaments, mine] = await Promise.all([apiList(`tournaments?${query}`), apiList("me/tournaments")]);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 401) return; // the session is over: the page says so
      showProblem(error.problem);
      this.list.replaceChildren(h("p", { class: "notice", text: gettext("The tournaments could not be loaded.") }));
      this.main.setAttribute("aria-busy", "false");
      return;
    }
    const entries = new Map(mine.map((entry) => [entry.tournament_id, entry]));
    this.list.replaceChildren(tournaments.length
      ? h("ul", { class: "plain-list tournament-cards" }, tournaments.map((tournament) => this.card(tournament, entries.get(tournament.id))))
      : h("p", { class: "notice", id: "no-tournaments", text: gettext("No tournament matches these filters.") }));
    this.main.setAttribute("aria-busy", "false");
  }

  card(tournament, entry) {
    const titleId = `tournament-${tournament.id}-title`;
    const facts = [
      [pgettext("a tournament's kind", "Kind"), KINDS[tournament.kind] || tournament.kind, "kind"],
      [gettext("Entry"), entryPrice(tournament), "price"],
      [gettext("Prize pool"), prizePool(tournament), "prize-pool"],
      [gettext("Starts"), startText(tournament), "start"],
      [gettext("Entries"), entriesText(tournament), "entries"],
      [pgettext("a tournament's status", "Status"), STATUSES[tournament.status] || tournament.status, "status"],
    ];
    const own = entry && ENTRY_STATUSES[entry.status];
    const ticket = !own && tournament.my_ticket && tournament.my_ticket.covers_entry
      && ["announced", "registering"].includes(tournament.status);
    return h("li", { class: "tournament-card", dataset: { tournamentId: String(tournament.id), status: tournament.status }, "aria-labelledby": titleId },
      h("div", { class: "section-head" },
        h("h3", { id: titleId, text: tournament.name }),
        own ? h("span", { class: "entry-badge", dataset: { entryStatus: entry.status }, text: own }) : null,
        ticket ? h("span", { class: "entry-badge ticket-badge", text: gettext("You hold a ticket") }) : null),
      h("dl", { class: "tournament-facts" },
        facts.map(([label, value, key]) => h("div", { dataset: { fact: key } }, h("dt", { text: label }), h("dd", { text: value })))),
      h("a", {
        class: "button primary",
        href: pageAddress(`/play/tournaments/${tournament.id}`),
        "aria-label": gettext("Open %(name)s", { name: tournament.name }),
      }, gettext("Open")));
  }

  stop() {}
}
