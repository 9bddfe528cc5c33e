// The player's history page (docs/play.md "History", docs/player-protection.md "History"):
// the last 12 months of matches, wallet movements and figures per day or month, a page at a
// time, each list also as a CSV download. It uses the table page's session (sessionStorage
// of this tab): the page is opened from the table page's "History" link.

import { api, API_ROOT, ApiError } from "./api.js";
import { $, h } from "./dom.js";
import { OUTCOMES as HAND_OUTCOMES, plainMoney, signedMoney, VARIANTS } from "./format.js";
import { showProblem } from "./notices.js";
import { onSessionEnd, session, startSession, watchExpiry } from "./session.js";
import { followSessionLanguage, formatDate, formatNumber, gettext, LANGUAGE, ngettext, pgettext } from "./i18n.js";

const main = $("#main");

const OUTCOMES = {
  won: pgettext("a game's result", "Won"),
  lost: pgettext("a game's result", "Lost"),
  tied: pgettext("a game's result", "Tied"),
  left: pgettext("a game's result", "Left before the start"),
  voided: pgettext("a game's result", "Voided"),
  in_play: pgettext("a game's result", "In play"),
};

const KINDS = {
  deposit: gettext("Deposit"),
  withdrawal: gettext("Withdrawal"),
  buy_in: gettext("Buy-in"),
  refund: gettext("Refund"),
  void: gettext("Stakes returned (game voided)"),
  settlement: gettext("Payout"),
  confiscation: gettext("Confiscation"),
  adjustment: gettext("Adjustment"),
  reversal: gettext("Reversal"),
  seamless_debit: gettext("From your operator wallet"),
  seamless_credit: gettext("Back to your operator wallet"),
  seamless_rollback: gettext("Returned to your operator wallet"),
};

// Each figure: its key, its label, and how it is shown (the nets with their sign).
const FIGURES = [
  ["deposits", gettext("Deposits"), plainMoney],
  ["withdrawals", gettext("Withdrawals"), plainMoney],
  ["net_deposits", gettext("Net deposits"), signedMoney],
  ["play_net", gettext("Net from play"), signedMoney],
  ["other", pgettext("money moved", "Other"), signedMoney],
  ["change", gettext("Change"), signedMoney],
];

function when(value) {
  return value ? formatDate(value) : "";
}

/** A summary's period ("2026-05-17" or "2026-05") as the page's language writes it. */
function periodText(period, kind) {
  const options = kind === "day"
    ? { dateStyle: "medium", timeZone: "UTC" }
    : { year: "numeric", month: "long", timeZone: "UTC" };
  return formatDate(kind === "day" ? `${period}T00:00:00Z` : `${period}-01T00:00:00Z`, options);
}

/** A page link of the API (absolute) as the path `api()` takes. */
function pagePath(link) {
  return link ? link.slice(link.indexOf(API_ROOT) + API_ROOT.length) : null;
}

/** The whole window as CSV, fetched with the session token (a plain link could not send
 * it) and handed to the browser as a file. */
async function download(path, filename) {
  const current = session();
  const response = await fetch(API_ROOT + path, {
    headers: { Accept: "text/csv", Authorization: `Bearer ${current.token}` },
    credentials: "omit",
    cache: "no-store",
  });
  if (!response.ok) {
    showProblem(await response.json().catch(() => null));
    return;
  }
  const url = URL.createObjectURL(await response.blob());
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A click handler whose refusal (a problem) is shown, never left unhandled. */
function guarded(action) {
  return async () => {
    try {
      await action();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status !== 401) showProblem(error.problem);
    }
  };
}

function csvButton(path, filename, label) {
  return h("button", { type: "button", class: "link-button", onclick: guarded(() => download(path, filename)) }, label);
}

