// The lobby (R11): rooms and their tables, amounts in the player's display currency, the
// player's own open tables, sitting down (Money Play asks the cashier amount; a real-money
// seat asks for the session's limits first where the profile requires them, protection.js),
// a practice game against the house bot, and watching a running table.

import { api, ApiError, apiList } from "./api.js";
import { h } from "./dom.js";
import { money, plainMoney, VARIANTS } from "./format.js";
import { showProblem } from "./notices.js";
import { andList, formatNumber, gettext, ngettext, orList, pgettext } from "./i18n.js";

const ACTIVE_SEAT_STATES = ["seated", "playing"];
const OPEN_MATCH_STATUSES = ["waiting", "running"];

export class LobbyScreen {
  constructor(main, { go, refreshWallet, protection }) {
    this.main = main;
    this.go = go;
    this.refreshWallet = refreshWallet;
    this.protection = protection;
    this.busy = false;
  }

  async start() {
    this.main.replaceChildren(h("p", { class: "notice", text: gettext("Loading the lobby…") }));
    await this.load();
  }

  stop() {
    this.stopped = true;
  }

  async load() {
    this.main.setAttribute("aria-busy", "true");
    let rooms;
    let seats;
    try {
      [rooms, seats] = await Promise.all([apiList("lobby"), apiList("me/seats")]);
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof ApiError) {
        if (error.status === 401) return; // the session is over: the page says so
        showProblem(error.problem);
        this.main.replaceChildren(
          h("section", { class: "lobby" },
            h("h2", { text: gettext("Lobby") }),
            h("p", { class: "notice", text: gettext("The lobby could not be loaded.") }),
            h("button", { type: "button", class: "button", onclick: () => this.load() }, gettext("Try again"))),
        );
        return;
      }
      throw error;
    }
    if (this.stopped) return; // the player went elsewhere meanwhile
    this.main.setAttribute("aria-busy", "false");
    this.refreshWallet();
    const mine = seats.filter(
      (seat) => ACTIVE_SEAT_STATES.includes(seat.state) && OPEN_MATCH_STATUSES.includes(seat.match_status),
    );
    this.main.replaceChildren(
      h("section", { class: "lobby", "aria-labelledby": "lobby-title" },
        h("div", { class: "section-head" },
          h("h2", { id: "lobby-title", text: gettext("Lobby") }),
          h("button", { type: "button", class: "link-button", onclick: () => this.load() }, gettext("Refresh"))),
        mine.length ? this.renderMine(mine) : null,
        rooms.length
          ? h("div", { class: "rooms" }, rooms.map((room) => this.renderRoom(room, mine)))
          : h("p", { class: "notice", text: gettext("No room is open right now.") })),
    );
  }

  renderMine(seats) {
    return h("section", { class: "my-tables", "aria-labelledby": "my-tables-title" },
      h("h3", { id: "my-tables-title", text: gettext("Your tables") }),
      h("ul", { class: "plain-list" },
        seats.map((seat) => h("li", { class: "my-table" },
          h("span", {
            text: seat.match_status === "running"
              ? gettext("Table %(table)s: game in progress", { table: seat.table_id })
              : gettext("Table %(table)s: waiting for an opponent", { table: seat.table_id }),
          }),
          h("button", {
            type: "button",
            class: "button",
            onclick: () => this.go({ screen: "table", match: seat.match_id }),
          }, gettext("Return to the table"))))));
  }

  renderRoom(room, mine) {
    const facts = [
      VARIANTS[room.variant] || room.variant,
      room.is_practice ? gettext("Practice (play chips)") : gettext("Real money"),
      room.variant === "money"
        ? gettext("Stake per point %(stakes)s", { stakes: orList(room.stake_per_point_choices.map(money)) })
        : gettext("Stake %(stake)s", { stake: money(room.stake) }),
      room.variant === "money"
        ? gettext("Cashier %(min)s to %(max)s", { min: money(room.cashier_min), max: money(room.cashier_max) })
        : null,
      room.seats > 2 ? ngettext("%(count)s player", "%(count)s players", room.seats) : null,
      room.seats > 2 && room.prize_table !== "winner_takes_all"
        ? gettext("Prizes %(shares)s", { shares: `${room.prize_table.split("_").join("/")} %` }) : null,
      room.target
        ? (room.seats > 2
          ? gettext("Penalty target %(target)s", { target: formatNumber(room.target) })
          : gettext("Target %(target)s", { target: formatNumber(room.target) }))
        : null,
      room.fee_bps
        ? gettext("Fee %(percent)s", { percent: formatNumber(room.fee_bps / 10000, { style: "percent", maximumFractionDigits: 2 }) })
        : null,
      room.turn_seconds ? gettext("%(seconds)s s a turn", { seconds: formatNumber(room.turn_seconds) }) : null,
    ].filter(Boolean);
    const titleId = `room-${room.id}`;
    return h("article", { class: "room", "aria-labelledby": titleId, dataset: { roomId: room.id } },
      h("h3", { id: titleId, text: room.name }),
      h("p", { class: "room-facts", text: facts.join(" · ") }),
      h("ul", { class: "tables plain-list" },
        room.tables.map((table) => this.renderTable(room, table, mine))));
  }

  renderTable(room, table, mine) {
    const seated = mine.find((seat) => seat.table_id === table.id);
    const names = table.seats
      .filter((seat) => seat.display_name !== null)
      .map((seat) => seat.display_name || gettext("Seat %(number)s", { number: seat.position + 1 }));
    const label = gettext("Table %(table)s", { table: table.id });
    const seatCount = room.seats || 2;
    const versus = pgettext("between players' names", " vs ");
    const state = {
      empty: pgettext("a table's state", "empty"),
      waiting: seatCount > 2
        ? gettext("%(names)s waiting for players (%(seated)s of %(seats)s seated)", {
          names: andList(names), seated: formatNumber(names.length), seats: formatNumber(seatCount),
        })
        : gettext("%(names)s waiting for an opponent", { names: andList(names) }),
      playing: gettext("%(names)s playing", { names: names.join(versus) }),
    }[table.state] || table.state;
    const row = h("li", { class: "table-row", dataset: { tableId: table.id, state: table.state } },
      h("div", { class: "table-info" },
        h("strong", { text: label }),
        h("span", { text: ` · ${state}` }),
        table.stake_per_point
          ? h("span", { text: ` · ${gettext("%(stake)s a point", { stake: money(table.stake_per_point) })}` })
          : null));
    const actions = h("div", { class: "table-actions" });
    if (seated) {
      actions.append(h("button", {
        type: "button", class: "button",
        onclick: () => this.go({ screen: "table", match: seated.match_id }),
      }, gettext("Return to the table")));
    } else if (table.free_seats > 0) {
      actions.append(h("button", {
        type: "button", class: "button primary",
        "aria-label": gettext("Sit at %(table)s", { table: label }),
        onclick: () => (room.variant === "money" ? this.askCashier(row, room, table) : this.sit(room, table)),
      }, gettext("Sit")));
      if (room.is_practice && table.free_seats === seatCount) {
        actions.append(h("button", {
          type: "button", class: "button",
          "aria-label": gettext("Play the house bot at %(table)s", { table: label }),
          onclick: () => this.playBot(room, table, row),
        }, gettext("Play the house bot")));
      }
    }
    if (table.state === "playing" && table.match_id && !seated) {
      actions.append(h("button", {
        type: "button", class: "button",
        "aria-label": gettext("Watch %(table)s", { table: label }),
        onclick: () => this.go({ screen: "watch", match: table.match_id }),
      }, gettext("Watch")));
    }
    row.append(actions);
    return row;
  }

  askCashier(row, room, table, then = null) {
    // Money Play (R10): the cashier amount within the room's bounds, and the stake per
    // point (the table's, once somebody sits; else one of the room's choices).
    const existing = row.querySelector("form");
    if (existing) {
      existing.querySelector("input").focus();
      return;
    }
    const id = `cashier-${table.id}`;
    const choices = table.stake_per_point ? [table.stake_per_point] : room.stake_per_point_choices;
    const select = h("select", { id: `${id}-stake`, name: "stake_per_point" },
      choices.map((choice) => h("option", { value: choice.amount, text: gettext("%(stake)s a point", { stake: money(choice) }) })));
    const input = h("input", {
      id, name: "cashier_amount", type: "text", inputmode: "decimal", required: true,
      autocomplete: "off", value: room.cashier_min ? room.cashier_min.amount : "",
      "aria-describedby": `${id}-hint`,
    });
    const form = h("form", { class: "cashier-form", novalidate: true },
      h("label", { for: id, text: gettext("Cashier amount (%(currency)s)", { currency: room.currency }) }),
      input,
      h("p", { id: `${id}-hint`, class: "hint", text: gettext("Between %(min)s and %(max)s. Nobody can lose more than they bring.", { min: plainMoney(room.cashier_min), max: plainMoney(room.cashier_max) }) }),
      h("label", { for: `${id}-stake`, text: gettext("Stake per point") }),
      select,
      h("div", { class: "form-actions" },
        h("button", { type: "submit", class: "button primary" }, gettext("Sit down")),
        h("button", { type: "button", class: "button", onclick: () => form.remove() }, gettext("Cancel"))));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const body = { cashier_amount: input.value.trim(), stake_per_point: select.value };
      (then || ((b) => this.sit(room, table, b)))(body);
    });
    row.append(form);
    input.focus();
  }

  /** `POST tables/{id}/sit`. For real money, the session's limits first where the profile
   * asks for them, and again on a `session-limits-required` answer (null: not seated). */
  async sitDown(room, table, body) {
    const sit = () => api(`tables/${table.id}/sit`, { method: "POST", body });
    if (room.is_practice || !this.protection) return sit();
    if (!(await this.protection.limitsFirst())) return null;
    const seat = await this.protection.withLimits(sit);
    this.protection.load(); // the buy-in's session: in play, its figures
    return seat;
  }

  async sit(room, table, body = {}) {
    if (this.busy) return null;
    this.busy = true;
    try {
      const seat = await this.sitDown(room, table, body);
      if (!seat) return null;
      this.refreshWallet(); // the buy-in went into the game's escrow
      this.go({ screen: "table", match: seat.match_id });
      return seat;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      showProblem(error.problem);
      return null;
    } finally {
      this.busy = false;
    }
  }

  async playBot(room, table, row) {
    // Practice (R11): sit down, then invite the house bot to the other seat (a room with
    // bot_enabled seats it by itself).
    if (room.variant === "money") {
      this.askCashier(row, room, table, (body) => this.sitWithBot(room, table, body));
      return;
    }
    await this.sitWithBot(room, table, {});
  }

  async sitWithBot(room, table, body) {
    if (this.busy) return;
    this.busy = true;
    try {
      const seat = await this.sitDown(room, table, body);
      if (!seat) return;
      this.refreshWallet();
      if (seat.match_status === "waiting") {
        try {
          // R12: one house bot per free seat (each call seats one; the last starts the game).
          for (let free = (room.seats || 2) - 1; free > 0; free -= 1) {
            const bot = await api(`tables/${table.id}/bot`, { method: "POST" });
            if (bot.match_status !== "waiting") break;
          }
        } catch (error) {
          // Seated all the same: the table offers the bot again, or a person may sit.
          if (!(error instanceof ApiError)) throw error;
          showProblem(error.problem);
        }
      }
      this.go({ screen: "table", match: seat.match_id });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      showProblem(error.problem);
    } finally {
      this.busy = false;
    }
  }
}
