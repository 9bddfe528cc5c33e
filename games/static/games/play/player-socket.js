// The player's own socket, /ws/v1/me (docs/realtime.md "The player's socket"): what concerns
// the player outside any one match. The page uses it for player protection's pushes
// (`reality_check`, `play_session`) and `wallet_changed` (the header's balance). It has no
// sequence numbers: after every `hello` (the first, and each reconnect) the page reads the
// state it may have missed over REST. Away from a table it is the socket the page's
// connection line speaks of (connection.js).

import { api, ApiError } from "./api.js";
import { onNetwork, reportSocket } from "./connection.js";
import { Heartbeat } from "./heartbeat.js";

const BACKOFF_MS = [1000, 2000, 4000, 8000, 15000, 30000];
// 4401: a bad ticket or an ended session (the page says so from REST); 4403: this origin
// may not open sockets. Neither gets better by trying again.
const FINAL_CLOSES = [4401, 4403];

export class PlayerSocket {
  /** handlers: {hello(), message(msg)}. */
  constructor(handlers) {
    this.handlers = handlers;
    this.socket = null;
    this.stopped = false;
    this.attempt = 0;
    this.timer = null;
    this.everOpen = false;
    this.minting = false;
    this.heartbeat = new Heartbeat({
      ping: () => this.socket.send(JSON.stringify({ type: "ping" })),
      dead: () => this.socketDied(),
    });
  }

  start() {
    this.unsubscribeNetwork = onNetwork({
      back: () => this.reconnectNow(),
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
    reportSocket("player", null);
  }

  /** The server answers again: try now rather than at the end of the backoff. */
  reconnectNow() {
    if (this.stopped || this.socket || this.minting) return;
    this.attempt = 0;
    window.clearTimeout(this.timer);
    this.connect();
  }

  async connect() {
    if (this.stopped) return;
    reportSocket("player", this.everOpen ? "reconnecting" : "connecting");
    let ticket;
    this.minting = true;
    try {
      ticket = (await api("socket-tickets", { method: "POST", body: {} })).ticket;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (this.stopped || error.status === 401) return; // the session is over
      if ([404, 405].includes(error.status)) {
        reportSocket("player", "closed"); // this server has no sockets
        return;
      }
      this.retry();
      return;
    } finally {
      this.minting = false;
    }
    if (this.stopped) return;
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const query = new URLSearchParams({ ticket });
    let socket;
    try {
      socket = new WebSocket(`${scheme}//${window.location.host}/ws/v1/me?${query}`);
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
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    this.heartbeat.heard();
    if (message.type === "ping") {
      socket.send(JSON.stringify({ type: "pong" }));
      return;
    }
    if (message.type === "pong") return; // the heartbeat's answer
    if (message.type === "hello") {
      this.attempt = 0;
      this.everOpen = true;
      this.heartbeat.hello();
      reportSocket("player", "open");
      this.handlers.hello();
      return;
    }
    this.handlers.message(message);
  }

  onClose(socket, event) {
    if (socket !== this.socket) return;
    this.socket = null;
    this.heartbeat.stop();
    if (this.stopped) return;
    if (FINAL_CLOSES.includes(event.code)) {
      reportSocket("player", "closed");
      return;
    }
    this.retry();
  }

  /** The heartbeat got no answer: the socket is dead without a close; let it go, retry. */
  socketDied() {
    const socket = this.socket;
    if (!socket) return;
    this.onClose(socket, { code: 1006 });
    socket.close();
  }

  retry() {
    reportSocket("player", this.everOpen ? "reconnecting" : "connecting");
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.connect(), delay + Math.random() * delay * 0.2);
  }
}