/** A paged list: the rows of one page, "Newer" and "Older" from the API's page links. */
class PagedList {
  constructor({ id, title, path, head, row, empty }) {
    Object.assign(this, { id, title, path, head, row, empty });
    this.body = h("tbody");
    this.newer = h("button", { type: "button", class: "button", onclick: guarded(() => this.load(this.links.previous)) }, gettext("Newer"));
    this.older = h("button", { type: "button", class: "button", onclick: guarded(() => this.load(this.links.next)) }, gettext("Older"));
    this.links = { next: null, previous: null };
    this.section = h("section", { class: "history-part", id: this.id, "aria-labelledby": `${this.id}-title` },
      h("div", { class: "section-head" },
        h("h2", { id: `${this.id}-title`, text: this.title }),
        csvButton(this.path, `${this.id}.csv`, gettext("Download CSV"))),
      h("div", { class: "history-scroll" },
        h("table", { class: "history-table" }, h("thead", {}, h("tr", {}, this.head.map((text) => h("th", { scope: "col", text })))), this.body)),
      h("div", { class: "button-row" }, this.newer, this.older));
  }

  async load(link = null) {
    const path = link ? pagePath(link) : this.path;
    const page = await api(path);
    this.links = { next: pagePath(page.next), previous: pagePath(page.previous) };
    this.newer.disabled = !page.previous;
    this.older.disabled = !page.next;
    this.body.replaceChildren(...(page.results.length
      ? page.results.map((item) => this.row(item))
      : [h("tr", {}, h("td", { colspan: this.head.length, class: "notice", text: this.empty }))]));
  }
}

function opponents(match) {
  return match.opponents.map((other) => other.display_name || other.screen_name || "?").join(", ");
}

function game(match) {
  const variant = VARIANTS[match.variant] || match.variant;
  return match.is_practice ? gettext("%(variant)s (practice)", { variant }) : variant;
}

/** The match's finished hands, from its hand history (every card shown once a hand is over). */
async function showHands(match, cell, button) {
  button.disabled = true;
  try {
    const history = await api(`matches/${match.match_id}/hands`);
    cell.replaceChildren(history.hands.length
      ? h("ol", { class: "history-hands" }, history.hands.map((hand) => {
        const abandoned = gettext("abandoned");
        return h("li", {}, gettext("Hand %(number)s: %(outcome)s (points %(points)s; seed %(seed)s…)", {
          number: formatNumber(hand.number),
          outcome: hand.outcome ? HAND_OUTCOMES[hand.outcome.kind] || hand.outcome.kind : abandoned,
          points: hand.points.map((points) => formatNumber(points)).join(" / "),
          seed: hand.seed.slice(0, 12),
        }));
      }))
      : h("p", { class: "notice", text: gettext("No hand is over yet.") }));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showProblem(error.problem);
  } finally {
    button.disabled = false;
  }
}

function matchRow(match) {
  const hands = h("td", { class: "history-hands-cell" });
  const button = h("button", { type: "button", class: "link-button", onclick: () => showHands(match, hands, button) },
    ngettext("%(count)s hand", "%(count)s hands", match.hands));
  hands.append(button);
  return h("tr", { class: "history-match", dataset: { matchId: String(match.match_id) } },
    h("td", { text: when(match.created_at) }),
    h("td", { text: game(match) }),
    h("td", { text: opponents(match) }),
    h("td", { class: "outcome", text: OUTCOMES[match.outcome] || match.outcome }),
    h("td", { class: "amount", text: signedMoney(match.net) }),
    hands);
}

function movementRow(movement) {
  const kind = KINDS[movement.kind] || movement.kind;
  const label = movement.kind === "reversal"
    ? gettext("Reversal of %(what)s", { what: (KINDS[movement.counts_as] || movement.counts_as).toLocaleLowerCase(LANGUAGE) })
    : kind;
  return h("tr", { class: "history-movement", dataset: { kind: movement.counts_as } },
    h("td", { text: when(movement.created_at) }),
    h("td", { text: label }),
    h("td", { class: "amount", text: signedMoney(movement.amount) }),
    h("td", { class: "amount", text: plainMoney(movement.balance_after) }),
    h("td", { text: movement.match_id ? gettext("Game %(game)s", { game: movement.match_id }) : "" }));
}

