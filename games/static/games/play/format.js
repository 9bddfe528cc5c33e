// Amounts, names and labels as the page shows them.

export const VARIANTS = { ftk: "First To Knock", match: "Match Play", money: "Money Play" };

const PRACTICE_CURRENCY = "XGC";

/** An amount from the API ({amount: "12.50", currency: "EUR"}): "12.50 EUR"; chips: "100 chips". */
export function plainMoney(money) {
  if (!money) return "";
  if (money.currency === PRACTICE_CURRENCY) return `${money.amount} chips`;
  return `${money.amount} ${money.currency}`;
}

/** R11: in the player's display currency when the API gives it, else in the room's. */
export function money(value) {
  if (!value) return "";
  return plainMoney(value.display || value);
}

/** A signed amount: "+4.50 EUR", "-5.00 EUR". */
export function signedMoney(value) {
  if (!value) return "";
  const text = plainMoney(value);
  return value.amount.startsWith("-") || /^0(\.0+)?$/.test(value.amount) ? text : `+${text}`;
}

export const COMPONENTS = {
  stake: "Your stake back",
  pot: "Stake won from your opponent",
  cashier_return: "Cashier amount back",
  points: "Hand points",
  line_bonus: "Line bonus",
  target_bonus: "Target bonus",
  zero_point_bonus: "Zero-point bonus",
  cap_adjustment: "Cap applied",
  fee_deduction: "Fee",
  prize: "Your prize",
};

const LOSING_COMPONENTS = { pot: "Stake lost to your opponent" };

/** A statement line's label; `amount` (a decimal string) tells a win from a loss. */
export function componentLabel(component, amount = "0") {
  if (amount.startsWith("-") && component in LOSING_COMPONENTS) return LOSING_COMPONENTS[component];
  return COMPONENTS[component] || component.replace(/_/g, " ");
}

export const OUTCOMES = {
  knock: "Knock",
  gin: "Gin",
  big_gin: "Big Gin",
  undercut: "Undercut",
  void: "Void hand",
};

export const FORFEIT_REASONS = { left: "left the table", timeout: "ran out of time", resigned: "resigned" };

export function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

/** A clock: milliseconds left as "m:ss" (never below 0:00). */
export function countdown(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

// R13, interrupted play (docs/rules.md): the stages of a turn's clock, the time banks, a
// disconnected seat's wait and the turns the platform played for a player.

/** What the turn line's clock counts down, per `hand.turn_stage`. */
export const TURN_STAGES = {
  turn: { label: null, clock: "Time left for this turn" },
  grace: { label: "Reconnect grace", clock: "Time left of the reconnect grace" },
  bank: { label: "Time bank", clock: "Time left in the time bank" },
  // Player protection: the clock of a player whose reality check waits stops (at most
  // PROTECTION_PAUSE_SECONDS, counted down here); then the turn runs on from where it was.
  pause: { label: "Clock paused: reality check", clock: "Time left of the pause" },
};

export const TIME_BANKS = "Time banks";
export const BANK_RUNNING = "in use";

/** A seat's time bank in the list of banks: "Bob 0:45", "You 0:12 in use". */
export function bankText(name, ms, running) {
  return `${name} ${countdown(ms)}${running ? ` ${BANK_RUNNING}` : ""}`;
}

/** A disconnected seat given the reconnect grace: "Disconnected — waiting 27 s". */
export function waitingText(ms) {
  return `Disconnected \u2014 waiting ${Math.max(0, Math.ceil(ms / 1000))} s`;
}

/** A seat's connection as its box shows it (the match socket's `presence`). */
export const PRESENCE = { online: "online", offline: "offline" };

/** A move the platform played for an absent player, in the moves list. */
export const AUTO_MARK = "(auto)";
export const AUTO_MARK_TITLE = "Played by the platform: the player's time ran out (R13)";

/** The banner of the turns played for the player since the page last said so. */
export function autoPlayedTitle(count) {
  return `${plural(count, "turn was", "turns were")} played for you`;
}

export function autoPlayedDetail(left) {
  const after = left > 0
    ? `The platform may play ${plural(left, "more turn", "more turns")} for you in this game; after that, running out of time forfeits the game.`
    : "The next time your time runs out, you forfeit the game.";
  return `Your time ran out, so your moves were made for you (R13); they are marked ${AUTO_MARK} in the moves list. ${after}`;
}

// Player protection (docs/player-protection.md "The hosted page").

/** Time played as a clock: "12:05", "1:02:03". */
export function clockText(seconds) {
  const total = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/** Time played in words: "1 hour 5 minutes", "12 minutes", "less than a minute". */
export function spokenDuration(seconds) {
  const minutes = Math.floor(Math.max(0, seconds) / 60);
  if (minutes === 0) return "less than a minute";
  const hours = Math.floor(minutes / 60);
  const parts = [hours ? plural(hours, "hour", "hours") : null, minutes % 60 ? plural(minutes % 60, "minute", "minutes") : null];
  return parts.filter(Boolean).join(" ");
}

/** A play session's end or reached limit, as the player is told (`end_reason` or `limit`). */
export const SESSION_ENDS = {
  duration_limit: "Your session's time limit was reached",
  loss_limit: "Your session's loss limit was reached",
  duration: "Your session's time limit was reached",
  loss: "Your session's loss limit was reached",
  player: "You ended your session",
  idle: "Your session ended after a time without play",
  break: "Your session ended for your break",
};

/** Why a game was voided (the `match_voided` event's `reason`), from the player's side:
 * `mine` when it was their own session that ended. */
export function voidedText(reason, mine) {
  const stopped = "the game was stopped after the hand and every stake returned";
  if (reason === "interrupted") return "The game was interrupted for too long (R13): it was voided and every stake returned.";
  if (mine && reason in SESSION_ENDS) return `${SESSION_ENDS[reason]}: ${stopped}.`;
  if (reason in SESSION_ENDS) return `A player's session ended (player protection): ${stopped}.`;
  return "The game was voided: every stake was returned.";
}

/** A game that stops when its hand ends because the player's session ended (`reason`; null:
 * not theirs, or R13's interruption); `over`: it has stopped and is being voided. */
export function stoppingText(reason, { over = false } = {}) {
  if (!(reason in SESSION_ENDS)) return "The game is stopped: it is being voided, and every stake returned.";
  const what = over
    ? "the game was stopped after the hand, and every stake is being returned."
    : "this game stops after the hand being played, and every stake in it is returned.";
  return `${SESSION_ENDS[reason]}: ${what}`;
}
