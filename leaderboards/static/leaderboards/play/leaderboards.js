// The hosted leaderboard page (R15; docs/play.md "Leaderboards"): the player's operator's
// boards and the network's, by rating in a variant family or by net tournament winnings in a
// currency, for a day, an ISO week or a month (UTC), best first a page at a time, the
// player's own row marked; and the player's setting to stay off every board. It uses the
// table page's session (sessionStorage of this tab: opened from the table page's or the
// tournament page's "Leaderboards" link, or from a launch URL pointed here).

import { api, API_ROOT, ApiError, problemIs } from "../../games/play/api.js";
import { $, h } from "../../games/play/dom.js";
import { plainMoney, signedMoney } from "../../games/play/format.js";
import { clearNotices, showProblem } from "../../games/play/notices.js";
import { onSessionEnd, startSession, takeLaunchToken, watchExpiry } from "../../games/play/session.js";
import { followSessionLanguage, formatDate, formatNumber, gettext, pgettext } from "../../games/play/i18n.js";

const main = $("#main");
const PRACTICE_CURRENCY = "XGC"; // play-money chips: no tournament board
const PAGE_SIZE = "20"; // rows a page: a phone's screenful or two
let player = {};

const SCOPES = [
  ["operator", gettext("Your site")],
  ["network", gettext("The network")],
];
const BOARDS = [
  ["rating", gettext("By rating")],
  ["winnings", gettext("By tournament winnings")],
];
const PERIODS = [
  ["day", gettext("Day")],
  ["week", gettext("Week")],
  ["month", gettext("Month")],
];
const FAMILIES = [
  ["heads_up_match", gettext("Heads-up Match Play and Money Play")],
  ["heads_up_ftk", gettext("Heads-up First To Knock")],
  ["multiplayer", gettext("Three and four players")],
];

function exchange(launchToken) {
  return api("launch/session", { method: "POST", body: { launch_token: launchToken }, auth: false });
}

