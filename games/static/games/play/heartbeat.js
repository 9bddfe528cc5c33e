// A socket can die without a close: a network that vanishes (a Wi-Fi switch, a NAT that
// forgets the connection) sends no FIN, and the browser keeps the socket "open" for minutes.
// So the page listens. A new socket must say `hello` within HELLO_MS; after that, IDLE_MS
// without any message makes the page send a ping (both sockets answer `{"type": "ping"}`
// with a `pong`, docs/realtime.md), and a socket that says nothing for ANSWER_MS more is
// taken for dead, so the page reconnects at once: a dead socket is noticed within
// IDLE_MS + ANSWER_MS, and within ANSWER_MS of the browser saying its network went. A ping costs the server one small message (it allows
// REALTIME_MAX_MESSAGES_PER_10S, 200, per socket).

export const HELLO_MS = 10000;
export const IDLE_MS = 3000;
export const ANSWER_MS = 2000;
const CHECK_EVERY_MS = 500;

export class Heartbeat {
  /** ping(): send a ping on the socket; dead(): the socket did not answer. */
  constructor({ ping, dead }) {
    this.ping = ping;
    this.dead = dead;
    this.timer = null;
  }

  /** A socket was just created: its `hello` is due within HELLO_MS. */
  opened() {
    this.stop();
    this.greeted = false;
    this.openedAt = Date.now();
    this.timer = window.setInterval(() => this.check(), CHECK_EVERY_MS);
  }

  /** Its `hello`: from now on, silence is answered with pings. */
  hello() {
    this.greeted = true;
    this.heard();
  }

  /** Any message from the server: the socket is alive. */
  heard() {
    this.heardAt = Date.now();
    this.pingedAt = null;
  }

  /** The browser says its network went: ask now rather than after IDLE_MS of silence. */
  suspect() {
    if (this.timer === null || !this.greeted || this.pingedAt !== null) return;
    this.pingedAt = Date.now();
    this.ping();
  }

  stop() {
    window.clearInterval(this.timer);
    this.timer = null;
  }

  check() {
    const now = Date.now();
    if (!this.greeted) {
      if (now - this.openedAt >= HELLO_MS) this.died();
      return;
    }
    if (this.pingedAt !== null) {
      if (now - this.pingedAt >= ANSWER_MS) this.died();
      return;
    }
    if (now - this.heardAt < IDLE_MS) return;
    this.pingedAt = now;
    this.ping();
  }

  died() {
    this.stop();
    this.dead();
  }
}
