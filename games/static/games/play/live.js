// Real time (docs/realtime.md): a ticket minted over REST opens /ws/v1/matches/{id} (or
// /watch); `hello`, then `events`, `view`, `presence`, `ping` messages. The connection comes
// back by itself with backoff and `after=<last seq>`, so nothing is missed. When sockets do
// not work at all (a proxy that drops them), it long-polls the events feed instead
// (docs/realtime.md section 6) and keeps trying the socket now and then. Its state goes to
// the page's connection line (connection.js); a heartbeat notices a socket that died silently.

import { api, ApiError } from "./api.js";
import { onNetwork, reportSocket } from "./connection.js";
import { Heartbeat } from "./heartbeat.js";

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
const SOCKET_FAILURES_BEFORE_POLLING = 3;
const SOCKET_RETRY_WHILE_POLLING_MS = 30000;
const POLL_WAIT_SECONDS = 25;
const POLL_MIN_INTERVAL_MS = 1000;
const FATAL_CLOSES = { 4403: "origin", 4404: "not-found" };
// The server closes a socket that sends more than REALTIME_MAX_MESSAGES_PER_10S (200 by
// default) messages in ten seconds (4429); the page stays well below and sends any move
// over the budget through REST instead.
const SEND_BUDGET = 20;
const SEND_WINDOW_MS = 10000;

export class Live {
  /**
   * matchId; watch: a watcher's socket; handlers: {message(msg), status(state), fatal(why,
   * problem)}. `after`: the last seq already rendered (the moves before it come from the
   * events feed: moves.js).
   */
  constructor({ matchId, watch = false, after = 0, handlers }) {
    this.matchId = matchId;
    this.watch = watch;
    this.lastSeq = after;
    this.handlers = handlers;
    this.socket = null;
    this.stopped = false;
    this.failures = 0;
    this.attempt = 0;
    this.polling = false;
    this.timer = null;
    this.pollAbort = null;
    this.nextSocketTry = 0;
    this.sentAt = [];
    this.everLive = false;
    this.minting = false;
    this.heartbeat = new Heartbeat({
      ping: () => this.transmit({ type: "ping" }),
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
    if (this.pollAbort) this.pollAbort.abort();
    if (this.socket) this.socket.close(1000, "bye");
    this.socket = null;
    reportSocket("match", null);
  }

  /** The server answers again: try the socket now rather than at the end of the backoff
   * (also while polling: a socket that works takes over at its hello). */
  reconnectNow() {
    if (this.stopped || this.socket || this.minting) return;
    this.attempt = 0;
    window.clearTimeout(this.timer);
    this.connect();
  }

  /** True when messages can be sent over the socket now. */
  get open() {
    return Boolean(this.socket && this.socket.readyState === WebSocket.OPEN && this.helloSeen);
  }

  /** Send over the socket when it is open and within the budget; false otherwise. */
  send(message) {
    if (!this.open || !this.withinBudget()) return false;
    this.transmit(message);
    return true;
  }

  withinBudget() {
    const since = Date.now() - SEND_WINDOW_MS;
    this.sentAt = this.sentAt.filter((at) => at > since);
    return this.sentAt.length < SEND_BUDGET;
  }

  transmit(message) {
    this.sentAt.push(Date.now());
    this.socket.send(JSON.stringify(message));
  }

  status(state) {
    reportSocket("match", state === "live" ? "open" : state);
    if (this.handlers.status) this.handlers.status(state);
  }

  deliver(message) {
    if (typeof message.seq === "number" && message.type !== "hello") {
      this.lastSeq = Math.max(this.lastSeq, message.seq);
    }
    this.handlers.message(message);
  }

  async connect() {
    if (this.stopped) return;
    if (!this.polling) this.status(this.everLive ? "reconnecting" : "connecting");
    let ticket;
    this.minting = true;
    try {
      ticket = (await api("socket-tickets", { method: "POST", body: {} })).ticket;
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof ApiError && error.status === 401) return; // the session is over
      if (error instanceof ApiError && error.status === 0 && !this.polling) {
        this.retry(); // no network: not the socket's fault, polling would fail as well
        return;
      }
      if (error instanceof ApiError && [404, 405].includes(error.status)) {
        this.failures = SOCKET_FAILURES_BEFORE_POLLING; // this server has no sockets
      }
      this.socketFailed();
      return;
    } finally {
      this.minting = false;
    }
    if (this.stopped) return;
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const path = `/ws/v1/matches/${encodeURIComponent(this.matchId)}${this.watch ? "/watch" : ""}`;
    const query = new URLSearchParams({ ticket });
    if (this.lastSeq > 0) query.set("after", String(this.lastSeq));
    let socket;
    try {
      socket = new WebSocket(`${scheme}//${window.location.host}${path}?${query}`);
    } catch {
      this.socketFailed();
      return;
    }
    this.socket = socket;
    this.helloSeen = false;
    this.heartbeat.opened();
    socket.addEventListener("message", (event) => this.onSocketMessage(event));
    socket.addEventListener("close", (event) => this.onSocketClose(socket, event));
  }

  onSocketMessage(event) {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    this.heartbeat.heard();
    if (message.type === "error" && !message.id) this.lastProblem = message.problem;
    if (message.type === "ping") {
      this.transmit({ type: "pong" });
      return;
    }
    if (message.type === "pong") return; // the heartbeat's answer
    if (message.type === "hello") {
      this.helloSeen = true;
      this.everLive = true;
      this.heartbeat.hello();
      if (this.lastSeq === 0) this.lastSeq = message.seq; // the whole state, as of this seq
      this.failures = 0;
      this.attempt = 0;
      if (this.polling) {
        this.polling = false;
        if (this.pollAbort) this.pollAbort.abort();
      }
      this.status("live");
    }
    this.deliver(message);
  }

  onSocketClose(socket, event) {
    if (socket !== this.socket) return;
    this.socket = null;
    this.heartbeat.stop();
    const hadHello = this.helloSeen;
    this.helloSeen = false;
    if (this.stopped) return;
    if (event.code in FATAL_CLOSES) {
      this.stopped = true;
      this.status("closed");
      this.handlers.fatal(FATAL_CLOSES[event.code], this.lastProblem);
      return;
    }
    if (!hadHello) {
      this.socketFailed();
      return;
    }
    this.retry();
  }

  /** The heartbeat got no answer: the socket is dead without a close (its close would come
   * only when the closing handshake times out), so the page lets it go and reconnects. */
  socketDied() {
    const socket = this.socket;
    if (!socket) return;
    this.onSocketClose(socket, { code: 1006 });
    socket.close();
  }

  socketFailed() {
    this.failures += 1;
    if (this.failures >= SOCKET_FAILURES_BEFORE_POLLING && !this.polling) {
      this.polling = true;
      this.nextSocketTry = Date.now() + SOCKET_RETRY_WHILE_POLLING_MS;
      this.status("polling");
      this.poll();
      return;
    }
    if (this.polling) {
      this.nextSocketTry = Date.now() + SOCKET_RETRY_WHILE_POLLING_MS;
      return;
    }
    this.retry();
  }

  retry() {
    this.status(this.everLive ? "reconnecting" : "connecting");
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    const jitter = Math.random() * delay * 0.2;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.connect(), delay + jitter);
  }