function showMessage(id, title, text) {
  main.replaceChildren(h("section", { class: "ended", id, "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title`, text: title }), h("p", { text })));
  main.setAttribute("aria-busy", "false");
}

/** Today in UTC, as the date input writes it (the periods are UTC days). */
function todayUtc() {
  return new Date().toISOString().slice(0, 10);
}

/** A page link of the API (absolute) as the path `api()` takes. */
function pagePath(link) {
  return link ? link.slice(link.indexOf(API_ROOT) + API_ROOT.length) : null;
}

/** The period as the page's language says it: "7 Dec 2026", "7–13 Dec 2026", "December 2026". */
function periodText(period) {
  const start = new Date(period.starts_at);
  const last = new Date(Date.parse(period.ends_at) - 1);
  if (period.kind === "day") return formatDate(start, { dateStyle: "long", timeZone: "UTC" });
  if (period.kind === "month") return formatDate(start, { year: "numeric", month: "long", timeZone: "UTC" });
  const range = new Intl.DateTimeFormat(document.documentElement.lang || "en", { dateStyle: "medium", timeZone: "UTC" });
  return gettext("Week %(week)s: %(dates)s", { week: period.label.split("-W")[1], dates: range.formatRange(start, last) });
}

function select(id, label, options, value, onchange) {
  return h("div", { class: "board-control" },
    h("label", { for: id, text: label }),
    h("select", { id, onchange: (event) => onchange(event.target.value) },
      options.map(([optionValue, text]) => h("option", { value: optionValue, text, selected: optionValue === value }))));
}

class Leaderboard {
  constructor(currencies) {
    this.query = { scope: "operator", board: "rating", period: "week", date: todayUtc(), family: FAMILIES[0][0], currency: currencies[0] };
    this.currencies = currencies;
    this.links = { next: null, previous: null };
    this.controls = h("div", { class: "board-controls", role: "group", "aria-label": gettext("Which leaderboard") });
    this.heading = h("h3", { id: "board-period" });
    this.body = h("tbody");
    this.head = h("tr");
    this.note = h("p", { class: "hint", id: "board-note" });
    this.previous = h("button", { type: "button", class: "button", id: "board-previous", onclick: () => this.load(this.links.previous) }, gettext("Higher places"));
    this.next = h("button", { type: "button", class: "button", id: "board-next", onclick: () => this.load(this.links.next) }, gettext("Lower places"));
    this.section = h("section", { class: "board-part", id: "leaderboard", "aria-labelledby": "leaderboard-title" },
      h("h2", { id: "leaderboard-title", text: gettext("Leaderboards") }),
      this.controls,
      this.heading,
      h("div", { class: "board-scroll" }, h("table", { class: "board-table", id: "board-table" }, h("thead", {}, this.head), this.body)),
      this.note,
      h("div", { class: "button-row" }, this.previous, this.next));
    this.renderControls();
  }

  set(name, value) {
    this.query[name] = value;
    this.renderControls();
    this.load();
  }

  renderControls() {
    const { query } = this;
    const dated = h("div", { class: "board-control" },
      h("label", { for: "board-date", text: gettext("Date (UTC)") }),
      h("input", { type: "date", id: "board-date", value: query.date, max: todayUtc(), onchange: (event) => this.set("date", event.target.value || todayUtc()) }));
    const which = query.board === "rating"
      ? select("board-family", gettext("Game"), FAMILIES, query.family, (value) => this.set("family", value))
      : select("board-currency", gettext("Currency"), this.currencies.map((code) => [code, code]), query.currency, (value) => this.set("currency", value));
    this.controls.replaceChildren(
      select("board-scope", pgettext("whose players a leaderboard ranks", "Players"), SCOPES, query.scope, (value) => this.set("scope", value)),
      select("board-kind", pgettext("what a leaderboard ranks by", "Ranking"), BOARDS, query.board, (value) => this.set("board", value)),
      select("board-period-kind", gettext("Period"), PERIODS, query.period, (value) => this.set("period", value)),
      dated,
      which);
  }

  path() {
    const { query } = this;
    const params = new URLSearchParams({ scope: query.scope, board: query.board, period: query.period, date: query.date, page_size: PAGE_SIZE });
    if (query.board === "rating") params.set("family", query.family);
    else params.set("currency", query.currency);
    return `leaderboards?${params}`;
  }

  async load(link = null) {
    main.setAttribute("aria-busy", "true");
    let page;
    try {
      page = await api(link ? pagePath(link) : this.path());
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 401) return; // the session is over: the page says so
      this.empty(problemIs(error.problem, "leaderboard-network-closed")
        ? gettext("Your site does not take part in the network: it has no network leaderboard.")
        : gettext("The leaderboard could not be loaded."));
      if (!problemIs(error.problem, "leaderboard-network-closed")) showProblem(error.problem);
      main.setAttribute("aria-busy", "false");
      return;
    }
    this.render(page);
    main.setAttribute("aria-busy", "false");
  }

  empty(text) {
    this.heading.textContent = "";
    this.head.replaceChildren();
    this.body.replaceChildren(h("tr", {}, h("td", { class: "notice", id: "board-empty", text })));
    this.note.textContent = "";
    this.previous.disabled = true;
    this.next.disabled = true;
  }

  render(page) {
    this.links = { next: page.next, previous: page.previous };
    this.previous.disabled = !page.previous;
    this.next.disabled = !page.next;
    this.heading.textContent = periodText(page.period);
    const rating = page.board === "rating";
    const columns = rating
      ? [gettext("Place"), gettext("Player"), gettext("Rating"), gettext("Rated games")]
      : [gettext("Place"), gettext("Player"), pgettext("net tournament winnings", "Net"), gettext("Prizes"), gettext("Paid in"), gettext("Tournaments")];
    // Every column but the player's holds a figure: headed on the right, as the figures stand.
    this.head.replaceChildren(...columns.map((text, index) => h("th", { scope: "col", class: index === 1 ? "" : "amount", text })));
    this.note.textContent = rating
      ? gettext("Players whose rating changed in this period, at their latest rating. Provisional ratings (RD above 110) are not ranked.")
      : gettext("Money prizes minus buy-ins and fees, for the tournaments that ended in this period. Tickets count nothing.");
    if (!page.results.length) {
      this.body.replaceChildren(h("tr", {}, h("td", { colspan: columns.length, class: "notice", id: "board-empty", text: gettext("Nobody is on this leaderboard yet.") })));
      return;
    }
    this.body.replaceChildren(...page.results.map((row) => {
      const name = h("td", { class: "board-name" }, row.screen_name, row.me ? h("span", { class: "you-badge", text: gettext("you") }) : null);
      const figures = rating
        ? [formatNumber(row.rating, { minimumFractionDigits: 2, maximumFractionDigits: 2 }), formatNumber(row.matches)]
        : [signedMoney(row.net), plainMoney(row.prizes), plainMoney(row.paid_in), formatNumber(row.tournaments)];
      return h("tr", { class: "board-row", dataset: { rank: String(row.rank), mine: row.me ? "yes" : "no" } },
        h("td", { class: "board-rank", text: formatNumber(row.rank) }),
        name,
        ...figures.map((text) => h("td", { class: "amount", text })));
    }));
  }
}

/** The player's own setting: on the boards (under their screen name), or off them. */
class MySetting {
  constructor(changed) {
    this.changed = changed;
    this.section = h("section", { class: "board-part", id: "my-leaderboard", "aria-labelledby": "my-leaderboard-title" },
      h("h2", { id: "my-leaderboard-title", text: gettext("You on the leaderboards") }));
    this.content = h("div");
    this.section.append(this.content);
  }

  async load() {
    this.render(await api("me/leaderboard-opt-out"));
  }

  render(setting) {
    const box = h("input", { type: "checkbox", id: "board-show-me", checked: !setting.leaderboard_opt_out, onchange: () => this.change(box) });
    const said = setting.screen_name
      ? gettext("Only your screen name, %(name)s, is shown.", { name: setting.screen_name })
      : gettext("You have no screen name yet: you appear on no leaderboard until you choose one.");
    this.content.replaceChildren(
      h("p", {}, box, " ", h("label", { for: "board-show-me", text: gettext("Show me on the leaderboards") })),
      h("p", { class: "hint", id: "board-show-me-hint", text: said }));
  }

  async change(box) {
    box.disabled = true;
    try {
      this.render(await api("me/leaderboard-opt-out", { method: "PUT", body: { leaderboard_opt_out: !box.checked } }));
      this.changed();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      box.checked = !box.checked;
      box.disabled = false;
      if (error.status !== 401) showProblem(error.problem);
    }
  }
}

/** The currencies a winnings board may be in: the player's wallet's first, then those of the
 * tournaments the player can see (the lobby's first page). */
async function currencies() {
  const found = [player.wallet_currency];
  try {
    const lobby = await api("tournaments");
    for (const tournament of lobby.results || []) found.push(tournament.buy_in.currency);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
  const unique = [...new Set(found.filter((code) => code && code !== PRACTICE_CURRENCY))];
  return unique.length ? unique : [player.wallet_currency || "EUR"];
}

async function boot() {
  onSessionEnd(() => showMessage("session-ended", gettext("Your session has expired"), gettext("Open the game again from your operator's site.")));
  let started;
  try {
    started = await startSession(takeLaunchToken(), exchange);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showMessage("launch-failed", gettext("This game link cannot be used"), gettext("Game links work once and only for a short time. Open the game again from your operator's site."));
    showProblem(error.problem);
    return;
  }
  if (!started.session) {
    showMessage("no-session", gettext("Open the game from your operator's site"), gettext("This page is opened with a game link from the site where you play."));
    return;
  }
  if (followSessionLanguage(started.session.lang)) return;
  clearNotices();
  watchExpiry();
  player = started.session.player || {};
  $("#account").replaceChildren(h("span", { class: "player", id: "player-name", text: player.screen_name || player.display_name || gettext("Player") }));
  const board = new Leaderboard(await currencies());
  const mine = new MySetting(() => board.load());
  main.replaceChildren(board.section, mine.section);
  try {
    await Promise.all([board.load(), mine.load()]);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status !== 401) showProblem(error.problem);
  }
  main.setAttribute("aria-busy", "false");
  main.focus({ preventScroll: true });
}

boot();
