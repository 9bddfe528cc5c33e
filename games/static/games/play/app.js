// The hosted table page (docs/play.md). Opened from an operator's launch URL
// (/play/#launch=glt_...): the launch token is exchanged for a player session at once and
// removed from the address bar; the session token lives in sessionStorage only.

import { api, ApiError } from "./api.js";
import { watchConnection } from "./connection.js";
import { $, h } from "./dom.js";
import { money, plainMoney } from "./format.js";
import { LobbyScreen } from "./lobby.js";
import { clearNotices, dismissLatest, showNotice, showProblem } from "./notices.js";
import { PlayerSocket } from "./player-socket.js";
import { Protection } from "./protection.js";
import {
  onSessionEnd, remember, session, startSession, takeLaunchToken, watchExpiry,
} from "./session.js";
import { followSessionLanguage, gettext } from "./i18n.js";

const main = $("#main");
let screen = null;
// Player protection (protection.js) and the player's own socket that carries its pushes:
// for the whole page, whichever screen it shows.
let protection = null;
let playerSocket = null;

function exchange(launchToken) {
  return api("launch/session", { method: "POST", body: { launch_token: launchToken }, auth: false });
}

function safeUrl(value) {
  try {
    const url = new URL(value);
    return ["http:", "https:"].includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

function showReturnLink(returnUrl) {
  const link = $("#return-link");
  const url = safeUrl(returnUrl);
  if (!url) {
    link.hidden = true;
    return;
  }
  link.href = url;
  link.textContent = gettext("Back to %(site)s", { site: new URL(url).host });
  link.hidden = false;
}

function stopScreen() {
  if (screen) screen.stop();
  screen = null;
}

// The table's modules (table.js and what it imports: half of the page's code) load when a
// table is first opened, so a launch into the lobby carries only what the lobby shows.
let tableModule = null;
let going = 0;
const TABLE_RETRY_MS = 3000;

function loadTable() {
  tableModule ??= import("./table.js").catch((error) => {
    tableModule = null; // the next try fetches it again
    throw error;
  });
  return tableModule;
}

/** Where to go: {screen: "lobby"} | {screen: "table", match} | {screen: "watch", match}; a
 * table's `back` is the page that sent the player there (a tournament's, which remembers
 * the place before it opens this page: docs/play.md "Tournaments"). */
async function go(place) {
  const turn = ++going;
  stopScreen();
  remember(place);
  main.setAttribute("aria-busy", "true");
  const options = { go, refreshWallet, protection };
  if (place.screen === "table" || place.screen === "watch") {
    let TableScreen;
    try {
      ({ TableScreen } = await loadTable());
    } catch {
      if (turn !== going) return;
      showProblem({
        title: gettext("The game server cannot be reached"),
        detail: gettext("Check your connection; the page keeps trying."),
      });
      window.setTimeout(() => turn === going && go(place), TABLE_RETRY_MS);
      return;
    }
    if (turn !== going) return; // the player went elsewhere meanwhile
    screen = new TableScreen(main, { ...options, matchId: place.match, watch: place.screen === "watch", back: place.back || null });
  } else {
    screen = new LobbyScreen(main, options);
  }
  screen.start();
  main.focus({ preventScroll: true });
}

// One read of GET me/wallet at a time: a call while one is in flight asks for one more
// after it (the money may have moved after that read's answer was made), however many
// calls came meanwhile.
let walletReading = null;
let walletAgain = false;

function refreshWallet() {
  if (walletReading) {
    walletAgain = true;
    return walletReading;
  }
  walletReading = (async () => {
    try {
      do {
        walletAgain = false;
        await readWallet();
      } while (walletAgain);
    } finally {
      walletReading = null;
    }
  })();
  return walletReading;
}

async function readWallet() {
  const current = session();
  if (!current) return;
  try {
    const wallet = await api("me/wallet");
    if (session()) renderAccount(wallet);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
}

/** The money the player can play with: in the seamless model it is in the operator's own
 * wallet (`operator_balance`, null when that wallet did not answer), the platform's only
 * holding money in transit. */
function walletBalance(wallet) {
  if (wallet.wallet_mode !== "seamless") return money(wallet.balance);
  return wallet.operator_balance ? money(wallet.operator_balance) : gettext("balance unavailable");
}

function renderAccount(wallet = null) {
  const current = session();
  const account = $("#account");
  if (!current) {
    account.replaceChildren();
    return;
  }
  const player = current.player || {};
  const parts = [
    h("span", { class: "player", id: "player-name", text: player.screen_name || player.display_name || gettext("Player") }),
    wallet ? h("span", { class: "balance", id: "wallet-balance", "aria-label": gettext("Wallet balance") },
      walletBalance(wallet)) : null,
    wallet && wallet.practice_balance && wallet.practice_balance.amount !== "0"
      ? h("span", { class: "balance practice", id: "practice-balance", "aria-label": gettext("Practice chips") },
        plainMoney(wallet.practice_balance))
      : null,
  ];
  account.replaceChildren(...parts.filter(Boolean));
}

/** The session is over (expired or revoked): say so, and where to open the game again. */
function showEnded(returnUrl) {
  stopScreen();
  stopProtection();
  renderAccount();
  const url = safeUrl(returnUrl);
  main.replaceChildren(
    h("section", { class: "ended", id: "session-ended", "aria-labelledby": "ended-title" },
      h("h2", { id: "ended-title", text: gettext("Your session has expired") }),
      h("p", { text: gettext("Open the game again from your operator's site.") }),
      url ? h("p", {}, h("a", { class: "button primary", href: url, rel: "noopener noreferrer" }, gettext("Back to the site"))) : null),
  );
  main.setAttribute("aria-busy", "false");
}

function showNoSession() {
  main.replaceChildren(
    h("section", { class: "ended", id: "no-session", "aria-labelledby": "none-title" },
      h("h2", { id: "none-title", text: gettext("Open the game from your operator's site") }),
      h("p", { text: gettext("This page is opened with a game link from the site where you play.") })),
  );
  main.setAttribute("aria-busy", "false");
}

function showLaunchFailed(problem) {
  main.replaceChildren(
    h("section", { class: "ended", id: "launch-failed", "aria-labelledby": "failed-title" },
      h("h2", { id: "failed-title", text: gettext("This game link cannot be used") }),
      h("p", { text: gettext("Game links work once and only for a short time. Open the game again from your operator's site.") })),
  );
  main.setAttribute("aria-busy", "false");
  if (problem) showProblem(problem);
}

function startProtection() {
  protection = new Protection();
  protection.start();
  playerSocket = new PlayerSocket({
    hello: () => { // what a lost push would have said
      protection.load();
      refreshWallet();
    },
    message: (message) => {
      // The player's money moved (a buy-in, a payout, a refund...): the header reads the
      // wallet again; a seamless balance is the operator's, so it is read, never pushed.
      if (message.type === "wallet_changed") refreshWallet();
      else if (message.type === "tournament.match_ready") tournamentMatchReady(message);
      else protection.pushed(message);
    },
  });
  playerSocket.start();
}

/** R14: the player's next tournament match is seated; its seat is taken from the
 * tournament's page (docs/play.md "Tournaments"), wherever the player is now. */
function tournamentMatchReady(message) {
  const address = new URL(`/play/tournaments/${encodeURIComponent(message.tournament_id)}`, window.location.origin);
  const language = new URLSearchParams(window.location.search).get("lang");
  if (language) address.searchParams.set("lang", language);
  showNotice(
    gettext("Your tournament match is ready"),
    gettext("Take your seat from the tournament's page: a player who does not come in time forfeits."),
    { name: "tournament-ready", link: { href: address.pathname + address.search, text: gettext("Go to the tournament") } },
  );
}

function stopProtection() {
  if (playerSocket) playerSocket.stop();
  if (protection) protection.stop();
  playerSocket = null;
  protection = null;
}

function setUpHelp() {
  const dialog = $("#help");
  $("#help-button").addEventListener("click", () => dialog.showModal());
  $("#help-close").addEventListener("click", () => dialog.close());
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    if (event.key === "?" && !dialog.open) {
      event.preventDefault();
      dialog.showModal();
    } else if (event.key === "Escape" && !dialog.open) {
      if (dismissLatest()) event.preventDefault();
    }
  });
}

async function boot() {
  setUpHelp();
  onSessionEnd(() => {
    const ended = window.sessionStorage.getItem("gin.play.session.return");
    showEnded(ended);
  });
  const launchToken = takeLaunchToken();
  let started;
  try {
    started = await startSession(launchToken, exchange);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showLaunchFailed(error.problem);
    return;
  }
  if (started.missing) {
    showNoSession();
    return;
  }
  if (started.ended) {
    showReturnLink(started.returnUrl);
    showEnded(started.returnUrl);
    return;
  }
  const current = started.session;
  if (followSessionLanguage(current.lang)) return;
  clearNotices();
  showReturnLink(current.options && current.options.return_url);
  watchExpiry();
  watchConnection();
  renderAccount();
  refreshWallet();
  startProtection();
  const options = current.options || {};
  if (current.place) go(current.place);
  else if (options.mode === "watch" && options.match) go({ screen: "watch", match: options.match });
  else go({ screen: "lobby" });
}

boot();
