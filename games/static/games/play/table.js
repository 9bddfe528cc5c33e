// The table: a player's game (their view: own cards, piles, the opponent's card count,
// their legal actions) or a watcher's public table (R11). Views come from the socket
// (docs/realtime.md) and, when it is not open, from REST; moves go over the socket when it
// is open, else over REST, always with `expected_seq` = the view's `seq`.

import { api, ApiError } from "./api.js";
import { cardFace, cardName, cardShort, compareCards } from "./cards.js";
import { moveProblem, moveRefusedOffline } from "./connection.js";
import {
  AutoPlayedBanner, presenceBadge, renderBanks, showBadge, StageWatch, stageOf, tickBanks, timeLeft,
} from "./clocks.js";
import { DiscardHistory } from "./discard-history.js";
import { $, flash, h } from "./dom.js";
import {
  AUTO_MARK, AUTO_MARK_TITLE, componentLabel, countdown, FORFEIT_REASONS, money, OUTCOMES,
  plainMoney, signedMoney, stoppingText, TURN_STAGES, VARIANTS, voidedText,
} from "./format.js";
import { HandOrder } from "./hand-order.js";
import { knockHint } from "./knock-hint.js";
import { Live } from "./live.js";
import { Motion } from "./motion.js";
import { movesThrough } from "./moves.js";
import { showNotice, showProblem } from "./notices.js";
import { openReport } from "./report.js";
import { remember } from "./session.js";
import { andList, formatNumber, gettext, ngettext, pgettext } from "./i18n.js";

const ACTION_TIMEOUT_MS = 8000;
// The moves kept (the current hand's, whatever its length) and shown (the latest).
const LOG_KEPT = 120;
const LOG_SHOWN = 30;
const SETTLEMENT_RETRY_MS = [1000, 2000, 4000, 8000, 15000, 30000];
// Voided: R13's interrupted game, or a game stopped after its hand by a player's session end.
const OVER = ["finished", "settled", "aborted", "voided"];
const STOPPING_RECHECK_MS = 3000;
const SHORTCUTS = { t: "take_upcard", p: "pass", s: "draw_stock", d: "draw_discard", b: "big_gin" };
const BOT_LEVELS = ["easy", "strong"]; // the house bot's levels (docs/engine.md)

/* How a house bot's level reads on the page. */
function botLevelName(level) {
  return level === "strong" ? pgettext("house bot level", "strong") : pgettext("house bot level", "easy");
}

/** A card face: a button in the player's hand, an image elsewhere. */
export function cardElement(text, { button = false, classes = [], attrs = {} } = {}) {
  const face = cardFace(text);
  const body = [
    h("span", { class: "card-rank", "aria-hidden": "true", text: face.rank }),
    h("span", { class: "card-suit", "aria-hidden": "true", text: face.symbol }),
  ];
  const common = {
    class: ["card", face.red ? "red" : "black", ...classes],
    dataset: { card: text },
    ...attrs,
  };
  if (button) return h("button", { type: "button", "aria-label": cardName(text), ...common }, body);
  return h("span", { role: "img", "aria-label": cardName(text), ...common }, body);
}

function cardBacks(count, label) {
  const shown = Math.min(count, 11);
  return h("div", { class: "backs", role: "img", "aria-label": label },
    Array.from({ length: shown }, () => h("span", { class: "card back", "aria-hidden": "true" })));
}

/** A meld for screen readers: "Run: Seven of spades, Eight of spades, Nine of spades". */
function meldLabel(meld) {
  const cards = meld.cards.map(cardName).join(", ");
  return meld.kind === "run" ? gettext("Run: %(cards)s", { cards }) : gettext("Set: %(cards)s", { cards });
}

export class TableScreen {
  constructor(main, { matchId, watch = false, go, refreshWallet, protection = null, back = null }) {
    this.main = main;
    this.matchId = matchId;
    this.watch = watch;
    // The page that sent the player here (a tournament's: docs/play.md "Tournaments").
    this.back = back;
    this.go = go;
    this.refreshWallet = refreshWallet;
    this.protection = watch ? null : protection; // player protection (protection.js)
    this.voidReason = null; // the match_voided event's reason
    this.botLevel = ""; // the house bot's level chosen while waiting ("": the room's)
    this.view = null;
    this.live = null;
    this.presence = {};
    this.log = [];
    this.seenEvents = new Set();
    this.selected = null;
    this.pending = null;
    this.waiting = new Map();
    this.counter = 0;
    this.statement = null;
    this.statementTries = 0;
    this.confirmResign = false;
    this.showdownClosed = new Set();
    this.stageWatch = new StageWatch();
    this.autoPlayed = new AutoPlayedBanner(matchId);
    this.onKey = (event) => this.key(event);
    this.order = new HandOrder(matchId, () => this.render(this.view));
    this.pile = new DiscardHistory((seat) => (seat === this.seat ? null : this.name(seat)));
    this.motion = new Motion();
  }

