// A tournament's facts as the page says them (docs/play.md "Tournaments"), in the page's
// language: amounts through format.js (Intl), words from the catalogue.

import { plainMoney, VARIANTS } from "../../games/play/format.js";
import { formatDate, formatNumber, gettext, ngettext, pgettext } from "../../games/play/i18n.js";

export const KINDS = {
  sit_and_go: pgettext("a tournament's kind", "Sit and go"),
  scheduled: pgettext("a tournament's kind", "Scheduled"),
};

export const STATUSES = {
  announced: pgettext("a tournament's status", "Announced"),
  registering: pgettext("a tournament's status", "Registering"),
  running: pgettext("a tournament's status", "Running"),
  finished: pgettext("a tournament's status", "Finished"),
  cancelled: pgettext("a tournament's status", "Cancelled"),
};

/** Why a tournament was cancelled (`cancel_reason`), as a sentence. */
export const CANCEL_REASONS = {
  too_few_entries: gettext("Too few players registered: every entry was refunded."),
  operator: gettext("Your operator cancelled it."),
  staff: gettext("It was cancelled by the platform."),
  interrupted: gettext("A match was interrupted for too long (R13)."),
};

function isZero(money) {
  return !money || Number(money.amount) === 0;
}

/** A freeroll: neither a buy-in nor a fee. */
export function isFree(tournament) {
  return isZero(tournament.buy_in) && isZero(tournament.entry_fee);
}

/** What an entry costs: "€10.00 + €1.00" (buy-in and fee), "€10.00", or "Free". */
export function entryPrice(tournament) {
  if (isFree(tournament)) return gettext("Free");
  if (isZero(tournament.entry_fee)) return plainMoney(tournament.buy_in);
  return gettext("%(buy_in)s + %(fee)s", { buy_in: plainMoney(tournament.buy_in), fee: plainMoney(tournament.entry_fee) });
}

function fractionDigits(amount) {
  return (amount.split(".")[1] || "").length;
}

/** Two decimal strings added exactly (never through a float). */
function addAmounts(first, second) {
  const scale = Math.max(fractionDigits(first), fractionDigits(second));
  const units = (amount) => BigInt(amount.replace(".", "") + "0".repeat(scale - fractionDigits(amount)));
  const digits = (units(first) + units(second)).toString().padStart(scale + 1, "0");
  return scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
}

/** The whole price as one amount (buy-in plus fee), for the register button. */
export function entryTotal(tournament) {
  return plainMoney({
    amount: addAmounts(tournament.buy_in.amount, tournament.entry_fee.amount),
    currency: tournament.buy_in.currency,
  });
}

/** "€80.00", "€80.00 (guaranteed €100.00)" before the start. */
export function prizePool(tournament) {
  const pool = plainMoney(tournament.prize_pool);
  if (isZero(tournament.guaranteed)) return pool;
  return gettext("%(pool)s (guaranteed %(guaranteed)s)", { pool, guaranteed: plainMoney(tournament.guaranteed) });
}

/** When it starts: a sit and go when full, a scheduled one at its time; once started, when. */
export function startText(tournament) {
  if (tournament.started_at) return gettext("Started %(when)s", { when: formatDate(tournament.started_at) });
  if (tournament.kind === "sit_and_go") return gettext("When full");
  return tournament.starts_at ? formatDate(tournament.starts_at) : "";
}

/** "3 of 8", entries over the most it takes. */
export function entriesText(tournament) {
  return gettext("%(entries)s of %(max)s", { entries: formatNumber(tournament.entries), max: formatNumber(tournament.max_entries) });
}

/** The format: heads-up or n players a table, and each round's game. */
export function formatText(tournament) {
  const seats = tournament.seats === 2
    ? gettext("Heads-up")
    : ngettext("%(count)s player a table", "%(count)s players a table", tournament.seats);
  const games = tournament.round_settings.map((setting) => (setting.target
    ? gettext("%(variant)s to %(target)s", { variant: VARIANTS[setting.variant] || setting.variant, target: formatNumber(setting.target) })
    : VARIANTS[setting.variant] || setting.variant));
  return pgettext("a tournament's format: seats, then the rounds' games", "%(seats)s · %(games)s", { seats, games: [...new Set(games)].join(" / ") });
}

/** A bracket round's heading: "Round 2", or "Final" for the last. */
export function roundName(round, rounds) {
  return round === rounds ? gettext("Final") : gettext("Round %(round)s", { round: formatNumber(round) });
}

/** A place, or the places an entry shares: "Place 1", "Places 3–4". */
export function placeText(from, to) {
  if (from === to) return gettext("Place %(place)s", { place: formatNumber(from) });
  return gettext("Places %(from)s\u2013%(to)s", { from: formatNumber(from), to: formatNumber(to) });
}

/** A prize: an amount, or a satellite's ticket worth it. */
export function prizeText(prize, ticket) {
  if (!prize) return "";
  return ticket ? gettext("A ticket worth %(value)s", { value: plainMoney(prize) }) : plainMoney(prize);
}

/** The page's own address for `path`, keeping the language the page was opened in. */
export function pageAddress(path) {
  const address = new URL(path, window.location.origin);
  const language = new URLSearchParams(window.location.search).get("lang");
  if (language) address.searchParams.set("lang", language);
  return address.pathname + address.search;
}