  /** Long polling: events after the last seq, then the view they lead to. */
  async poll() {
    const feed = this.watch
      ? `matches/${this.matchId}/watch/events`
      : `matches/${this.matchId}/events`;
    const viewPath = this.watch ? `matches/${this.matchId}/watch` : `matches/${this.matchId}/view`;
    let first = true;
    while (this.polling && !this.stopped) {
      const started = Date.now();
      try {
        if (first) {
          const view = await api(viewPath);
          this.deliver({ type: "view", seq: view.seq, view });
          first = false;
        }
        this.pollAbort = new AbortController();
        const answer = await api(`${feed}?after=${this.lastSeq}&wait=${POLL_WAIT_SECONDS}`, {
          signal: this.pollAbort.signal,
        });
        if (!this.polling || this.stopped) return;
        if (answer.events.length > 0 || answer.seq > this.lastSeq) {
          const view = await api(viewPath);
          this.deliver({ type: "events", seq: Math.max(answer.seq, view.seq), events: answer.events, view });
        }
      } catch (error) {
        if (error.name === "AbortError" || this.stopped) return;
        if (error instanceof ApiError && error.status === 401) return;
        if (error instanceof ApiError && error.status === 404) {
          this.stopped = true;
          this.handlers.fatal("not-found", null);
          return;
        }
        await sleep(2000);
      }
      if (Date.now() >= this.nextSocketTry) {
        this.nextSocketTry = Date.now() + SOCKET_RETRY_WHILE_POLLING_MS;
        this.connect(); // a socket that works again ends the polling at its hello
      }
      const spent = Date.now() - started;
      if (spent < POLL_MIN_INTERVAL_MS) await sleep(POLL_MIN_INTERVAL_MS - spent);
    }
  }
}

function sleep(ms) {
  return new Promise((resolve) => window.setTimeout(resolve, ms));
}
