// One tournament as its player sees it (R14; docs/play.md "Tournaments"): its facts and
// prizes, registering (with the ticket the player holds to it, `my_ticket`, or for the
// price) and withdrawing (a refusal shows its problem, in the player's language), the bracket live over its watch socket with the player's own path marked,
// "your match is ready" (the player's socket's `tournament.match_ready`, or the entry's
// match read over REST) taking the player to their table with the seat taken, and their
// result and prize at the end.

import { api, ApiError, apiList } from "../../games/play/api.js";
import { h } from "../../games/play/dom.js";
import { showNotice, showProblem } from "../../games/play/notices.js";
import { remember } from "../../games/play/session.js";
import { plainMoney } from "../../games/play/format.js";
import { formatDate, formatNumber, gettext, pgettext } from "../../games/play/i18n.js";
import { BracketSocket, renderBracket, tablesUpdated } from "./bracket.js";
import {
  CANCEL_REASONS, entriesText, entryPrice, entryTotal, formatText, isFree, KINDS, pageAddress,
  placeText, prizePool, prizeText, startText, STATUSES,
} from "./labels.js";

const ENDED = ["finished", "cancelled"];
const OPEN = ["announced", "registering"]; // a ticket can still be entered with

export class TournamentScreen {
  constructor(main, tournamentId) {
    this.main = main;
    this.tournamentId = tournamentId;
    this.tournament = null;
    this.tables = [];
    this.entry = null; // the player's own entry (GET me/tournaments), or null
    // The player's ticket to it (`my_ticket` of GET tournaments/{id}), or null: read over
    // REST only, since the watch socket's frames are the same for every player.
    this.ticket = null;
    this.ready = null; // the match waiting for the player: {match_id, round, table, seat_by}
    this.busy = false;
    this.socket = null;
  }

