// The moves list's past, from the events feed (GET matches/{id}/events, or .../watch/events
// for a watcher; docs/realtime.md): on opening the table and on a reload, the page lists
// what was played before it rendered. The feed shows each event as this viewer may see it
// (nobody's stock draw carries its card), exactly as the socket does.

import { api } from "./api.js";

// The feed's largest page (EVENTS_PAGE_MAX): a hand is always shorter, so reading from this
// far back finds the current hand's deal in one request.
const FEED_PAGE = 500;

/**
 * The events up to `through` (the view's seq, which the socket continues from), oldest
 * first: the current hand's from its `hand_dealt`, and before it the last ones up to
 * `keep` in all.
 */
export async function movesThrough({ matchId, watch = false, through, keep }) {
  const feed = watch ? `matches/${matchId}/watch/events` : `matches/${matchId}/events`;
  const events = [];
  let after = Math.max(0, through - FEED_PAGE);
  while (after < through) {
    const page = await api(`${feed}?after=${after}&limit=${FEED_PAGE}`);
    events.push(...page.events.filter((event) => event.seq <= through));
    if (page.events.length < FEED_PAGE || page.next_after <= after) break;
    after = page.next_after;
  }
  let dealt = -1;
  for (let index = events.length - 1; index >= 0; index -= 1) {
    if (events[index].kind === "hand_dealt") {
      dealt = index;
      break;
    }
  }
  const from = dealt >= 0 ? Math.min(dealt, Math.max(0, events.length - keep)) : Math.max(0, events.length - keep);
  return events.slice(from);
}
