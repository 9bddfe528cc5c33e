// A tournament's bracket (R14) and the socket that keeps it live,
// /ws/v1/tournaments/{id}/watch (docs/realtime.md "A tournament's bracket"): its `hello` (and
// a `snapshot` after a gap the server noticed) is the whole bracket as GET .../bracket shows
// it to this player's operator; each `bracket` push carries the tables that changed and the
// tournament, with the next `version`. A push that does not continue from the version shown
// means one was lost: the page opens the socket again for a fresh snapshot.

import { api, ApiError } from "../../games/play/api.js";
import { onNetwork, reportSocket } from "../../games/play/connection.js";
import { h } from "../../games/play/dom.js";
import { Heartbeat } from "../../games/play/heartbeat.js";
import { gettext, pgettext } from "../../games/play/i18n.js";
import { placeText, roundName } from "./labels.js";

const BACKOFF_MS = [1000, 2000, 4000, 8000, 15000, 30000];
// 4401: a bad ticket or an ended session; 4403: this origin may not open sockets; 4404: no
// such tournament for this player. None gets better by trying again.
const FINAL_CLOSES = [4401, 4403, 4404];

const TABLE_STATUSES = {
  pending: pgettext("a bracket table's status", "Waiting for its players"),
  playing: pgettext("a bracket table's status", "Playing"),
  finished: pgettext("a bracket table's status", "Finished"),
  bye: pgettext("a bracket table's status", "Bye"),
  aborted: pgettext("a bracket table's status", "Stopped: the tournament was cancelled"),
};

function seatName(seat) {
  return seat.display_name || seat.screen_name || gettext("Entry %(number)s", { number: seat.entry });
}

/** One table of the bracket: its players, who went on (the final: the winner first), the
 * viewer's own seat and path (`mine`: the viewer's entry number, or null). */
function tableBox(table, { final, mine }) {
  const finished = table.status === "finished" || table.status === "bye";
  const onMyPath = mine !== null && table.players.some((seat) => seat.entry === mine);
  const label = gettext("Table %(table)s", { table: table.number });
  const players = table.players.length
    ? h("ul", { class: "plain-list bracket-seats" }, table.players.map((seat) => {
      // The final's `advancing` is its ranking, best first; elsewhere, who went on.
      const rank = finished ? table.advancing.indexOf(seat.entry) : -1;
      const wentOn = rank >= 0 && !final;
      const won = final && rank === 0;
      let outcome = null;
      if (won) outcome = gettext("Winner");
      else if (final && rank > 0) outcome = placeText(rank + 1, rank + 1);
      else if (wentOn) outcome = table.status === "bye" ? gettext("Bye: goes on") : gettext("Went on");
      else if (finished) outcome = gettext("Out");
      return h("li", {
        class: ["bracket-seat", wentOn ? "went-on" : null, finished && rank < 0 ? "out" : null, won ? "winner" : null, seat.entry === mine ? "me" : null],
        dataset: { entry: String(seat.entry) },
      },
      h("span", { class: "bracket-name", text: seat.entry === mine ? gettext("%(name)s (you)", { name: seatName(seat) }) : seatName(seat) }),
      outcome ? h("span", { class: "bracket-outcome", text: outcome }) : null);
    }))
    : h("p", { class: "hint", text: gettext("Its players come from the tables before.") });
  return h("li", {
    class: ["bracket-table", onMyPath ? "my-path" : null],
    dataset: { round: String(table.round), number: String(table.number), status: table.status },
    "aria-label": onMyPath ? gettext("%(table)s, your table", { table: label }) : label,
  },
  h("div", { class: "bracket-table-head" },
    h("strong", { text: label }),
    h("span", { class: "bracket-status", text: TABLE_STATUSES[table.status] || table.status })),
  players);
}

/** The bracket by round, each round's tables in order (`tables` as GET .../bracket). */
export function renderBracket(tables, { rounds, mine }) {
  if (!tables.length) return h("p", { class: "notice", id: "bracket-empty", text: gettext("The bracket is drawn when the tournament starts.") });
  const byRound = new Map();
  for (const table of [...tables].sort((a, b) => a.round - b.round || a.number - b.number)) {
    if (!byRound.has(table.round)) byRound.set(table.round, []);
    byRound.get(table.round).push(table);
  }
  const last = rounds || Math.max(...byRound.keys());
  return h("div", { class: "bracket-rounds" }, [...byRound].map(([round, roundTables]) => {
    const titleId = `bracket-round-${round}`;
    return h("section", { class: "bracket-round", dataset: { round: String(round) }, "aria-labelledby": titleId },
      h("h4", { id: titleId, text: roundName(round, last) }),
      h("ol", { class: "plain-list bracket-tables" }, roundTables.map((table) => tableBox(table, { final: round === last, mine }))));
  }));
}

