// Cards as the API writes them (R1: rank letter or number, suit letter: "QS", "TD", "10d"),
// their names for screen readers, and the player's own melds (R2) for grouping the hand.
// The server is the referee: this only arranges what the player already holds.

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
const RANK_NAMES = {
  A: "Ace", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven",
  8: "Eight", 9: "Nine", T: "Ten", J: "Jack", Q: "Queen", K: "King",
};
const SUITS = {
  S: { name: "spades", symbol: "\u2660", red: false },
  H: { name: "hearts", symbol: "\u2665", red: true },
  D: { name: "diamonds", symbol: "\u2666", red: true },
  C: { name: "clubs", symbol: "\u2663", red: false },
};
const SUIT_ORDER = ["S", "H", "D", "C"];

/** "QS" -> {text: "QS", rank: 12, rankSymbol: "Q", suit: "S", value: 10} */
export function parseCard(text) {
  const upper = String(text).toUpperCase().replace(/^10/, "T");
  const rankSymbol = upper.slice(0, -1);
  const suit = upper.slice(-1);
  const rank = RANKS.indexOf(rankSymbol) + 1;
  if (rank === 0 || !(suit in SUITS)) throw new Error(`not a card: ${text}`);
  return { text: rankSymbol + suit, rank, rankSymbol, suit, value: Math.min(rank, 10) };
}

/** "Queen of spades" */
export function cardName(text) {
  const card = parseCard(text);
  return `${RANK_NAMES[card.rankSymbol]} of ${SUITS[card.suit].name}`;
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

function candidateMelds(cards) {
  // Every meld (R2) among `cards`, as bit masks over their positions.
  const melds = [];
  const byRank = new Map();
  const bySuit = new Map();
  cards.forEach((card, i) => {
    if (!byRank.has(card.rank)) byRank.set(card.rank, []);
    byRank.get(card.rank).push(i);
    if (!bySuit.has(card.suit)) bySuit.set(card.suit, []);
    bySuit.get(card.suit).push(i);
  });
  for (const positions of byRank.values()) {
    // Sets: three or four cards of one rank (every three of a four, and the four).
    if (positions.length < 3) continue;
    if (positions.length === 4) melds.push({ kind: "set", mask: positions.reduce((m, i) => m | (1 << i), 0) });
    for (let skip = 0; skip < positions.length; skip += 1) {
      if (positions.length === 3 && skip > 0) break;
      const three = positions.length === 3 ? positions : positions.filter((_, j) => j !== skip);
      melds.push({ kind: "set", mask: three.reduce((m, i) => m | (1 << i), 0) });
    }
  }
  for (const positions of bySuit.values()) {
    // Runs: three or more of one suit in unbroken rank order, ace low (R1).
    const sorted = [...positions].sort((a, b) => cards[a].rank - cards[b].rank);
    for (let start = 0; start < sorted.length; start += 1) {
      let mask = 1 << sorted[start];
      for (let end = start + 1; end < sorted.length; end += 1) {
        if (cards[sorted[end]].rank !== cards[sorted[end - 1]].rank + 1) break;
        mask |= 1 << sorted[end];
        if (end - start >= 2) melds.push({ kind: "run", mask });
      }
    }
  }
  return melds;
}

/**
 * The split of `texts` into melds with the least deadwood (R2): {melds: [{kind, cards}],
 * deadwood: [cards], points}. Melds and deadwood cards come back in display order.
 */
export function bestSplit(texts) {
  const cards = texts.map(parseCard);
  const melds = candidateMelds(cards);
  const memo = new Map();
  const best = (mask) => {
    // mask: the positions still to place. Returns [points, chosen meld masks].
    if (mask === 0) return [0, []];
    if (memo.has(mask)) return memo.get(mask);
    let low = 0;
    while (!(mask & (1 << low))) low += 1;
    const rest = best(mask & ~(1 << low));
    let answer = [rest[0] + cards[low].value, rest[1]];
    for (const meld of melds) {
      if (!(meld.mask & (1 << low)) || (meld.mask & mask) !== meld.mask) continue;
      const after = best(mask & ~meld.mask);
      if (after[0] < answer[0]) answer = [after[0], [meld, ...after[1]]];
    }
    memo.set(mask, answer);
    return answer;
  };
  const [points, chosen] = best((1 << cards.length) - 1);
  const used = chosen.reduce((m, meld) => m | meld.mask, 0);
  const pick = (mask) => cards.filter((_, i) => mask & (1 << i)).map((c) => c.text);
  const grouped = chosen
    .map((meld) => {
      const members = pick(meld.mask);
      members.sort(meld.kind === "run" ? (a, b) => parseCard(a).rank - parseCard(b).rank : compareCards);
      return { kind: meld.kind, cards: members };
    })
    .sort((a, b) => compareCards(a.cards[0], b.cards[0]));
  const deadwood = pick(((1 << cards.length) - 1) & ~used).sort(compareCards);
  return { melds: grouped, deadwood, points };
}

/** The deadwood of `texts` (R2: the best split). */
export function deadwoodOf(texts) {
  return bestSplit(texts).points;
}
