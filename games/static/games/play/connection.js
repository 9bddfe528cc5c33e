// The page's connection, one state for the whole page (docs/play.md "Connection"), shown in
// the header: fed by the match socket (live.js), a tournament's watch socket (the tournament
// page's bracket.js), the player's socket (player-socket.js),
// every REST answer or network failure (api.js) and the browser's online/offline events.
//
//   live          the socket open (at a table: the match's; on a tournament's page: its
//                 bracket's; elsewhere: the player's own)
//   polling       no socket, the events feed long-polled, the server answering REST
//   reconnecting  the socket lost, and REST not known to fail
//   offline       no socket, and REST fails too (or the browser says it has no network)
//   connecting    the first socket not open yet;   closed   a socket refused for good
//
// A socket that dies silently is found by its heartbeat (heartbeat.js), at once pinged when
// the browser says its network went. While the socket is down the page probes REST (the
// liveness endpoint) every few seconds, so "offline" is said within seconds even when
// nothing else asks the server. When the page is back (a socket opens, or REST answers after
// failing) the banners about the connection are dismissed and the sockets reconnect at once
// rather than at the end of their backoff.

import { $ } from "./dom.js";
import { gettext } from "./i18n.js";
import { dismissConnectionNotices, showNotice } from "./notices.js";

// Not through api.js: it reports every answer here (and the probe must not carry the
// session token: the endpoint is public and never throttled).
const PROBE_URL = "/api/v1/health/live";
const PROBE_FIRST_MS = 1000;
const PROBE_EVERY_MS = 3000;
const PROBE_TIMEOUT_MS = 3000;
// A proxy's own page for these (not a problem+json) means the game server behind it did
// not answer: the same as no answer at all.
const GATEWAY_DOWN = [502, 503, 504];

class Connection {
  constructor() {
    this.sockets = new Map(); // "match" | "player" -> connecting | open | reconnecting | polling | closed
    this.rest = "unknown"; // answered | failed | unknown: the last REST outcome
    this.restAt = 0;
    this.state = "idle";
    this.element = null;
    this.probeTimer = null;
    this.probing = false;
    this.listeners = new Set(); // {back(), lost()} of each socket
  }

  /** The socket that says whether the page is live: the match's at a table, a tournament's
   * watch socket on its page (docs/play.md "Tournaments"), else the player's own. */
  get primary() {
    return this.sockets.get("match") || this.sockets.get("tournament") || this.sockets.get("player") || null;
  }

  compute() {
    const primary = this.primary;
    if (primary === null) return "idle";
    if (primary === "open") return "live";
    if (this.rest === "failed") return "offline";
    if (primary === "polling" || primary === "closed" || primary === "connecting") return primary;
    return "reconnecting";
  }

  // --- Reports ------------------------------------------------------------------------------
  socket(name, state) {
    const wasOpen = this.primary === "open";
    if (state === null) this.sockets.delete(name);
    else this.sockets.set(name, state);
    const isOpen = this.primary === "open";
    // What REST did while the socket was up says nothing of now: ask again.
    if (wasOpen && !isOpen) this.rest = "unknown";
    if (isOpen && !wasOpen) dismissConnectionNotices();
    this.update();
  }

  restAnswered() {
    const wasFailing = this.rest === "failed";
    this.rest = "answered";
    this.restAt = Date.now();
    if (wasFailing) this.back();
    this.update();
  }

  restFailed() {
    this.rest = "failed";
    this.restAt = Date.now();
    this.update();
  }

  /** The server answers again: nothing says it cannot be reached, sockets try at once. */
  back() {
    dismissConnectionNotices();
    for (const listener of this.listeners) listener.back();
  }

  // --- State ---------------------------------------------------------------------------------
  update() {
    const state = this.compute();
    if (state !== this.state) {
      this.state = state;
      this.render();
    }
    this.scheduleProbe();
  }

  render() {
    if (!this.element) return;
    this.element.dataset.state = this.state;
    let said = "";
    for (const label of this.labels) {
      const current = label.dataset.for === this.state;
      label.classList.toggle("current", current);
      if (current) said = label.textContent;
    }
    this.said.textContent = said;
  }

