// R13, interrupted play, at the table (docs/rules.md R13, docs/play.md): the stage the turn's
// clock is in (`hand.turn_stage`: turn, reconnect grace, time bank), every seat's time bank
// (`match.clocks`, counting down while it runs), a disconnected seat's wait, and the turns the
// platform played for the player, told once per match. Display only: the server keeps every
// clock, and the page counts down to the deadlines its views give.

import { $, h } from "./dom.js";
import {
  autoPlayedDetail, autoPlayedTitle, bankText, PRESENCE, TIME_BANKS, TURN_STAGES, waitingText,
} from "./format.js";
import { showNotice } from "./notices.js";

// A stage that ends changes no `seq` (docs/games.md "Interrupted play"): a push of it that
// got lost is never repaired by the socket. So when the stage's deadline is this long past
// and no newer view came, the page asks for the view itself, a few times at most. (The turn
// timer runs every 5 s, 2 s after a deadline: the push usually comes first.)
const STAGE_CHECKS_MS = [3000, 8000, 15000, 30000, 60000];
// The auto-played turns the page has told the player of, per match and seat (localStorage:
// a new tab or a new launch of the same game does not tell them again).
const TOLD_KEY = "gin.play.autoPlayedTold";
const TOLD_KEPT = 40;

/** The stage of the hand's clock: "turn", "grace" or "bank". */
export function stageOf(hand) {
  return hand && hand.turn_stage in TURN_STAGES ? hand.turn_stage : "turn";
}

/** A hand whose clock is running: in progress, in a running game, with a deadline. */
function ticking(view) {
  const hand = view && view.hand;
  return Boolean(hand && hand.status === "in_progress" && view.match.status === "running" && hand.turn_deadline);
}

/** Milliseconds to the current stage's deadline. */
export function timeLeft(hand, now = Date.now()) {
  return Date.parse(hand.turn_deadline) - now;
}

/** `seat` is the one to act and its time bank is what runs now. */
export function bankRunning(view, seat) {
  return ticking(view) && view.hand.to_act === seat && stageOf(view.hand) === "bank";
}

/** `seat` is the one to act and waits in the reconnect grace (its player disconnected). */
export function inGrace(view, seat) {
  return ticking(view) && view.hand.to_act === seat && stageOf(view.hand) === "grace";
}

function seatClock(view, seat) {
  return (view.match.clocks || []).find((clock) => clock.seat === seat) || null;
}

/** The seat's time bank now: what was left when the stage started, or, while it runs,
 * the time to the deadline (the bank of the player to act counts down to it). */
export function bankLeft(view, seat, now = Date.now()) {
  if (bankRunning(view, seat)) return Math.max(0, timeLeft(view.hand, now));
  const clock = seatClock(view, seat);
  return clock ? clock.time_bank_seconds * 1000 : 0;
}

/**
 * The time banks of `seats` (`name(seat)` names them), for players and watchers alike;
 * nothing when the room plays without a bank. Updated each second by `tickBanks`.
 */
export function renderBanks(view, { seats, name }) {
  const options = view.match.turn_clock;
  if (!options || !options.time_bank_seconds || !(view.match.clocks || []).length) return null;
  const now = Date.now();
  return h("div", { class: "clocks", id: "clocks" },
    h("span", { class: "clocks-title", id: "clocks-title", text: TIME_BANKS }),
    h("ul", { class: "plain-list clocks-list", "aria-labelledby": "clocks-title" },
      seats.map((seat) => {
        const running = bankRunning(view, seat);
        return h("li", {
          class: ["bank", running ? "running" : null],
          id: `bank-${seat}`,
          dataset: { seat, name: name(seat) },
          text: bankText(name(seat), bankLeft(view, seat, now), running),
        });
      })));
}

export function tickBanks(root, view) {
  const box = $("#clocks", root);
  if (!box) return;
  const now = Date.now();
  for (const item of box.querySelectorAll(".bank.running")) {
    const seat = Number(item.dataset.seat);
    item.textContent = bankText(item.dataset.name, bankLeft(view, seat, now), true);
  }
}