  async start() {
    this.main.replaceChildren(h("p", { class: "notice", text: gettext("Loading the tournament…") }));
    try {
      // The socket's hello brings the same again; these show the page at once.
      [this.tournament, this.tables] = await Promise.all([
        api(`tournaments/${this.tournamentId}`),
        api(`tournaments/${this.tournamentId}/bracket`),
        this.loadEntry(),
      ]);
      this.ticket = this.tournament.my_ticket || null;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 401) return; // the session is over: the page says so
      this.missing(error.problem);
      return;
    }
    this.render();
    this.socket = new BracketSocket(this.tournamentId, {
      snapshot: ({ tournament, bracket }) => {
        this.tournament = tournament;
        this.tables = bracket;
        this.render();
      },
      changed: (push) => this.changed(push),
      gone: () => this.missing(null),
    });
    this.socket.start();
  }

  stop() {
    if (this.socket) this.socket.stop();
  }

  missing(problem) {
    this.main.replaceChildren(
      h("section", { class: "ended", id: "tournament-missing", "aria-labelledby": "missing-title" },
        h("h2", { id: "missing-title", text: gettext("This tournament is not available") }),
        h("p", {}, h("a", { href: pageAddress("/play/tournaments") }, gettext("All tournaments")))));
    this.main.setAttribute("aria-busy", "false");
    if (problem) showProblem(problem);
  }

  /** The player's entry in this tournament, and the match waiting for them, if any. */
  async loadEntry() {
    const entries = await apiList("me/tournaments");
    this.entry = entries.find((entry) => String(entry.tournament_id) === String(this.tournamentId)) || null;
    if (this.entry && this.entry.match_id && this.entry.status === "in") {
      if (!this.ready || this.ready.match_id !== this.entry.match_id) this.ready = { match_id: this.entry.match_id };
    } else {
      this.ready = null;
    }
  }

  /** The player's ticket to this tournament as it is now (entered with, given back). */
  async loadTicket() {
    const tournament = await api(`tournaments/${this.tournamentId}`);
    this.ticket = tournament.my_ticket || null;
  }

  async refreshTicket() {
    try {
      await this.loadTicket();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }

  async refreshEntry() {
    try {
      const open = this.tournament && OPEN.includes(this.tournament.status);
      await Promise.all([this.loadEntry(), open ? this.loadTicket() : null]);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return;
    }
    this.render();
  }

  /** A push of the watch socket: the tables that changed, and the tournament. */
  changed(push) {
    this.tournament = push.tournament;
    this.tables = tablesUpdated(this.tables, push.tables);
    this.render();
    // The player's own standing may have moved (a result, places paid, the end).
    if (push.changes.some((change) => ["result", "places", "finished", "cancelled", "started", "seated"].includes(change))) {
      this.refreshEntry();
    }
  }

  /** A message on the player's own socket about this tournament. */
  pushed(message) {
    if (String(message.tournament_id) !== String(this.tournamentId)) return;
    if (message.type === "tournament.match_ready") {
      this.ready = { match_id: message.match_id, round: message.round, table: message.table, seat_by: message.seat_by };
      this.render();
      showNotice(gettext("Your match is ready"), gettext("Take your seat now: a player who does not come in time forfeits."), { name: "tournament-ready" });
    } else if (["tournament.eliminated", "tournament.prize_paid"].includes(message.type)) {
      this.refreshEntry();
    }
  }

  // --- Actions ----------------------------------------------------------------------------
  async act(action) {
    if (this.busy) return;
    this.busy = true;
    this.render();
    try {
      await action();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status !== 401) showProblem(error.problem);
    } finally {
      this.busy = false;
      this.render();
    }
  }

  /** Register for the price, or with the player's ticket (`ticket`). */
  register({ ticket = false } = {}) {
    return this.act(async () => {
      try {
        this.entry = await api(`tournaments/${this.tournamentId}/registration`, { method: "POST", body: ticket ? { ticket: true } : {} });
      } finally {
        // Entered with, or refused (used up or expired meanwhile): show it as it is now.
        if (ticket) await this.refreshTicket();
      }
      showNotice(ticket ? gettext("You are registered with your ticket") : gettext("You are registered"), null, { name: "tournament-entry" });
    });
  }

  unregister() {
    return this.act(async () => {
      const entry = await api(`tournaments/${this.tournamentId}/registration`, { method: "DELETE" });
      this.entry = null;
      if (entry.payment === "ticket") {
        await this.refreshTicket();
        showNotice(gettext("You withdrew: your ticket is back"), null, { name: "tournament-entry" });
      } else {
        showNotice(gettext("You withdrew: your entry was refunded"), null, { name: "tournament-entry" });
      }
    });
  }

  /** Take the seat of the match that is ready, then open it at the table page, which comes
   * back here when the game is over. */
  takeSeat() {
    return this.act(async () => {
      const seat = await api(`tournaments/${this.tournamentId}/seat`, { method: "POST" });
      remember({ screen: "table", match: seat.match_id, back: window.location.pathname });
      window.location.assign(pageAddress("/play/"));
    });
  }

  // --- Rendering --------------------------------------------------------------------------
  render() {
    const tournament = this.tournament;
    if (!tournament) return;
    const focused = document.activeElement && document.activeElement.id;
    const parts = [
      h("p", { class: "back-link" }, h("a", { href: pageAddress("/play/tournaments"), id: "all-tournaments" }, gettext("All tournaments"))),
      this.renderHead(tournament),
      this.renderReady(),
      this.renderEntry(tournament),
      h("section", { class: "tournament-part", id: "bracket", "aria-labelledby": "bracket-title", "aria-live": "polite" },
        h("h3", { id: "bracket-title", text: gettext("Bracket") }),
        renderBracket(this.tables, { rounds: tournament.rounds, mine: this.entry ? this.entry.number : null })),
      this.renderPrizes(tournament),
    ];
    this.main.replaceChildren(...parts.filter(Boolean));
    this.main.dataset.status = tournament.status;
    this.main.setAttribute("aria-busy", "false");
    if (focused) {
      const again = document.getElementById(focused);
      if (again) again.focus({ preventScroll: true });
    }
  }

  renderHead(tournament) {
    const facts = [
      [pgettext("a tournament's kind", "Kind"), KINDS[tournament.kind] || tournament.kind, "kind"],
      [gettext("Entry"), entryPrice(tournament), "price"],
      [gettext("Prize pool"), prizePool(tournament), "prize-pool"],
      [gettext("Entries"), entriesText(tournament), "entries"],
      [gettext("Starts"), startText(tournament), "start"],
      [gettext("Format"), formatText(tournament), "format"],
    ];
    if (tournament.seeding === "rating") {
      facts.push([gettext("Seeding"), gettext("By rating: the best players meet last"), "seeding"]);
    }
    return h("section", { class: "tournament-part tournament-head", "aria-labelledby": "tournament-title" },
      h("div", { class: "section-head" },
        h("h2", { id: "tournament-title", text: tournament.name }),
        h("span", { class: "status-badge", id: "tournament-status", dataset: { status: tournament.status }, text: STATUSES[tournament.status] || tournament.status })),
      h("dl", { class: "tournament-facts" },
        facts.map(([label, value, key]) => h("div", { dataset: { fact: key } }, h("dt", { text: label }), h("dd", { text: value })))),
      tournament.status === "cancelled"
        ? h("p", { class: "warning", id: "cancel-reason", text: CANCEL_REASONS[tournament.cancel_reason] || gettext("The tournament was cancelled.") })
        : null);
  }

  renderReady() {
    if (!this.ready || ENDED.includes(this.tournament.status)) return null;
    const ready = this.ready;
    const where = ready.round
      ? gettext("Round %(round)s, table %(table)s.", { round: formatNumber(ready.round), table: formatNumber(ready.table) })
      : null;
    const deadline = ready.seat_by
      ? gettext("Take your seat before %(time)s, or you forfeit the match.", { time: formatDate(ready.seat_by, { timeStyle: "medium" }) })
      : null;
    return h("section", { class: "tournament-part match-ready", id: "match-ready", role: "status", "aria-labelledby": "ready-title" },
      h("h3", { id: "ready-title", text: gettext("Your match is ready") }),
      where ? h("p", { text: where }) : null,
      deadline ? h("p", { id: "ready-deadline", text: deadline }) : null,
      h("button", { type: "button", class: "button primary", id: "take-seat", disabled: this.busy, onclick: () => this.takeSeat() }, gettext("Take your seat")));
  }

  renderEntry(tournament) {
    const entry = this.entry;
    const parts = [];
    if (!entry || entry.status === "unregistered") {
      if (tournament.status === "registering") {
        parts.push(...this.registration(tournament));
      } else if (tournament.status === "announced") {
        parts.push(h("p", { text: gettext("Registration opens %(when)s.", { when: formatDate(tournament.registration_opens_at) }) }));
      } else {
        parts.push(h("p", { class: "notice", text: gettext("You are not in this tournament.") }));
      }
    } else {
      parts.push(...this.entryStanding(entry, tournament));
    }
    return h("section", { class: "tournament-part my-entry", id: "my-entry", dataset: { entryStatus: entry ? entry.status : "none" }, "aria-labelledby": "my-entry-title" },
      h("h3", { id: "my-entry-title", text: gettext("Your entry") }),
      parts);
  }

  /** Registering: with the player's ticket first when it pays the entry, or for the price. */
  registration(tournament) {
    const ticket = this.ticket && !isFree(tournament) ? this.ticket : null;
    const paid = h("button", {
      type: "button", class: ["button", ticket && ticket.covers_entry ? null : "primary"], id: "register", disabled: this.busy, onclick: () => this.register(),
    }, isFree(tournament) ? gettext("Register (free)") : gettext("Register for %(price)s", { price: entryTotal(tournament) }));
    if (ticket && ticket.covers_entry) {
      return [
        h("p", { id: "my-ticket", text: gettext("You hold a ticket to this tournament worth %(value)s: it pays your entry. Withdrawing before the start gives the ticket back.", { value: plainMoney(ticket.value) }) }),
        h("div", { class: "button-row" },
          h("button", { type: "button", class: "button primary", id: "register-ticket", disabled: this.busy, onclick: () => this.register({ ticket: true }) }, gettext("Register with my ticket")),
          paid),
      ];
    }
    return [
      h("p", { text: gettext("Entry: %(price)s. Withdrawing before the start refunds it in full.", { price: entryPrice(tournament) }) }),
      ticket
        ? h("p", { id: "my-ticket", class: "hint", text: gettext("Your ticket to this tournament is worth %(value)s, less than the entry: it cannot pay it.", { value: plainMoney(ticket.value) }) })
        : null,
      paid,
    ];
  }

  entryStanding(entry, tournament) {
    const number = gettext("Entry %(number)s", { number: formatNumber(entry.number) });
    const prize = entry.prize && Number(entry.prize.amount) > 0 ? prizeText(entry.prize, entry.prize_ticket) : null;
    const places = entry.place_from ? placeText(entry.place_from, entry.place_to) : null;
    const byTicket = entry.payment === "ticket";
    const paidByTicket = byTicket ? h("p", { id: "entry-payment", class: "hint", text: gettext("Paid with your ticket.") }) : null;
    switch (entry.status) {
      case "registered":
        return [
          h("p", {
            id: "entry-standing",
            text: tournament.kind === "sit_and_go"
              ? gettext("You are registered (%(entry)s). The tournament starts when it is full.", { entry: number })
              : gettext("You are registered (%(entry)s). The tournament starts %(when)s.", { entry: number, when: formatDate(tournament.starts_at) }),
          }),
          byTicket ? h("p", { id: "entry-payment", text: gettext("Paid with your ticket. Withdrawing before the start gives the ticket back.") }) : null,
          h("button", { type: "button", class: "button", id: "unregister", disabled: this.busy, onclick: () => this.unregister() }, gettext("Withdraw")),
        ];
      case "in":
        return [
          h("p", { id: "entry-standing", text: this.ready ? gettext("You are in (%(entry)s).", { entry: number }) : gettext("You are in (%(entry)s): your next table is seated when its players are known.", { entry: number }) }),
          paidByTicket,
        ];
      case "won":
        return [
          h("p", { id: "entry-standing", class: "entry-result won", text: gettext("You won the tournament!") }),
          this.resultLine(places, prize),
          paidByTicket,
        ];
      case "out":
        return [
          h("p", { id: "entry-standing", class: "entry-result", text: gettext("You are out (round %(round)s).", { round: formatNumber(entry.round_out) }) }),
          places ? this.resultLine(places, prize) : null,
          paidByTicket,
        ];
      case "refunded":
        return [h("p", {
          id: "entry-standing",
          text: byTicket
            ? gettext("The tournament was cancelled: your ticket was given back.")
            : gettext("The tournament was cancelled: your entry was refunded."),
        })];
      default:
        return [h("p", { id: "entry-standing", text: number })];
    }
  }

  resultLine(places, prize) {
    return h("p", { id: "entry-prize", class: "entry-prize" },
      prize
        ? gettext("%(places)s: you won %(prize)s.", { places, prize })
        : gettext("%(places)s: no prize.", { places }));
  }

  renderPrizes(tournament) {
    if (!tournament.prizes || !tournament.prizes.length) return null;
    return h("section", { class: "tournament-part", id: "prizes", "aria-labelledby": "prizes-title" },
      h("h3", { id: "prizes-title", text: gettext("Prizes") }),
      tournament.started_at ? null : h("p", { class: "hint", text: gettext("As the entries stand now: fixed at the start.") }),
      h("table", { class: "prize-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col", text: gettext("Place") }), h("th", { scope: "col", text: gettext("Prize") }))),
        h("tbody", {}, tournament.prizes.map((row) => h("tr", { dataset: { place: String(row.place) } },
          h("td", { text: formatNumber(row.place) }),
          h("td", { class: "amount", text: prizeText(row.prize, row.ticket) }))))));
  }
}

export function tournamentIdOf(pathname) {
  const match = /^\/play\/tournaments\/(\d+)$/.exec(pathname);
  return match ? match[1] : null;
}
