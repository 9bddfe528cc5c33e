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
