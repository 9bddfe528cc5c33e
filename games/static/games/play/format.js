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