/**
 * How a seat's connection shows: "Disconnected — waiting 27 s" while its turn is in the
 * reconnect grace (unless the socket says the seat is back), else the socket's presence.
 * `connected`: the presence (undefined before the socket said). Null: nothing to show.
 */
export function presenceBadge(view, seat, connected, now = Date.now()) {
  if (inGrace(view, seat) && connected !== true) {
    return { state: "away", text: waitingText(timeLeft(view.hand, now)) };
  }
  if (connected === undefined) return null;
  return connected ? { state: "online", text: PRESENCE.online } : { state: "offline", text: PRESENCE.offline };
}

/** Put `badge` (presenceBadge's) on the element. */
export function showBadge(el, badge) {
  if (el.dataset.state !== badge.state) {
    el.className = `presence ${badge.state}`;
    el.dataset.state = badge.state;
  }
  if (el.textContent !== badge.text) el.textContent = badge.text;
}

/** When to ask for the view again: once a stage's deadline is past and no newer view came. */
export class StageWatch {
  constructor() {
    this.key = null;
    this.tries = 0;
  }

  due(view, now = Date.now()) {
    if (!ticking(view)) return false;
    const hand = view.hand;
    const key = `${view.seq}/${hand.turn_deadline}/${stageOf(hand)}`;
    if (key !== this.key) {
      this.key = key;
      this.tries = 0;
    }
    if (this.tries >= STAGE_CHECKS_MS.length || timeLeft(hand, now) > -STAGE_CHECKS_MS[this.tries]) return false;
    this.tries += 1;
    return true;
  }
}

// --- The turns played for the player ------------------------------------------------------
const toldInMemory = {}; // when localStorage cannot be used (a private window may refuse it)

function readTold() {
  try {
    const stored = JSON.parse(window.localStorage.getItem(TOLD_KEY) || "{}");
    return stored && typeof stored === "object" ? stored : {};
  } catch {
    return { ...toldInMemory };
  }
}

function writeTold(told) {
  Object.assign(toldInMemory, told);
  try {
    window.localStorage.setItem(TOLD_KEY, JSON.stringify(told));
  } catch {
    // kept in memory only: this page still tells each turn once
  }
}

/** How many of `count` auto-played turns the page has not told the player of yet; from
 * now on `count` counts as told. */
function untold(matchId, seat, count) {
  const key = `${matchId}/${seat}`;
  const told = readTold();
  const before = Number(told[key]) || 0;
  if (told[key] === count) return 0;
  delete told[key];
  told[key] = count; // the newest last; the oldest matches are forgotten
  const keys = Object.keys(told);
  for (const old of keys.slice(0, Math.max(0, keys.length - TOLD_KEPT))) delete told[old];
  writeTold(told);
  return Math.max(0, count - before);
}

/**
 * The banner "2 turns were played for you": shown when the player's count of auto-played
 * turns (`match.clocks`) is above what the page last told them (on opening the table, after
 * a reload or a reconnect, or live), with how many more the platform may play. A message
 * (notices.js): a live region, dismissed with its × or Esc; it adds up until dismissed.
 */
export class AutoPlayedBanner {
  constructor(matchId) {
    this.matchId = matchId;
    this.count = 0;
    this.message = null;
  }

  update(view, seat) {
    if (seat === null || seat === undefined) return;
    const clock = seatClock(view, seat);
    if (!clock) return;
    const fresh = untold(this.matchId, seat, clock.auto_played_turns);
    if (!fresh) return;
    this.count = (this.message && this.message.isConnected ? this.count : 0) + fresh;
    const options = view.match.turn_clock || {};
    const left = Math.max(0, (options.auto_play_turns || 0) - clock.auto_played_turns);
    this.message = showNotice(autoPlayedTitle(this.count), autoPlayedDetail(left), { name: "auto-played" });
  }
}
