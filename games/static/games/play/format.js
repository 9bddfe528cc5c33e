// Amounts, names and labels as the page shows them, in the page's language (i18n.js): money
// and numbers through Intl (CLDR), words from the catalogue.

import { formatNumber, gettext, LANGUAGE, ngettext, pgettext } from "./i18n.js";

export const VARIANTS = {
  ftk: gettext("First To Knock"),
  match: gettext("Match Play"),
  money: gettext("Money Play"),
};

const PRACTICE_CURRENCY = "XGC";

function fractionDigits(amount) {
  return (String(amount).split(".")[1] || "").length;
}

/** An amount from the API ({amount: "12.50", currency: "EUR"}) in the page's language:
 * "€12.50", "12,50 €"; practice chips: "100 chips". The amount is a decimal string, formatted
 * as a string (Intl keeps its digits exact), never through a float. */
export function plainMoney(money, { signDisplay = "auto" } = {}) {
  if (!money) return "";
  if (money.currency === PRACTICE_CURRENCY) {
    const count = formatNumber(money.amount, { maximumFractionDigits: 20, signDisplay });
    return ngettext("%(count)s chip", "%(count)s chips", Math.abs(Number(money.amount)), { count });
  }
  try {
    return new Intl.NumberFormat(LANGUAGE, {
      style: "currency",
      currency: money.currency,
      // Never fewer digits than the amount has (no rounding), never fewer than the currency's.
      maximumFractionDigits: Math.max(fractionDigits(money.amount), 3),
      signDisplay,
    }).format(money.amount);
  } catch {
    return `${money.amount} ${money.currency}`;
  }
}

/** R11: in the player's display currency when the API gives it, else in the room's. */
export function money(value) {
  if (!value) return "";
  return plainMoney(value.display || value);
}

/** A signed amount: "+€4.50", "-€5.00" (zero unsigned). */
export function signedMoney(value) {
  if (!value) return "";
  return plainMoney(value, { signDisplay: "exceptZero" });
}

export const COMPONENTS = {
  stake: gettext("Your stake back"),
  pot: gettext("Stake won from your opponent"),
  cashier_return: gettext("Cashier amount back"),
  points: gettext("Hand points"),
  line_bonus: gettext("Line bonus"),
  target_bonus: gettext("Target bonus"),
  zero_point_bonus: gettext("Zero-point bonus"),
  cap_adjustment: gettext("Cap applied"),
  fee_deduction: gettext("Fee"),
  prize: gettext("Your prize"),
};

const LOSING_COMPONENTS = { pot: gettext("Stake lost to your opponent") };

/** A statement line's label; `amount` (a decimal string) tells a win from a loss. */
export function componentLabel(component, amount = "0") {
  if (amount.startsWith("-") && component in LOSING_COMPONENTS) return LOSING_COMPONENTS[component];
  return COMPONENTS[component] || component.replace(/_/g, " ");
}

export const OUTCOMES = {
  knock: pgettext("how a hand ended", "Knock"),
  gin: pgettext("how a hand ended", "Gin"),
  big_gin: pgettext("how a hand ended", "Big Gin"),
  undercut: pgettext("how a hand ended", "Undercut"),
  void: pgettext("how a hand ended", "Void hand"),
};

export const FORFEIT_REASONS = {
  left: gettext("left the table"),
  timeout: gettext("ran out of time"),
  resigned: gettext("resigned"),
};