  // --- Life cycle ---------------------------------------------------------------------------
  async start() {
    this.main.replaceChildren(h("p", { class: "notice", text: gettext("Opening the table…") }));
    let view;
    try {
      view = await api(this.watch ? `matches/${this.matchId}/watch` : `matches/${this.matchId}/view`);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status !== 401 && !this.stopped) {
        showProblem(error.problem);
        this.go({ screen: "lobby" });
      }
      return;
    }
    if (this.stopped) return; // the player went elsewhere meanwhile
    this.apply(view, []);
    // The socket continues from the view's seq; what led up to it comes from the feed.
    this.loadMoves(view.seq);
    this.live = new Live({
      matchId: this.matchId,
      watch: this.watch,
      after: view.seq,
      handlers: {
        message: (message) => this.message(message),
        fatal: (why, problem) => this.fatal(why, problem),
      },
    });
    this.live.start();
    // A session that ends or reaches its limit shows at the table (the game stops after the hand).
    if (this.protection) this.unwatchProtection = this.protection.onChange(() => this.render(this.view));
    document.addEventListener("keydown", this.onKey);
    this.ticker = window.setInterval(() => this.tick(), 250);
  }

  stop() {
    this.stopped = true;
    if (this.live) this.live.stop();
    if (this.unwatchProtection) this.unwatchProtection();
    window.clearInterval(this.ticker);
    window.clearTimeout(this.statementTimer);
    document.removeEventListener("keydown", this.onKey);
    this.pile.stop();
    for (const waiter of this.waiting.values()) waiter.reject(null);
    this.waiting.clear();
  }

  fatal(why, problem) {
    // The socket's `error` message (shown as it arrived) says why; without one, the page does.
    if (!problem && why === "not-found") showNotice(gettext("This game is not open to you."));
    else if (!problem) showNotice(gettext("This page may not open the game's live connection."));
  }

  // --- Messages from the socket ---------------------------------------------------------------
  message(message) {
    switch (message.type) {
      case "hello":
        this.presence = Object.fromEntries((message.presence || []).map((p) => [p.seat, p.connected]));
        this.apply(message.view, []);
        break;
      case "events":
        this.apply(message.view, message.events || []);
        break;
      case "view":
        this.apply(message.view, []);
        break;
      case "presence":
        this.presence = Object.fromEntries((message.presence || []).map((p) => [p.seat, p.connected]));
        this.renderPresence();
        break;
      case "action_result": {
        const waiter = this.waiting.get(message.id);
        if (waiter) waiter.resolve(message);
        break;
      }
      case "error": {
        const waiter = message.id ? this.waiting.get(message.id) : null;
        if (waiter) waiter.reject(message.problem);
        else if (message.problem) showProblem(message.problem);
        break;
      }
      default:
        break;
    }
  }

  // --- State ----------------------------------------------------------------------------------
  get seat() {
    return this.watch || !this.view ? null : this.view.match.your_seat;
  }

  get hand() {
    return this.view && this.view.hand;
  }

  /** 2 (heads-up), or 3-4 players (R12). */
  get seatCount() {
    return (this.view && this.view.match.seats) || 2;
  }

  get multi() {
    return this.seatCount > 2;
  }

  /** The other seats, clockwise from the player's left (a watcher: every seat). */
  get others() {
    const all = Array.from({ length: this.seatCount }, (_, seat) => seat);
    if (this.watch) return all;
    return all.map((_, step) => (this.seat + 1 + step) % this.seatCount).filter((seat) => seat !== this.seat);
  }

  /** R13: the seats whose time bank shows: the player's own first, then the others. */
  get clockSeats() {
    const seats = this.watch ? this.others : [this.seat, ...this.others];
    return seats.filter((seat) => !(this.multi && this.isOut(seat)));
  }

  /** R12: the seats that forfeited, from the view (hand) or the match. */
  isOut(position) {
    const hand = this.hand;
    if (hand && hand.out && hand.out.includes(position)) return true;
    return (this.view.match.forfeits || []).some((entry) => entry.seat === position);
  }

  get legal() {
    const hand = this.hand;
    if (this.watch || !hand || hand.status !== "in_progress") return [];
    return hand.legal_actions || [];
  }

  isLegal(kind, card = null) {
    return this.legal.some((action) => action.kind === kind && (card === null || action.card === card));
  }

  /** Each player's points: "You 12 · Bob 30". */
  pointsList(points) {
    return this.view.match.players
      .map((p) => pgettext("a player's points", "%(name)s %(points)s", { name: this.name(p.position), points: formatNumber(points[p.position]) }))
      .join(" · ");
  }

  name(position) {
    if (position === null || position === undefined) return gettext("Nobody");
    if (position === this.seat) return gettext("You");
    const player = this.view.match.players.find((p) => p.position === position);
    return (player && player.display_name) || gettext("Seat %(number)s", { number: position + 1 });
  }

  apply(view, events) {
    if (!view) return;
    if (this.view && view.seq < this.view.seq) {
      this.remember(events);
      return; // an older view than the one on screen (a late REST answer)
    }
    const previous = this.view;
    this.view = view;
    const fresh = this.remember(events);
    if (this.pending && this.pending.expectedSeq !== undefined && view.seq > this.pending.expectedSeq) {
      this.pending = null; // the game moved on past the move in flight: it was applied
    }
    const hand = view.hand;
    if (hand && hand.hand && this.selected && !hand.hand.includes(this.selected)) this.selected = null;
    this.render(previous);
    this.animate(previous, previous && view.seq > previous.seq ? fresh : []); // not the feed's past
    this.pile.update(hand);
    if (!this.watch) this.autoPlayed.update(view, this.seat);
    const wasOver = previous && OVER.includes(previous.match.status);
    if (OVER.includes(view.match.status) && !wasOver) this.refreshWallet();
    // A tournament's match has no statement: the tournament pays its prizes (R14).
    if (!this.watch && !view.match.is_tournament && ["finished", "settled"].includes(view.match.status) && !this.statement) {
      this.awaitStatement(view.match.status === "settled");
    }
    this.followProtection(previous, view);
  }

  /** Player protection reads the session again when the game changes status (a buy-in, a
   * game over, stopped or voided), and when the player's own turn is paused for a reality
   * check the page does not show (its push was lost). */
  followProtection(previous, view) {
    if (!this.protection) return;
    const hand = view.hand;
    const paused = hand && hand.status === "in_progress" && hand.turn_stage === "pause" && hand.to_act === this.seat;
    if (paused && !this.protection.checkShown && this.pauseRead !== view.seq) {
      this.pauseRead = view.seq;
      this.protection.tableChanged();
    } else if (previous && previous.match.status !== view.match.status) {
      this.protection.tableChanged();
    }
  }

  /** The moves list rebuilt from the events feed (moves.js): what was played before the
   * page rendered, on opening the table and on a reload. Quiet when it fails: the socket
   * brings every move from now on. */
  async loadMoves(through) {
    let events;
    try {
      events = await movesThrough({ matchId: this.matchId, watch: this.watch, through, keep: LOG_KEPT });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return;
    }
    if (this.stopped || !this.view) return;
    this.remember(events);
    const shown = $("#log", this.main);
    if (shown) shown.closest("section").replaceWith(this.renderLog());
  }

  remember(events) {
    const fresh = [];
    for (const event of events || []) {
      if (this.seenEvents.has(event.seq)) continue;
      this.seenEvents.add(event.seq);
      if (event.kind === "match_voided") this.voidReason = event.reason || null;
      this.pile.seen(event);
      fresh.push(event);
      const text = this.describe(event);
      if (text) {
        this.log.unshift({
          seq: event.seq,
          text,
          theirs: !this.watch && event.seat !== null && event.seat !== undefined && event.seat !== this.seat,
          auto: Boolean(event.auto), // R13: played by the platform for an absent player
        });
      }
    }
    // Newest first, whatever order they came in (the feed's past may land after the
    // socket's first moves).
    this.log = this.log.sort((a, b) => b.seq - a.seq).slice(0, LOG_KEPT);
    return fresh;
  }

  /** Whether `seat` is the player's own (a watcher has none). */
  mine(seat) {
    return !this.watch && seat !== null && seat !== undefined && seat === this.seat;
  }

  describe(event) {
    // The player's own moves have sentences of their own: a verb agrees with its subject in
    // most languages, so "You" never fills a placeholder that a verb follows.
    return this.mine(event.seat) ? this.describeOwn(event) : this.describeAny(event);
  }

  describeOwn(event) {
    const card = event.card ? cardShort(event.card) : null;
    switch (event.kind) {
      case "take_upcard":
        return card ? gettext("You took the upcard %(card)s", { card }) : gettext("You took the upcard");
      case "pass":
        return gettext("You passed on the upcard");
      case "draw_stock":
        return card ? gettext("You drew %(card)s from the stock", { card }) : gettext("You drew from the stock");
      case "draw_discard":
        return gettext("You took %(card)s from the discard pile", { card });
      case "discard":
        return gettext("You discarded %(card)s", { card });
      case "knock":
        return gettext("You knocked");
      case "big_gin":
        return gettext("You went Big Gin");
      case "forfeit":
        return gettext("You forfeited the game (%(reason)s)", { reason: FORFEIT_REASONS[event.reason] || event.reason });
      default:
        return this.describeAny(event);
    }
  }

  describeAny(event) {
    const who = this.name(event.seat);
    const card = event.card ? cardShort(event.card) : null;
    switch (event.kind) {
      case "hand_dealt":
        if (this.mine(event.dealer)) return gettext("Hand %(number)s dealt by you", { number: event.number || event.hand });
        return gettext("Hand %(number)s dealt by %(dealer)s", { number: event.number || event.hand, dealer: this.name(event.dealer) });
      case "take_upcard":
        return card ? gettext("%(who)s took the upcard %(card)s", { who, card }) : gettext("%(who)s took the upcard", { who });
      case "pass":
        return gettext("%(who)s passed on the upcard", { who });
      case "draw_stock":
        return card ? gettext("%(who)s drew %(card)s from the stock", { who, card }) : gettext("%(who)s drew from the stock", { who });
      case "draw_discard":
        return gettext("%(who)s took %(card)s from the discard pile", { who, card });
      case "discard":
        return gettext("%(who)s discarded %(card)s", { who, card });
      case "knock":
        return gettext("%(who)s knocked", { who });
      case "big_gin":
        return gettext("%(who)s went Big Gin", { who });
      case "stock_reshuffled":
        return gettext("The discard pile was shuffled into a new stock");
      case "hand_ended": {
        const outcome = event.outcome || {};
        if (outcome.kind === "void") return gettext("Hand %(number)s was void", { number: event.hand });
        if (outcome.penalties) {
          // R12: points against, per player.
          if (outcome.kind === "forfeit") return gettext("Hand %(number)s ended: everybody else left", { number: event.hand });
          const charged = outcome.penalties
            .map((points, seat) => (points ? pgettext("a player's points", "%(name)s %(points)s", { name: this.name(seat), points: formatNumber(points) }) : null))
            .filter(Boolean);
          const none = pgettext("points against", "none");
          if (this.mine(outcome.winner)) {
            return gettext("Hand %(number)s ended: %(outcome)s, won by you; points against: %(charged)s", {
              number: event.hand,
              outcome: OUTCOMES[outcome.kind] || outcome.kind,
              charged: charged.length ? andList(charged) : none,
            });
          }
          return gettext("Hand %(number)s ended: %(outcome)s, won by %(winner)s; points against: %(charged)s", {
            number: event.hand,
            outcome: OUTCOMES[outcome.kind] || outcome.kind,
            winner: this.name(outcome.winner),
            charged: charged.length ? andList(charged) : none,
          });
        }
        const outcomeText = OUTCOMES[outcome.kind] || outcome.kind;
        if (outcome.winner === null || outcome.winner === undefined) {
          return gettext("Hand %(number)s ended: %(outcome)s, nobody scores", { number: event.hand, outcome: outcomeText });
        }
        if (outcome.winner === this.seat) {
          return ngettext("Hand %(number)s ended: %(outcome)s, you score %(count)s point", "Hand %(number)s ended: %(outcome)s, you score %(count)s points", outcome.points, { number: event.hand, outcome: outcomeText });
        }
        return ngettext("Hand %(number)s ended: %(outcome)s, %(winner)s scores %(count)s point", "Hand %(number)s ended: %(outcome)s, %(winner)s scores %(count)s points", outcome.points, { number: event.hand, outcome: outcomeText, winner: this.name(outcome.winner) });
      }
      case "forfeit":
        return gettext("%(who)s forfeited the game (%(reason)s)", { who, reason: FORFEIT_REASONS[event.reason] || event.reason });
      case "match_finished":
        return gettext("The game is over");
      case "match_voided":
        return gettext("The game was voided: every stake returned");
      default:
        return null;
    }
  }

  // --- Moves ----------------------------------------------------------------------------------
  async act(kind, card = null) {
    if (this.watch || !this.view) return;
    if (this.pending) return; // one move at a time: the view moves on before the next
    const hand = this.hand;
    if (!hand || hand.status !== "in_progress" || this.view.match.status !== "running") return;
    if (moveRefusedOffline()) return; // says so; nothing is sent, nothing changes
    const expectedSeq = this.view.seq;
    const mine = { kind, card, expectedSeq };
    this.pending = mine;
    this.renderBusy();
    try {
      const answer = await this.send({ type: "action", kind, card, expected_seq: expectedSeq },
        () => api(`matches/${this.matchId}/actions`, {
          method: "POST", body: { kind, card, expected_seq: expectedSeq },
        }));
      if (answer && answer.view) {
        if (this.pending === mine) this.pending = null;
        this.apply(answer.view, []);
      } else if (this.pending === mine) {
        if (answer && answer.applied && answer.seq > this.view.seq) {
          // Applied; its view is on its way in an `events` message (apply() clears this).
          window.setTimeout(() => { if (this.pending === mine) this.refresh(); }, 3000);
        } else {
          this.pending = null;
        }
      }
    } catch (problem) {
      if (this.pending === mine) this.pending = null;
      if (problem) showProblem(moveProblem(problem));
    }
    this.renderBusy();
  }

  async resign() {
    if (moveRefusedOffline()) return; // the confirmation stays, for when the connection is back
    this.confirmResign = false;
    if (this.pending) return;
    const expectedSeq = this.view.seq;
    this.pending = { kind: "resign" };
    this.renderBusy();
    try {
      const answer = await this.send({ type: "resign" },
        () => api(`matches/${this.matchId}/resign`, { method: "POST", body: { expected_seq: expectedSeq } }));
      this.pending = null;
      if (answer && answer.view) this.apply(answer.view, []);
      else this.render(this.view);
    } catch (problem) {
      this.pending = null;
      if (problem) showProblem(moveProblem(problem));
      this.render(this.view);
    }
  }

  /**
   * Over the socket when it is open (answered by action_result, or error with the problem);
   * else, or when the socket does not answer in time, over REST (a retry at the same
   * expected_seq is answered with the current view and applies nothing). Resolves to
   * {view} (REST) or the action_result; rejects with a problem.
   */
  send(message, rest) {
    const viaRest = async () => {
      try {
        return { view: await rest() };
      } catch (error) {
        if (error instanceof ApiError) throw error.problem;
        throw error;
      }
    };
    if (!this.live || !this.live.open) return viaRest();
    this.counter += 1;
    const id = `m${this.counter}`;
    return new Promise((resolve, reject) => {
      const timer = window.setTimeout(() => {
        this.waiting.delete(id);
        viaRest().then(resolve, reject);
      }, ACTION_TIMEOUT_MS);
      this.waiting.set(id, {
        resolve: (value) => { window.clearTimeout(timer); this.waiting.delete(id); resolve(value); },
        reject: (problem) => { window.clearTimeout(timer); this.waiting.delete(id); reject(problem); },
      });
      if (!this.live.send({ ...message, id })) {
        window.clearTimeout(timer);
        this.waiting.delete(id);
        viaRest().then(resolve, reject);
      }
    });
  }

  async refresh() {
    try {
      const view = await api(this.watch ? `matches/${this.matchId}/watch` : `matches/${this.matchId}/view`);
      this.pending = null;
      this.apply(view, []);
    } catch (error) {
      if (error instanceof ApiError && error.status !== 401) showProblem(error.problem);
    }
  }

  /** R10: the player's statement exists once the game is settled. The socket pushes the
   * settled view; until it arrives (a push lost, long polling) the page reads the view again
   * now and then, never the statement before it exists. */
  awaitStatement(settled) {
    window.clearTimeout(this.statementTimer);
    if (this.statement) return;
    if (settled) {
      this.loadStatement();
      return;
    }
    const delay = SETTLEMENT_RETRY_MS[Math.min(this.statementTries, SETTLEMENT_RETRY_MS.length - 1)];
    this.statementTries += 1;
    if (this.statementTries < 30) this.statementTimer = window.setTimeout(() => this.refresh(), delay);
  }

  async loadStatement() {
    if (this.statement || this.loadingStatement) return;
    this.loadingStatement = true;
    try {
      const body = await api(`settlements/${this.matchId}`);
      this.statement = body.statement;
      this.renderStatement();
      // The game's money has moved: the header's figures follow (the player's socket says
      // so too; this covers a push lost while it reconnected).
      this.refreshWallet();
    } catch (error) {
      if (!(error instanceof ApiError) || error.status === 401) return;
      showProblem(error.problem);
    } finally {
      this.loadingStatement = false;
    }
  }

  /** R14: every seat is reserved for its player; the game starts when all have taken them,
   * and whoever does not come in time forfeits. Nobody leaves before (the tournament runs
   * the table), and no house bot sits here. */
  renderTournamentWaiting() {
    return h("section", { class: "waiting", id: "tournament-waiting", "aria-labelledby": "waiting-title" },
      h("h3", { id: "waiting-title", text: this.multi ? gettext("Waiting for the other players to take their seats…") : gettext("Waiting for your opponent to take their seat…") }),
      h("p", { text: gettext("The game starts when every player has taken their seat. A player who does not come in time forfeits.") }));
  }

  /** Under a game's result: the statement is on its way, or, at a tournament, where to see
   * what comes next. */
  resultNote(match) {
    if (this.watch) return null;
    if (match.is_tournament) {
      return h("p", { class: "hint", id: "tournament-next", text: gettext("The tournament goes on: its page shows who went on and what you won.") });
    }
    return h("p", { class: "hint", id: "statement-wait", text: match.status === "settled" ? "" : gettext("Settling the game…") });
  }

  /** Back to the tournament page that sent the player here (or the tournament lobby), in
   * the page's language; the table page opens its lobby next time. */
  backToTournament() {
    const address = new URL(this.back || "/play/tournaments", window.location.origin);
    const language = new URLSearchParams(window.location.search).get("lang");
    if (language) address.searchParams.set("lang", language);
    remember({ screen: "lobby" });
    window.location.assign(address.pathname + address.search);
  }

  async leaveTable() {
    try {
      await api(`tables/${this.view.match.table_id}/leave`, { method: "POST" });
      this.go({ screen: "lobby" });
    } catch (error) {
      if (error instanceof ApiError && error.status !== 401) showProblem(error.problem);
    }
  }

  async inviteBot() {
    // The house bot's level (docs/engine.md "Bot levels"): the one chosen beside the button.
    const body = this.botLevel ? { bot_level: this.botLevel } : undefined;
    try {
      await api(`tables/${this.view.match.table_id}/bot`, { method: "POST", body });
      await this.refresh();
    } catch (error) {
      if (error instanceof ApiError && error.status !== 401) showProblem(error.problem);
    }
  }

  // --- Keyboard -------------------------------------------------------------------------------
  key(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    if (this.watch || !this.hand || $("dialog[open]")) return;
    const key = event.key.toLowerCase();
    if (key in SHORTCUTS) {
      event.preventDefault();
      this.act(SHORTCUTS[key]);
    } else if (key === "k") {
      event.preventDefault();
      const card = this.selected;
      if (!card) {
        showNotice(gettext("Choose the card to put down first"), gettext("Move to it with the arrow keys, then press K."));
        return;
      }
      this.act("knock", card);
    }
  }

  handKey(event) {
    if (this.order.keyMove(event, this.hand)) return;
    const cards = Array.from(this.main.querySelectorAll("#hand .card"));
    const index = cards.indexOf(event.target.closest(".card"));
    if (index < 0) return;
    let next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = Math.min(index + 1, cards.length - 1);
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = Math.max(index - 1, 0);
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = cards.length - 1;
    if (next === null) return;
    event.preventDefault();
    this.select(cards[next].dataset.card, true);
  }

  select(card, focus = false) {
    this.selected = card;
    for (const el of this.main.querySelectorAll("#hand .card")) {
      const on = el.dataset.card === card;
      el.tabIndex = on ? 0 : -1;
      el.classList.toggle("selected", on);
      el.setAttribute("aria-pressed", on ? "true" : "false");
      if (on && focus) el.focus();
    }
  }

  cardClicked(card) {
    this.select(card);
    const hand = this.hand;
    if (hand && hand.your_turn && hand.phase === "discard") this.act("discard", card);
  }

  // --- Rendering ------------------------------------------------------------------------------
  render(previous) {
    this.motion.measure(this.main);
    const focused = document.activeElement;
    const focusKey = focused && focused.dataset ? focused.dataset.key : null;
    const handCards = Array.from(this.main.querySelectorAll("#hand .card"));
    const handIndex = handCards.indexOf(focused);
    const { match } = this.view;
    const screen = h("section", {
      class: ["table-screen", this.watch ? "watching" : "playing"],
      "aria-labelledby": "table-title",
      dataset: { matchId: match.id, matchStatus: match.status, seq: this.view.seq },
    },
    this.renderHead(),
    this.renderStopping(),
    match.status === "waiting" ? this.renderWaiting() : null,
    match.status !== "waiting" ? this.renderBoard() : null,
    this.renderShowdown(),
    this.renderResult(),
    this.watch || match.is_tournament ? null : h("section", { id: "statement", class: "statement", "aria-live": "polite" }),
    this.renderLog(),
    this.renderFooter());
    this.main.replaceChildren(screen);
    this.main.setAttribute("aria-busy", "false");
    if (this.statement) this.renderStatement();
    this.renderBusy();
    if (focusKey) {
      // Focus stays where the player was; a card that left the hand (discarded) hands it
      // to the card now in its place, so keyboard play goes on without the mouse.
      let again = this.main.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
      const cards = this.main.querySelectorAll("#hand .card");
      if (!again && handIndex >= 0 && cards.length) again = cards[Math.min(handIndex, cards.length - 1)];
      if (again && !again.disabled) again.focus();
    }
  }

  renderHead() {
    const { match } = this.view;
    const variant = VARIANTS[match.variant] || match.variant;
    const points = match.players
      .map((p) => pgettext("a player's points", "%(name)s %(points)s", { name: this.name(p.position), points: formatNumber(match.hand_points[p.position]) }))
      .join(" · ");
    const target = match.target ? formatNumber(match.target) : null;
    let score;
    if (match.variant === "ftk") score = gettext("First to go out wins");
    else if (this.multi) score = gettext("Points against: %(points)s (to %(target)s)", { points, target });
    else score = target ? gettext("%(points)s (to %(target)s)", { points, target }) : points;
    const stake = match.variant === "money"
      ? gettext("%(stake)s a point", { stake: money(match.stake_per_point) })
      : match.stake ? gettext("Stake %(stake)s", { stake: money(match.stake) }) : null;
    let subtitle = variant;
    if (match.is_practice) subtitle = gettext("%(variant)s · practice", { variant });
    else if (match.is_tournament) subtitle = gettext("%(variant)s · tournament", { variant });
    return h("header", { class: "table-head" },
      h("h2", { id: "table-title" },
        this.watch ? gettext("Watching table %(table)s", { table: match.table_id }) : gettext("Table %(table)s", { table: match.table_id }),
        h("span", { class: "subtitle", text: ` · ${subtitle}` })),
      h("p", { class: "table-facts" },
        stake ? h("span", { text: stake }) : null,
        h("span", { class: "score", id: "score", text: score })));
  }

  renderWaiting() {
    const { match } = this.view;
    if (match.is_tournament) return this.renderTournamentWaiting();
    return h("section", { class: "waiting", "aria-labelledby": "waiting-title" },
      h("h3", { id: "waiting-title", text: this.multi ? gettext("Waiting for players…") : gettext("Waiting for an opponent…") }),
      h("p", {
        text: this.multi
          ? gettext("The game starts when all %(seats)s seats are taken (%(seated)s seated).", { seats: formatNumber(this.seatCount), seated: formatNumber(match.players.length) })
          : gettext("The game starts as soon as a second player sits down."),
      }),
      this.watch ? null : h("div", { class: "button-row" },
        match.is_practice ? h("label", { for: "bot-level", text: gettext("House bot's level") }) : null,
        match.is_practice ? h("select", {
          id: "bot-level",
          name: "bot_level",
          // The choice outlives a re-render (a push, the socket's hello), which rebuilds it.
          onchange: (event) => { this.botLevel = event.target.value; },
        },
        h("option", { value: "", text: pgettext("house bot level", "the room's") }),
        ...BOT_LEVELS.map((value) => h("option", { value, text: botLevelName(value), selected: value === this.botLevel }))) : null,
        match.is_practice ? h("button", { type: "button", class: "button primary", onclick: () => this.inviteBot() }, this.multi ? gettext("Add a house bot") : gettext("Play the house bot")) : null,
        h("button", { type: "button", class: "button", onclick: () => this.leaveTable() }, gettext("Leave the table"))));
  }

  renderPlayerBox(position) {
    const hand = this.hand;
    const count = hand && hand.card_counts ? hand.card_counts[position] : 0;
    const badge = presenceBadge(this.view, position, this.presence[position]);
    const turn = hand && hand.status === "in_progress" && hand.to_act === position;
    const name = this.name(position);
    const out = this.multi && this.isOut(position);
    const { match } = this.view;
    const player = match.players.find((p) => p.position === position);
    const level = player && player.bot_level ? botLevelName(player.bot_level) : null;
    return h("div", {
      class: ["player-box", turn ? "to-act" : null],
      id: `seat-${position}`,
      dataset: { seat: position },
    },
    h("div", { class: "player-name" },
      h("strong", { text: name }),
      level ? h("span", { class: "bot-level", text: gettext("level: %(level)s", { level }) }) : null,
      badge ? h("span", {
        class: ["presence", badge.state],
        id: `presence-${position}`,
        dataset: { state: badge.state },
        text: badge.text,
      }) : null,
      turn ? h("span", { class: "turn-badge", text: gettext("to play") }) : null,
      out ? h("span", { class: "out-badge", text: gettext("left the game") }) : null),
    this.multi && match.variant !== "ftk"
      ? h("p", { class: "penalty", id: `penalty-${position}`, text: gettext("Points against: %(points)s", { points: formatNumber(match.hand_points[position]) }) })
      : null,
    hand && hand.status === "in_progress" && !out
      ? cardBacks(count, position === this.seat
        ? ngettext("You hold %(count)s card", "You hold %(count)s cards", count)
        : ngettext("%(name)s holds %(count)s card", "%(name)s holds %(count)s cards", count, { name }))
      : null);
  }

  renderBoard() {
    const hand = this.hand;
    const others = this.others;
    const top = hand && hand.discard_pile.length ? hand.discard_pile[hand.discard_pile.length - 1] : null;
    const board = h("section", { class: "board", "aria-label": pgettext("the card table", "Table") },
      this.watch || this.multi
        ? h("div", { class: ["players", this.multi ? "many" : null] }, others.map((seat) => this.renderPlayerBox(seat)))
        : this.renderPlayerBox(others[0]),
      hand ? h("div", { class: "piles" },
        h("div", { class: "pile stock", id: "stock" },
          cardBacks(Math.min(hand.stock_count, 1), gettext("Stock")),
          h("span", { class: "pile-label", id: "stock-count", text: ngettext("Stock: %(count)s card", "Stock: %(count)s cards", hand.stock_count) })),
        h("div", { class: "pile discard", id: "discard" },
          top ? cardElement(top, { attrs: { id: "discard-top" } }) : h("span", { class: "card empty", "aria-hidden": "true" }),
          h("span", { class: "pile-label", text: hand.phase === "upcard_offer"
            ? gettext("Upcard")
            : ngettext("Discard pile: %(count)s card", "Discard pile: %(count)s cards", hand.discard_pile.length) }),
          hand.discard_pile.length > 1 ? this.pile.button() : null)) : null,
      hand ? this.renderTurn() : null,
      hand && this.view.match.status === "running"
        ? renderBanks(this.view, { seats: this.clockSeats, name: (seat) => this.name(seat) }) : null,
      this.watch ? null : this.renderActions(),
      this.watch ? null : this.renderHand());
    return board;
  }

  renderTurn() {
    const hand = this.hand;
    let text;
    if (hand.status !== "in_progress") text = hand.status === "ended" ? gettext("The hand is over") : gettext("The hand was abandoned");
    else if (this.view.match.status !== "running") text = gettext("The game is over");
    else if (!this.watch && hand.your_turn) {
      text = {
        upcard_offer: gettext("Your turn: take the upcard or pass"),
        draw: gettext("Your turn: draw a card"),
        discard: gettext("Your turn: discard a card, or go out"),
      }[hand.phase] || gettext("Your turn");
    } else if (hand.to_act === this.seat) {
      text = gettext("Your turn");
    } else {
      text = gettext("%(who)s's turn", { who: this.name(hand.to_act) });
    }
    // R13: the clock counts down the turn's current stage (the turn, the reconnect grace of a
    // disconnected player, the time bank), named when it is not the turn's own.
    const clock = hand.turn_deadline && hand.status === "in_progress";
    const stage = TURN_STAGES[stageOf(hand)];
    return h("p", { class: "turn-line", id: "turn", role: "status" },
      h("span", { id: "turn-text", text }),
      clock && stage.label ? h("span", { class: "turn-stage", id: "turn-stage", text: stage.label }) : null,
      clock
        ? h("span", { class: "countdown", id: "countdown", "aria-label": stage.clock, dataset: { stage: stageOf(hand) }, text: countdown(timeLeft(hand)) })
        : null);
  }

  renderActions() {
    const hand = this.hand;
    const buttons = [];
    const button = (kind, label, shortcut, extra = {}) => h("button", {
      type: "button",
      class: ["button", "action", extra.primary ? "primary" : null],
      dataset: { action: kind, key: `action-${kind}` },
      "aria-keyshortcuts": shortcut,
      onclick: () => this.act(kind),
    }, label, h("kbd", { "aria-hidden": "true", class: "shortcut", text: shortcut }));
    const top = hand && hand.discard_pile.length ? cardShort(hand.discard_pile[hand.discard_pile.length - 1]) : "";
    if (this.isLegal("take_upcard")) buttons.push(button("take_upcard", gettext("Take the upcard %(card)s", { card: top }), "T", { primary: true }));
    if (this.isLegal("pass")) buttons.push(button("pass", pgettext("the upcard", "Pass"), "P"));
    if (this.isLegal("draw_stock")) buttons.push(button("draw_stock", gettext("Draw from the stock"), "S", { primary: true }));
    if (this.isLegal("draw_discard")) buttons.push(button("draw_discard", gettext("Take %(card)s from the discard pile", { card: top }), "D"));
    if (this.isLegal("big_gin")) buttons.push(button("big_gin", pgettext("the action", "Big Gin"), "B", { primary: true }));
    const knocks = this.legal.filter((action) => action.kind === "knock");
    let goingOut = null;
    if (knocks.length) {
      // R6: every card that may be put down to knock, with the deadwood it leaves (the
      // server's figure, on each knock action).
      const options = knocks
        .map((action) => ({ card: action.card, deadwood: action.deadwood }))
        .sort((a, b) => a.deadwood - b.deadwood || compareCards(a.card, b.card));
      goingOut = h("div", { class: "going-out", role: "group", "aria-labelledby": "going-out-title" },
        h("h3", { id: "going-out-title", text: gettext("Go out") }),
        h("div", { class: "button-row" }, options.map((option) => h("button", {
          type: "button",
          class: ["button", "knock", option.deadwood === 0 ? "gin" : null],
          dataset: { action: "knock", card: option.card, key: `knock-${option.card}` },
          onclick: () => this.act("knock", option.card),
        }, option.deadwood === 0
          ? gettext("Gin: put down %(card)s", { card: cardShort(option.card) })
          : gettext("Knock: put down %(card)s, deadwood %(deadwood)s", { card: cardShort(option.card), deadwood: formatNumber(option.deadwood) })))));
    }
    return h("div", { class: "actions", id: "actions" },
      buttons.length ? h("div", { class: "button-row" }, buttons) : null,
      goingOut);
  }

  renderHand() {
    const hand = this.hand;
    if (!hand || !hand.hand || hand.status !== "in_progress") return null;
    // The server's arrangement of the player's own cards (R2): melds, deadwood cards and,
    // with 11 cards, the discard it assumes. The page groups them as given.
    const melds = hand.melds;
    const deadCards = hand.deadwood_cards;
    const bestDiscard = hand.best_discard;
    const discardPhase = hand.your_turn && hand.phase === "discard";
    if (!this.selected || !hand.hand.includes(this.selected)) this.selected = null;
    const mine = this.order.cards(hand); // the player's own order, when they made one
    const order = mine || [...melds.flatMap((meld) => meld.cards), ...deadCards, ...(bestDiscard ? [bestDiscard] : [])];
    const focusable = this.selected || order[0];
    const card = (text, role) => {
      const taken = hand.taken_from_discard === text;
      const el = cardElement(text, {
        button: true,
        classes: [role, taken ? "taken" : null, text === this.selected ? "selected" : null],
        attrs: {
          tabindex: text === focusable ? "0" : "-1",
          "aria-pressed": text === this.selected ? "true" : "false",
          "aria-disabled": discardPhase && taken ? "true" : null,
          title: taken ? gettext("Taken from the pile this turn: it cannot go back (R5)") : null,
          dataset: { card: text, key: `card-${text}` },
          onclick: () => this.cardClicked(text),
          onkeydown: (event) => this.handKey(event),
          onfocus: () => this.select(text),
        },
      });
      return el;
    };
    const groups = melds.map((meld) => h("div", {
      class: ["meld", meld.kind],
      role: "group",
      "aria-label": meldLabel(meld),
    }, meld.cards.map((text) => card(text, "melded"))));
    if (deadCards.length) {
      groups.push(h("div", { class: "meld deadwood-group", role: "group", "aria-label": gettext("Deadwood cards") },
        deadCards.map((text) => card(text, "deadwood"))));
    }
    if (bestDiscard) {
      groups.push(h("div", {
        class: "meld best-discard-group",
        role: "group",
        "aria-label": gettext("Best discard: %(card)s", { card: cardName(bestDiscard) }),
        title: gettext("Putting it down leaves deadwood %(deadwood)s", { deadwood: formatNumber(hand.deadwood) }),
      }, card(bestDiscard, "best-discard")));
    }
    const deadwood = bestDiscard
      ? gettext("Deadwood %(deadwood)s after your best discard, %(card)s", { deadwood: formatNumber(hand.deadwood), card: cardShort(bestDiscard) })
      : gettext("Deadwood %(deadwood)s", { deadwood: formatNumber(hand.deadwood) });
    const hint = knockHint(this.view, this.legal);
    return h("section", { class: ["my-hand", hint[1] ? "knockable" : null], "aria-labelledby": "hand-title" },
      h("div", { class: "section-head" },
        h("h3", { id: "hand-title", text: gettext("Your hand") }),
        h("span", { class: "hand-facts" }, h("span", { class: "deadwood-count", id: "deadwood", text: deadwood }), hint),
        this.order.tools(hand)),
      this.order.attach(h("div", { id: "hand", class: ["hand", discardPhase ? "can-discard" : null], dataset: { count: hand.hand.length } },
        mine ? this.order.row(hand, mine, card) : groups), hand),
      discardPhase ? h("p", { class: "hint", text: gettext("Click a card to discard it, or use the arrow keys and Enter.") }) : null);
  }

  showdownSource() {
    const { hand, previous_hand: previous } = this.view;
    if (hand && hand.status === "ended" && hand.outcome) return hand;
    if (previous && previous.outcome && !this.showdownClosed.has(previous.number)) return previous;
    return null;
  }

  renderShowdown() {
    const source = this.showdownSource();
    if (!source) return null;
    const { outcome } = source;
    const number = source.number;
    const close = source === this.view.previous_hand
      ? h("button", {
        type: "button", class: "link-button",
        onclick: () => { this.showdownClosed.add(number); this.render(this.view); },
      }, gettext("Close"))
      : null;
    const head = h("div", { class: "section-head" },
      h("h3", { id: "showdown-title", text: gettext("Showdown: hand %(number)s", { number }) }), close);
    if (outcome.penalties && outcome.result) return this.renderMultiShowdown(source, head);
    if (outcome.kind === "forfeit") {
      return h("section", { class: "showdown", id: "showdown", "aria-labelledby": "showdown-title" }, head,
        h("p", { id: "showdown-summary", text: gettext("Everybody else left: the hand is over (R12).") }));
    }
    if (outcome.kind === "void" || !outcome.result) {
      return h("section", { class: "showdown", id: "showdown", "aria-labelledby": "showdown-title" }, head,
        h("p", { text: gettext("The hand was void (R7): nobody scores, and the same dealer deals again.") }));
    }
    const result = outcome.result;
    const knocker = outcome.knocker;
    const defender = 1 - knocker;
    const nobody = outcome.winner === null || outcome.winner === undefined;
    const by = this.name(knocker);
    const how = OUTCOMES[outcome.kind] || outcome.kind;
    let summary;
    if (this.mine(knocker)) {
      if (nobody) summary = gettext("%(outcome)s by you. Nobody scores this hand.", { outcome: how });
      else if (outcome.winner === this.seat) {
        summary = ngettext("%(outcome)s by you. You score %(count)s point.", "%(outcome)s by you. You score %(count)s points.", outcome.points, { outcome: how });
      } else {
        summary = ngettext("%(outcome)s by you. %(winner)s scores %(count)s point.", "%(outcome)s by you. %(winner)s scores %(count)s points.", outcome.points, { outcome: how, winner: this.name(outcome.winner) });
      }
    } else if (nobody) summary = gettext("%(outcome)s by %(who)s. Nobody scores this hand.", { outcome: how, who: by });
    else if (outcome.winner === this.seat) {
      summary = ngettext("%(outcome)s by %(who)s. You score %(count)s point.", "%(outcome)s by %(who)s. You score %(count)s points.", outcome.points, { outcome: how, who: by });
    } else {
      summary = ngettext("%(outcome)s by %(who)s. %(winner)s scores %(count)s point.", "%(outcome)s by %(who)s. %(winner)s scores %(count)s points.", outcome.points, { outcome: how, who: by, winner: this.name(outcome.winner) });
    }
    const melds = (list, layoffs = []) => h("div", { class: "showdown-melds" },
      list.map((meld, index) => h("div", {
        class: ["meld", meld.kind], role: "group",
        "aria-label": meldLabel(meld),
      },
      meld.cards.map((text) => cardElement(text)),
      layoffs.filter((l) => l.meld_index === index).map((l) => cardElement(l.card, { classes: ["laid-off"], attrs: { title: gettext("laid off") } })))));
    const side = (position, role, list, deadCards, deadwood, extra) => h("div", { class: "showdown-side", dataset: { seat: position } },
      h("h4", { text: role === "knocker"
        ? gettext("%(name)s (knocker)", { name: this.name(position) })
        : gettext("%(name)s (defender)", { name: this.name(position) }) }),
      melds(list, role === "knocker" ? result.layoffs : []),
      deadCards.length ? h("div", { class: "meld deadwood-group", role: "group", "aria-label": gettext("Deadwood cards") },
        deadCards.map((text) => cardElement(text, { classes: ["deadwood"] }))) : null,
      h("p", { class: "deadwood-count", text: gettext("Deadwood %(deadwood)s", { deadwood: formatNumber(deadwood) }) }),
      extra);
    const laidOff = andList(result.layoffs.map((l) => cardShort(l.card)));
    const layoffText = result.layoffs.length
      ? h("p", {
        class: "layoffs",
        text: this.mine(defender)
          ? gettext("You laid off %(cards)s", { cards: laidOff })
          : gettext("%(who)s laid off %(cards)s", { who: this.name(defender), cards: laidOff }),
      })
      : null;
    const { match } = this.view;
    const running = match.variant === "ftk" ? null
      : h("p", { class: "running-score", text: gettext("Running score: %(points)s", { points: this.pointsList(match.hand_points) }) });
    return h("section", { class: "showdown", id: "showdown", "aria-labelledby": "showdown-title", dataset: { hand: number, outcome: outcome.kind } },
      head,
      h("p", { class: "showdown-summary", id: "showdown-summary", text: summary }),
      h("div", { class: "showdown-sides" },
        side(knocker, "knocker", result.knocker_melds, result.knocker_deadwood_cards, result.knocker_deadwood,
          source.knock_card ? h("p", { class: "knock-card" }, gettext("Put down:"), " ", cardElement(source.knock_card)) : null),
        side(defender, "defender", result.defender_melds, result.defender_deadwood_cards, result.defender_deadwood, layoffText)),
      h("p", { class: "hand-score", text: nobody
        ? gettext("Hand score: no points")
        : this.mine(outcome.winner)
          ? ngettext("Hand score: %(count)s point to you", "Hand score: %(count)s points to you", outcome.points)
          : ngettext("Hand score: %(count)s point to %(winner)s", "Hand score: %(count)s points to %(winner)s", outcome.points, { winner: this.name(outcome.winner) }) }),
      running);
  }

  /** R12: the knocker's melds with every opponent's lay-offs, each opponent's arrangement,
   * deadwood and points against, and the running penalty totals. */
  renderMultiShowdown(source, head) {
    const { outcome } = source;
    const result = outcome.result;
    const number = source.number;
    const { match } = this.view;
    const meldRow = (list, layoffs = []) => h("div", { class: "showdown-melds" },
      list.map((meld, index) => h("div", {
        class: ["meld", meld.kind], role: "group",
        "aria-label": meldLabel(meld),
      },
      meld.cards.map((text) => cardElement(text)),
      layoffs.filter((l) => l.meld_index === index).map((l) => cardElement(l.card, {
        classes: ["laid-off"], attrs: { title: this.mine(l.seat) ? gettext("laid off by you") : gettext("laid off by %(who)s", { who: this.name(l.seat) }) },
      })))));
    const deadwoodRow = (cards) => (cards.length
      ? h("div", { class: "meld deadwood-group", role: "group", "aria-label": gettext("Deadwood cards") },
        cards.map((text) => cardElement(text, { classes: ["deadwood"] })))
      : null);
    const deadwoodLine = (seat, deadwood) => gettext("Deadwood %(deadwood)s · points against: %(points)s", {
      deadwood: formatNumber(deadwood), points: formatNumber(result.penalties[seat]),
    });
    // Every opponent's lay-offs onto the knocker's melds, shown there (with who laid off).
    const layoffs = result.opponents.flatMap((reply) => reply.layoffs.map((l) => ({ ...l, seat: reply.seat })));
    const knocker = h("div", { class: "showdown-side", dataset: { seat: result.knocker } },
      h("h4", { text: outcome.kind === "undercut"
        ? gettext("%(name)s (knocked, undercut)", { name: this.name(result.knocker) })
        : gettext("%(name)s (went out)", { name: this.name(result.knocker) }) }),
      meldRow(result.knocker_melds, layoffs.filter((l) => l.meld_index < result.knocker_melds.length)),
      deadwoodRow(result.knocker_deadwood_cards),
      source.knock_card ? h("p", { class: "knock-card" }, gettext("Put down:"), " ", cardElement(source.knock_card)) : null,
      h("p", { class: "deadwood-count", text: deadwoodLine(result.knocker, result.deadwood[result.knocker]) }));
    const opponents = result.opponents.map((reply) => h("div", { class: "showdown-side", dataset: { seat: reply.seat } },
      h("h4", { text: reply.seat === outcome.winner
        ? gettext("%(name)s (undercut)", { name: this.name(reply.seat) })
        : this.name(reply.seat) }),
      meldRow(reply.melds),
      deadwoodRow(reply.deadwood_cards),
      reply.layoffs.length
        ? h("p", { class: "layoffs", text: gettext("Laid off %(cards)s", { cards: andList(reply.layoffs.map((l) => cardShort(l.card))) }) })
        : null,
      h("p", { class: "deadwood-count", text: deadwoodLine(reply.seat, reply.deadwood) })));
    const running = match.variant === "ftk" ? null
      : h("p", { class: "running-score", text: gettext("Points against so far: %(points)s", { points: this.pointsList(match.hand_points) }) });
    const how = OUTCOMES[outcome.kind] || outcome.kind;
    let summary;
    if (this.mine(result.knocker)) {
      summary = outcome.winner === this.seat
        ? gettext("%(outcome)s by you. You win the hand.", { outcome: how })
        : gettext("%(outcome)s by you. %(winner)s wins the hand.", { outcome: how, winner: this.name(outcome.winner) });
    } else {
      summary = outcome.winner === this.seat
        ? gettext("%(outcome)s by %(who)s. You win the hand.", { outcome: how, who: this.name(result.knocker) })
        : gettext("%(outcome)s by %(who)s. %(winner)s wins the hand.", { outcome: how, who: this.name(result.knocker), winner: this.name(outcome.winner) });
    }
    return h("section", { class: "showdown", id: "showdown", "aria-labelledby": "showdown-title", dataset: { hand: number, outcome: outcome.kind } },
      head,
      h("p", { class: "showdown-summary", id: "showdown-summary", text: summary }),
      h("div", { class: ["showdown-sides", "many"] }, knocker, opponents),
      h("p", { class: "hand-score", text: gettext("Hand score (points against): %(points)s", { points: this.pointsList(result.penalties) }) }),
      running);
  }

  forfeitText(forfeit) {
    const reason = FORFEIT_REASONS[forfeit.reason] || forfeit.reason;
    return this.mine(forfeit.seat)
      ? gettext("You forfeited (%(reason)s)", { reason })
      : gettext("%(name)s forfeited (%(reason)s)", { name: this.name(forfeit.seat), reason });
  }

  renderMultiResult(result, headline) {
    // R12: the ranking (shared places listed together), penalty totals and forfeits.
    const { match } = this.view;
    const reason = {
      first_to_knock: this.mine(result.winner_seat)
        ? gettext("You went out first")
        : gettext("%(name)s went out first", { name: this.name(result.winner_seat) }),
      target_reached: gettext("a penalty total reached %(target)s", { target: formatNumber(result.target) }),
      forfeit: gettext("everybody else left the game"),
    }[result.reason] || result.reason;
    let place = 1;
    const places = result.ranking.map((group) => {
      const item = h("li", { dataset: { place } },
        h("strong", { text: `${formatNumber(place)}. ` }),
        andList(group.map((seat) => {
          const left = (result.forfeits || []).find((entry) => entry.seat === seat);
          const facts = match.variant === "ftk" ? []
            : [ngettext("%(count)s point against", "%(count)s points against", result.penalty_totals[seat])];
          facts.push(ngettext("%(count)s hand won", "%(count)s hands won", result.hands_won[seat]));
          if (left) facts.push(FORFEIT_REASONS[left.reason] || left.reason);
          return gettext("%(name)s (%(facts)s)", { name: this.name(seat), facts: facts.join(", ") });
        })));
      place += group.length;
      return item;
    });
    return h("section", { class: "result", id: "result", "aria-labelledby": "result-title", dataset: { winner: result.winner_seat ?? "none" } },
      h("h3", { id: "result-title", text: headline }),
      h("p", { text: gettext("Game over: %(reason)s.", { reason }) }),
      h("ol", { class: "plain-list ranking", id: "ranking" }, places),
      this.resultNote(match));
  }

  /** The player's session ended (or reached its limit) under an end-of-hand profile: the
   * game stops when the hand in play ends (player protection). */
  renderStopping() {
    const { match } = this.view;
    const reason = this.protection && match.status === "running" && !match.is_practice ? this.protection.stoppingReason() : null;
    if (!reason) return null;
    return h("p", { class: "stopping", id: "session-stopping", role: "status", text: stoppingText(reason) });
  }

  /** A game stopped: suspended after its hand (no move reaches it), then voided, every
   * stake back (a player's session end, or R13's interruption). */
  renderStopped() {
    const { match } = this.view;
    const own = this.protection ? this.protection.stoppingReason() : null;
    const reason = this.voidReason || own;
    const voided = match.status === "voided";
    return h("section", { class: "result stopped", id: "result", "aria-labelledby": "result-title", dataset: { status: match.status, reason: reason || "" } },
      h("h3", { id: "result-title", text: voided ? gettext("The game was stopped") : gettext("The game is stopping") }),
      h("p", { id: "stopped-text", text: voided ? voidedText(reason, Boolean(own) && own === reason) : stoppingText(own, { over: true }) }));
  }

  renderResult() {
    const { match } = this.view;
    if (match.status === "voided" || match.status === "suspended") return this.renderStopped();
    if (!OVER.includes(match.status)) return null;
    if (match.status === "aborted") {
      return h("section", { class: "result", id: "result" }, h("h3", { text: gettext("The game did not start") }));
    }
    const result = match.result;
    if (!result) return null;
    let headline;
    if (result.winner_seat === null || result.winner_seat === undefined) headline = gettext("A tie: no money moves");
    else if (result.winner_seat === this.seat) headline = gettext("You won the game!");
    else headline = gettext("%(name)s won the game", { name: this.name(result.winner_seat) });
    if (result.ranking) return this.renderMultiResult(result, headline);
    const reason = {
      first_to_knock: this.mine(result.reached_target)
        ? gettext("You went out first")
        : gettext("%(name)s went out first", { name: this.name(result.reached_target) }),
      target_reached: this.mine(result.reached_target)
        ? gettext("You reached %(target)s", { target: formatNumber(result.target) })
        : gettext("%(name)s reached %(target)s", { name: this.name(result.reached_target), target: formatNumber(result.target) }),
      forfeit: result.forfeit ? this.forfeitText(result.forfeit) : gettext("a forfeit"),
    }[result.reason] || result.reason;
    const scores = match.players.map((p) => {
      const points = ngettext("%(count)s point", "%(count)s points", result.hand_points[p.position]);
      const hands = ngettext("%(count)s hand won", "%(count)s hands won", result.hands_won[p.position]);
      return h("li", { text: gettext("%(name)s: %(points)s, %(hands)s", { name: this.name(p.position), points, hands }) });
    });
    const moneyPlay = result.money_play;
    return h("section", { class: "result", id: "result", "aria-labelledby": "result-title", dataset: { winner: result.winner_seat ?? "none" } },
      h("h3", { id: "result-title", text: headline }),
      h("p", { text: gettext("Game over: %(reason)s.", { reason }) }),
      h("ul", { class: "plain-list" }, scores),
      moneyPlay ? h("p", { class: "money-play", text: gettext("Final scores (hand points and bonuses): %(points)s", { points: this.pointsList(moneyPlay.totals) }) }) : null,
      this.resultNote(match));
  }

  renderStatement() {
    const box = $("#statement", this.main);
    const statement = this.statement;
    if (!box || !statement) return;
    const wait = $("#statement-wait", this.main);
    if (wait) wait.textContent = "";
    const mine = statement.players.find((p) => p.seat === this.seat);
    const lines = statement.lines.filter((line) => line.seat === this.seat);
    const currency = statement.currency;
    box.replaceChildren(
      h("h3", { id: "statement-title", text: gettext("Your statement") }),
      h("table", { class: "statement-lines", "aria-labelledby": "statement-title" },
        h("tbody", {},
          lines.map((line) => h("tr", { dataset: { component: line.component } },
            h("th", { scope: "row", text: statement.prize_table && line.component === "pot" ? gettext("Your stake into the pot") : componentLabel(line.component, line.amount) }),
            h("td", { text: signedMoney({ amount: line.amount, currency: line.currency || currency }) }))),
          mine ? [
            h("tr", { class: "total" }, h("th", { scope: "row", text: gettext("You put in") }), h("td", { text: plainMoney(mine.escrowed) })),
            h("tr", { class: "total" }, h("th", { scope: "row", text: gettext("Paid out to you") }), h("td", { text: plainMoney(mine.payout) })),
            h("tr", { class: "total net" }, h("th", { scope: "row", text: pgettext("a game's net", "Net") }), h("td", { text: signedMoney(mine.net) })),
            mine.credited && mine.credited.currency !== currency
              ? h("tr", {}, h("th", { scope: "row", text: gettext("Credited to your wallet") }), h("td", { text: plainMoney(mine.credited) }))
              : null,
          ] : null,
          statement.fee && statement.fee.amount !== "0" && !/^0(\.0+)?$/.test(statement.fee.amount)
            ? h("tr", {}, h("th", { scope: "row", text: statement.variant === "money"
              ? gettext("House fee (%(percent)s of the winnings)", { percent: formatNumber(statement.fee_bps / 10000, { style: "percent", maximumFractionDigits: 2 }) })
              : gettext("House fee (%(percent)s of the pot)", { percent: formatNumber(statement.fee_bps / 10000, { style: "percent", maximumFractionDigits: 2 }) }) }), h("td", { text: plainMoney(statement.fee) }))
            : null)),
      h("p", { class: "hint", text: gettext("Reference %(reference)s", { reference: statement.ledger_reference }) }));
  }

  renderLog() {
    return h("section", { class: "log", "aria-labelledby": "log-title" },
      h("h3", { id: "log-title", text: gettext("Moves") }),
      h("ol", { id: "log", class: "plain-list", "aria-live": "polite", reversed: true },
        this.log.slice(0, LOG_SHOWN).map((entry) => h("li", {
          class: [entry.theirs ? "theirs" : null, entry.auto ? "auto" : null],
          dataset: { seq: entry.seq },
          text: entry.text,
        }, entry.auto ? [" ", h("span", { class: "auto-mark", title: AUTO_MARK_TITLE, text: AUTO_MARK })] : null))));
  }

  renderFooter() {
    const { match } = this.view;
    const over = OVER.includes(match.status);
    const row = h("footer", { class: "table-footer button-row" });
    if (match.is_tournament && over && !this.watch) {
      row.append(h("button", { type: "button", class: "button primary", id: "back-to-tournament", onclick: () => this.backToTournament() }, gettext("Back to the tournament")));
    } else if (over || this.watch) {
      row.append(h("button", { type: "button", class: "button", onclick: () => this.go({ screen: "lobby" }) }, gettext("Back to the lobby")));
    }
    if (!this.watch && match.status === "running") {
      if (this.confirmResign) {
        row.append(
          h("p", { class: "warning", text: this.multi
            ? gettext("Resigning forfeits the game: you are ranked last, and the others play on (R12).")
            : gettext("Resigning forfeits the game: your opponent wins it (R10).") }),
          h("button", { type: "button", class: "button danger", onclick: () => this.resign() }, gettext("Resign the game")),
          h("button", { type: "button", class: "button", onclick: () => { this.confirmResign = false; this.render(this.view); } }, gettext("Keep playing")));
      } else {
        row.append(h("button", { type: "button", class: "button subtle", onclick: () => { this.confirmResign = true; this.render(this.view); } }, gettext("Resign…")));
      }
    }
    if (!this.watch) {
      for (const player of match.players.filter((p) => p.position !== this.seat)) {
        row.append(h("button", {
          type: "button",
          class: "button subtle report-player",
          dataset: { seat: player.position },
          onclick: () => openReport({ matchId: this.matchId, seat: player.position, name: this.name(player.position) }),
        }, gettext("Report %(name)s…", { name: this.name(player.position) })));
      }
    }
    return row;
  }

  renderPresence() {
    if (!this.view) return;
    for (const box of this.main.querySelectorAll(".player-box")) {
      const seat = Number(box.dataset.seat);
      const badge = presenceBadge(this.view, seat, this.presence[seat]);
      let el = $(`#presence-${seat}`, box);
      if (!badge) {
        if (el) el.remove();
        continue;
      }
      if (!el) {
        el = h("span", { id: `presence-${seat}` });
        box.querySelector(".player-name strong").after(el);
      }
      showBadge(el, badge);
    }
  }

  renderBusy() {
    const busy = Boolean(this.pending);
    for (const el of this.main.querySelectorAll(".action, .knock")) el.disabled = busy;
    const hand = $("#hand", this.main);
    if (hand) hand.setAttribute("aria-busy", busy ? "true" : "false");
  }

  tick() {
    // A game stopping after its hand (suspended) is voided by a task a moment later: if no
    // push says so (a message lost under load), ask every few seconds rather than show
    // "stopping" for ever.
    if (this.view && this.view.match.status === "suspended" && !this.refreshing) {
      const now = Date.now();
      if (!this.stoppingAskedAt || now - this.stoppingAskedAt > STOPPING_RECHECK_MS) {
        this.stoppingAskedAt = now;
        this.recheck();
      }
    }
    const el = $("#countdown", this.main);
    const hand = this.hand;
    if (!el || !hand || !hand.turn_deadline) return;
    const left = timeLeft(hand);
    el.textContent = countdown(left);
    el.classList.toggle("urgent", left < 10000);
    tickBanks(this.main, this.view);
    this.renderPresence(); // a disconnected seat's wait counts down
    if (!this.refreshing && this.stageWatch.due(this.view)) this.recheck();
  }

  /** The stage of the turn ran out and no push said what followed: ask (clocks.js), with
   * the events since the view on screen when the game moved on (a turn played for a player)
   * for the moves list. Quiet when it fails: the connection line says so, and the socket or
   * the next check will do. */
  async recheck() {
    this.refreshing = true;
    const path = this.watch ? `matches/${this.matchId}/watch` : `matches/${this.matchId}`;
    try {
      const view = await api(this.watch ? path : `${path}/view`);
      const shown = this.view.seq;
      const feed = view.seq > shown ? await api(`${path}/events?after=${shown}`) : null;
      if (!this.stopped) this.apply(view, feed ? feed.events.filter((event) => event.seq <= view.seq) : []);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    } finally {
      this.refreshing = false;
    }
  }

  animate(previous, events) {
    // Light motion for what just changed: the opponent's move, the new top of the pile, a
    // card just drawn into the player's hand, the showdown (motion.js).
    this.motion.play(this.main, previous && previous.hand, this.hand, events);
    if (!previous || !previous.hand || !this.hand) return;
    for (const event of events) {
      if (event.seat === null || event.seat === undefined || event.seat === this.seat) continue;
      flash($(`#seat-${event.seat}`, this.main), "moved");
    }
  }
}