/** The figures per day or month, with the totals and the balances around the window. */
class Summary {
  constructor() {
    this.period = "day";
    this.content = h("div");
    const choose = h("select", { id: "summary-period", onchange: guarded(() => { this.period = choose.value; return this.load(); }) },
      h("option", { value: "day", text: gettext("Per day") }), h("option", { value: "month", text: gettext("Per month") }));
    this.download = h("span");
    this.section = h("section", { class: "history-part", id: "history-summary", "aria-labelledby": "history-summary-title" },
      h("div", { class: "section-head" },
        h("h2", { id: "history-summary-title", text: gettext("Your figures") }),
        h("div", { class: "button-row" },
          h("label", { for: "summary-period", class: "hint", text: gettext("Show") }), choose, this.download)),
      this.content);
  }

  async load() {
    const path = `me/history/summary?period=${this.period}`;
    const summary = await api(path);
    this.download.replaceChildren(csvButton(path, `summary-${this.period}.csv`, gettext("Download CSV")));
    const totals = summary.totals;
    this.content.replaceChildren(
      h("p", { class: "hint", text: gettext("From %(start)s to %(end)s: balance %(opening)s then, %(closing)s now.", {
        start: when(summary.window_start), end: when(summary.window_end),
        opening: plainMoney(summary.opening_balance), closing: plainMoney(summary.closing_balance),
      }) }),
      h("dl", { class: "history-totals", id: "history-totals" },
        FIGURES.map(([key, label, shown]) => [h("dt", { text: label }), h("dd", { text: shown(totals[key]) })])),
      h("div", { class: "history-scroll" },
        h("table", { class: "history-table" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col", text: this.period === "day" ? gettext("Day") : gettext("Month") }),
            FIGURES.map(([, label]) => h("th", { scope: "col", text: label })))),
          h("tbody", {}, summary.periods.length
            ? summary.periods.map((row) => h("tr", {}, h("td", { text: periodText(row.period, this.period) }),
              FIGURES.map(([key, , shown]) => h("td", { class: "amount", text: shown(row[key]) }))))
            : h("tr", {}, h("td", { colspan: FIGURES.length + 1, class: "notice", text: gettext("Nothing moved in these 12 months.") }))))));
  }
}

function showMessage(id, title, text) {
  main.replaceChildren(h("section", { class: "ended", id, "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title`, text: title }), h("p", { text })));
  main.setAttribute("aria-busy", "false");
}

async function boot() {
  onSessionEnd(() => showMessage("session-ended", gettext("Your session has expired"), gettext("Open the game again from your operator's site.")));
  const started = await startSession(null, null);
  if (!started.session) {
    showMessage("no-session", gettext("Open the game from your operator's site"), gettext("Your history opens from the game page."));
    return;
  }
  if (followSessionLanguage(started.session.lang)) return;
  watchExpiry();
  const player = started.session.player || {};
  $("#account").replaceChildren(h("span", { class: "player", text: player.screen_name || player.display_name || gettext("Player") }));
  const matches = new PagedList({
    id: "history-matches",
    title: gettext("Your games"),
    path: "me/history/matches",
    head: [gettext("When"), gettext("Game"), gettext("Against"), gettext("Result"), pgettext("a game's net", "Net"), gettext("Hands")],
    row: matchRow,
    empty: gettext("No game in these 12 months."),
  });
  const movements = new PagedList({
    id: "history-transactions",
    title: gettext("Your wallet"),
    path: "me/history/transactions",
    head: [gettext("When"), gettext("What"), gettext("Amount"), gettext("Balance after"), pgettext("what money moved for", "For")],
    row: movementRow,
    empty: gettext("No movement in these 12 months."),
  });
  const summary = new Summary();
  main.replaceChildren(
    h("h2", { class: "history-title", text: gettext("Your last 12 months") }),
    summary.section, matches.section, movements.section);
  try {
    await Promise.all([summary.load(), matches.load(), movements.load()]);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status !== 401) showProblem(error.problem);
  }
  main.setAttribute("aria-busy", "false");
}

boot();
