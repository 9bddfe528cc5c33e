// Cards as the API writes them (R1: rank letter or number, suit letter: "QS", "TD", "10d"):
// their faces, their names for screen readers and a display order. Display only: the server
// is the referee, and it also arranges the player's hand (the view's `melds`,
// `deadwood_cards`, `best_discard`, R2) and says what each knock leaves (R6); nothing here
// knows a meld or a card's value.

import { gettext, pgettext } from "./i18n.js";

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
const RANK_NAMES = {
  A: pgettext("card rank", "Ace"), 2: pgettext("card rank", "Two"), 3: pgettext("card rank", "Three"),
  4: pgettext("card rank", "Four"), 5: pgettext("card rank", "Five"), 6: pgettext("card rank", "Six"),
  7: pgettext("card rank", "Seven"), 8: pgettext("card rank", "Eight"), 9: pgettext("card rank", "Nine"),
  T: pgettext("card rank", "Ten"), J: pgettext("card rank", "Jack"), Q: pgettext("card rank", "Queen"),
  K: pgettext("card rank", "King"),
};
const SUITS = {
  S: { name: pgettext("card suit", "spades"), symbol: "\u2660", red: false },
  H: { name: pgettext("card suit", "hearts"), symbol: "\u2665", red: true },
  D: { name: pgettext("card suit", "diamonds"), symbol: "\u2666", red: true },
  C: { name: pgettext("card suit", "clubs"), symbol: "\u2663", red: false },
};
const SUIT_ORDER = ["S", "H", "D", "C"];

/** "QS" -> {text: "QS", rank: 12, rankSymbol: "Q", suit: "S"} */
export function parseCard(text) {
  const upper = String(text).toUpperCase().replace(/^10/, "T");
  const rankSymbol = upper.slice(0, -1);
  const suit = upper.slice(-1);
  const rank = RANKS.indexOf(rankSymbol) + 1;
  if (rank === 0 || !(suit in SUITS)) throw new Error(`not a card: ${text}`);
  return { text: rankSymbol + suit, rank, rankSymbol, suit };
}

/** "Queen of spades" */
export function cardName(text) {
  const card = parseCard(text);
  // Translators: a card's name, "Queen of spades": the rank, then the suit.
  return gettext("%(rank)s of %(suit)s", { rank: RANK_NAMES[card.rankSymbol], suit: SUITS[card.suit].name });
}

/** "Q♠": the short form for running text. */
export function cardShort(text) {
  const card = parseCard(text);
  return `${card.rankSymbol === "T" ? "10" : card.rankSymbol}${SUITS[card.suit].symbol}`;
}

export function cardFace(text) {
  const card = parseCard(text);
  return {
    rank: card.rankSymbol === "T" ? "10" : card.rankSymbol,
    symbol: SUITS[card.suit].symbol,
    red: SUITS[card.suit].red,
  };
}

/** Display order: suits S, H, D, C, then rank (as the server sorts a hand). */
export function compareCards(a, b) {
  const x = parseCard(a);
  const y = parseCard(b);
  return SUIT_ORDER.indexOf(x.suit) - SUIT_ORDER.indexOf(y.suit) || x.rank - y.rank;
}
