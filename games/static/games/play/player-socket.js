// The player's own socket, /ws/v1/me (docs/realtime.md "The player's socket"): what concerns
// the player outside any one match. The page uses it for player protection's pushes
// (`reality_check`, `play_session`) and `wallet_changed` (the header's balance). It has no
// sequence numbers: after every `hello` (the first, and each reconnect) the page reads the
// state it may have missed over REST.

import { api, ApiError } from "./api.js";

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
  }

  start() {
    this.connect();
  }

  stop() {
    this.stopped = true;
    window.clearTimeout(this.timer);
    if (this.socket) this.socket.close(1000, "bye");
    this.socket = null;
  }

  async connect() {
    if (this.stopped) return;
    let ticket;
    try {
      ticket = (await api("socket-tickets", { method: "POST", body: {} })).ticket;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (this.stopped || error.status === 401) return; // the session is over
      if ([404, 405].includes(error.status)) return; // this server has no sockets
      this.retry();
      return;
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
    if (message.type === "ping") {
      socket.send(JSON.stringify({ type: "pong" }));
      return;
    }
    if (message.type === "hello") {
      this.attempt = 0;
      this.handlers.hello();
      return;
    }
    this.handlers.message(message);
  }

  onClose(socket, event) {
    if (socket !== this.socket) return;
    this.socket = null;
    if (this.stopped || FINAL_CLOSES.includes(event.code)) return;
    this.retry();
  }

  retry() {
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.connect(), delay + Math.random() * delay * 0.2);
  }
}