/** The tables of `tables` with the changed ones (`changed`) put in their place. */
export function tablesUpdated(tables, changed) {
  const key = (table) => `${table.round}-${table.number}`;
  const byKey = new Map(tables.map((table) => [key(table), table]));
  for (const table of changed) byKey.set(key(table), table);
  return [...byKey.values()];
}

export class BracketSocket {
  /** handlers: {snapshot({version, tournament, bracket}), changed({version, changes,
   * tournament, tables}), gone()}. */
  constructor(tournamentId, handlers) {
    this.tournamentId = tournamentId;
    this.handlers = handlers;
    this.socket = null;
    this.version = null;
    this.stopped = false;
    this.attempt = 0;
    this.timer = null;
    this.everOpen = false;
    this.heartbeat = new Heartbeat({
      ping: () => this.socket.send(JSON.stringify({ type: "ping" })),
      dead: () => this.reopen(),
    });
  }

  start() {
    this.unsubscribeNetwork = onNetwork({
      back: () => {
        if (!this.socket && !this.stopped) this.connectNow();
      },
      lost: () => this.heartbeat.suspect(),
    });
    this.connect();
  }

  stop() {
    this.stopped = true;
    window.clearTimeout(this.timer);
    this.heartbeat.stop();
    if (this.unsubscribeNetwork) this.unsubscribeNetwork();
    if (this.socket) this.socket.close(1000, "bye");
    this.socket = null;
    reportSocket("tournament", null);
  }

  connectNow() {
    this.attempt = 0;
    window.clearTimeout(this.timer);
    this.connect();
  }

  async connect() {
    if (this.stopped) return;
    reportSocket("tournament", this.everOpen ? "reconnecting" : "connecting");
    let ticket;
    try {
      ticket = (await api("socket-tickets", { method: "POST", body: {} })).ticket;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (this.stopped || error.status === 401) return; // the session is over: the page says so
      this.retry();
      return;
    }
    if (this.stopped) return;
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const query = new URLSearchParams({ ticket });
    const path = `/ws/v1/tournaments/${encodeURIComponent(this.tournamentId)}/watch`;
    let socket;
    try {
      socket = new WebSocket(`${scheme}//${window.location.host}${path}?${query}`);
    } catch {
      this.retry();
      return;
    }
    this.socket = socket;
    this.heartbeat.opened();
    socket.addEventListener("message", (event) => this.onMessage(socket, event));
    socket.addEventListener("close", (event) => this.onClose(socket, event));
  }

  onMessage(socket, event) {
    if (socket !== this.socket) return;
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    this.heartbeat.heard();
    if (message.type === "ping") {
      socket.send(JSON.stringify({ type: "pong" }));
    } else if (message.type === "hello" || message.type === "snapshot") {
      if (message.type === "hello") {
        this.attempt = 0;
        this.everOpen = true;
        this.heartbeat.hello();
        reportSocket("tournament", "open");
      }
      this.version = message.version;
      this.handlers.snapshot(message);
    } else if (message.type === "bracket") {
      if (this.version !== null && message.version <= this.version) return; // shown already
      if (this.version === null || message.version !== this.version + 1) {
        this.reopen(); // a push was lost: a fresh snapshot
        return;
      }
      this.version = message.version;
      this.handlers.changed(message);
    }
  }

  onClose(socket, event) {
    if (socket !== this.socket) return;
    this.socket = null;
    this.heartbeat.stop();
    if (this.stopped) return;
    if (FINAL_CLOSES.includes(event.code)) {
      reportSocket("tournament", "closed");
      if (event.code === 4404) this.handlers.gone();
      return;
    }
    this.retry();
  }

  /** Let this socket go and open another at once (a gap, or a socket dead without a close). */
  reopen() {
    const socket = this.socket;
    if (!socket) return;
    this.socket = null;
    this.heartbeat.stop();
    socket.close();
    this.connectNow();
  }

  retry() {
    reportSocket("tournament", this.everOpen ? "reconnecting" : "connecting");
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.connect(), delay + Math.random() * delay * 0.2);
  }
}