/** A clock: milliseconds left as "m:ss" (never below 0:00). */
export function countdown(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

// R13, interrupted play (docs/rules.md): the stages of a turn's clock, the time banks, a
// disconnected seat's wait and the turns the platform played for a player.

/** What the turn line's clock counts down, per `hand.turn_stage`. */
export const TURN_STAGES = {
  turn: { label: null, clock: gettext("Time left for this turn") },
  grace: { label: gettext("Reconnect grace"), clock: gettext("Time left of the reconnect grace") },
  bank: { label: gettext("Time bank"), clock: gettext("Time left in the time bank") },
  // Player protection: the clock of a player whose reality check waits stops (at most
  // PROTECTION_PAUSE_SECONDS, counted down here); then the turn runs on from where it was.
  pause: { label: gettext("Clock paused: reality check"), clock: gettext("Time left of the pause") },
};

export const TIME_BANKS = gettext("Time banks");

/** A seat's time bank in the list of banks: "Bob 0:45", "You 0:12 in use". */
export function bankText(name, ms, running) {
  const time = countdown(ms);
  return running
    ? gettext("%(name)s %(time)s in use", { name, time })
    : pgettext("a seat's time bank", "%(name)s %(time)s", { name, time });
}

/** A disconnected seat given the reconnect grace: "Disconnected — waiting 27 s". */
export function waitingText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return gettext("Disconnected \u2014 waiting %(seconds)s s", { seconds: formatNumber(seconds) });
}

/** A seat's connection as its box shows it (the match socket's `presence`). */
export const PRESENCE = {
  online: pgettext("a seat's connection", "online"),
  offline: pgettext("a seat's connection", "offline"),
};

/** A move the platform played for an absent player, in the moves list. */
export const AUTO_MARK = gettext("(auto)");
export const AUTO_MARK_TITLE = gettext("Played by the platform: the player's time ran out (R13)");

/** The banner of the turns played for the player since the page last said so. */
export function autoPlayedTitle(count) {
  return ngettext("%(count)s turn was played for you", "%(count)s turns were played for you", count);
}

export function autoPlayedDetail(left) {
  const marked = gettext("Your time ran out, so your moves were made for you (R13); they are marked %(mark)s in the moves list.", { mark: AUTO_MARK });
  const after = left > 0
    ? ngettext("The platform may play %(count)s more turn for you in this game; after that, running out of time forfeits the game.", "The platform may play %(count)s more turns for you in this game; after that, running out of time forfeits the game.", left)
    : gettext("The next time your time runs out, you forfeit the game.");
  return pgettext("two sentences", "%(first)s %(second)s", { first: marked, second: after });
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
  if (minutes === 0) return gettext("less than a minute");
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const hoursText = ngettext("%(count)s hour", "%(count)s hours", hours);
  const minutesText = ngettext("%(count)s minute", "%(count)s minutes", rest);
  if (hours && rest) return gettext("%(hours)s %(minutes)s", { hours: hoursText, minutes: minutesText });
  return hours ? hoursText : minutesText;
}

/** A play session's end or reached limit, as the player is told (`end_reason` or `limit`). */
export const SESSION_ENDS = {
  duration_limit: gettext("Your session's time limit was reached"),
  loss_limit: gettext("Your session's loss limit was reached"),
  duration: gettext("Your session's time limit was reached"),
  loss: gettext("Your session's loss limit was reached"),
  player: gettext("You ended your session"),
  idle: gettext("Your session ended after a time without play"),
  break: gettext("Your session ended for your break"),
};

/** Why a game was voided (the `match_voided` event's `reason`), from the player's side:
 * `mine` when it was their own session that ended. */
export function voidedText(reason, mine) {
  if (reason === "interrupted") return gettext("The game was interrupted for too long (R13): it was voided and every stake returned.");
  if (mine && reason in SESSION_ENDS) {
    return gettext("%(why)s: the game was stopped after the hand and every stake returned.", { why: SESSION_ENDS[reason] });
  }
  if (reason in SESSION_ENDS) return gettext("A player's session ended (player protection): the game was stopped after the hand and every stake returned.");
  return gettext("The game was voided: every stake was returned.");
}

/** A game that stops when its hand ends because the player's session ended (`reason`; null:
 * not theirs, or R13's interruption); `over`: it has stopped and is being voided. */
export function stoppingText(reason, { over = false } = {}) {
  if (!(reason in SESSION_ENDS)) return gettext("The game is stopped: it is being voided, and every stake returned.");
  const why = SESSION_ENDS[reason];
  return over
    ? gettext("%(why)s: the game was stopped after the hand, and every stake is being returned.", { why })
    : gettext("%(why)s: this game stops after the hand being played, and every stake in it is returned.", { why });
}