  // --- Probing REST while the socket is down --------------------------------------------------
  scheduleProbe() {
    const needed = this.primary !== null && this.primary !== "open";
    if (!needed) {
      window.clearTimeout(this.probeTimer);
      this.probeTimer = null;
      return;
    }
    if (this.probeTimer === null) {
      this.probeTimer = window.setTimeout(() => this.probeDue(), PROBE_FIRST_MS);
    }
  }

  probeDue() {
    this.probeTimer = null;
    if (Date.now() - this.restAt >= PROBE_EVERY_MS || this.rest === "unknown") this.probe();
    if (this.primary !== null && this.primary !== "open") {
      this.probeTimer = window.setTimeout(() => this.probeDue(), PROBE_EVERY_MS);
    }
  }

  async probe() {
    if (this.probing) return;
    // The browser knows it has no network: no request (it would only fail).
    if (navigator.onLine === false) {
      this.restFailed();
      return;
    }
    this.probing = true;
    const abort = new AbortController();
    const timer = window.setTimeout(() => abort.abort(), PROBE_TIMEOUT_MS);
    try {
      const response = await fetch(PROBE_URL, { cache: "no-store", credentials: "omit", signal: abort.signal });
      reportResponse(response);
    } catch {
      this.restFailed(); // no answer, or none within the timeout
    } finally {
      window.clearTimeout(timer);
      this.probing = false;
    }
  }

  /** The header's status line and the browser's own word on its network. */
  watch(element) {
    // The page renders every state's label in one grid cell (play.html), only the current one
    // visible: the pill is as wide as its longest label from the first paint, so a change of
    // state moves nothing else in the header (no layout shift). Screen readers read `said`.
    this.labels = [...element.querySelectorAll(".connection-label")];
    this.said = element.querySelector(".connection-said");
    this.element = element;
    this.render();
    window.addEventListener("offline", () => {
      for (const listener of this.listeners) listener.lost(); // open sockets: ping them now
      if (this.primary !== "open") this.probe();
    });
    window.addEventListener("online", () => this.probe());
  }
}

const connection = new Connection();

/** Show the page's connection in the header's `#connection` (a status line). */
export function watchConnection() {
  connection.watch($("#connection"));
}

/** A socket's state (`name`: "match", "tournament" or "player"); null when it is stopped. */
export function reportSocket(name, state) {
  connection.socket(name, state);
}

/**
 * A REST call's response: the server answered (whatever the status), unless it is a
 * proxy's page saying the server behind it is down. Answers whether the server answered.
 */
export function reportResponse(response) {
  const contentType = response.headers.get("content-type") || "";
  if (GATEWAY_DOWN.includes(response.status) && !contentType.includes("json")) {
    connection.restFailed();
    return false;
  }
  connection.restAnswered();
  return true;
}

/** A REST call got no answer (status 0: no network, the server down). */
export function reportRestFailed() {
  connection.restFailed();
}

/**
 * A socket's part in the page's connection: `back()` when the server answers again after
 * failing (reconnect now), `lost()` when the browser says its network went (check the
 * socket now). Answers the unsubscribe.
 */
export function onNetwork(listener) {
  connection.listeners.add(listener);
  return () => connection.listeners.delete(listener);
}

/** The page's connection state now (see the top of this module). */
export function connectionState() {
  return connection.state;
}

/**
 * A move the player makes while the page is offline is refused at once, with a message,
 * rather than sent into a connection that is known to fail (docs/play.md "Connection"):
 * true when it was refused.
 */
export function moveRefusedOffline() {
  if (connection.state !== "offline") return false;
  showNotice(
    gettext("You are offline: your move was not sent."),
    gettext("It will be possible again when the connection is back."),
    { level: "error", name: "move-offline", about: "connection" },
  );
  return true;
}

/**
 * The problem to show for a move whose sending failed: a network failure (status 0) may
 * have reached the server or not, so the player is told that, and the table shows which
 * once the connection is back (the socket's resume, or the polled feed, brings the view).
 */
export function moveProblem(problem) {
  if (!problem || problem.status !== 0) return problem;
  return {
    type: "about:blank",
    status: 0,
    title: gettext("Your move was not confirmed: the connection was lost while it was sent."),
    detail: gettext("When the connection is back, the table shows whether it was played."),
  };
}
