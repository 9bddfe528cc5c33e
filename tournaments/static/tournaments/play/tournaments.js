// The hosted tournament page (docs/play.md "Tournaments"): /play/tournaments (the lobby) and
// /play/tournaments/{id} (one tournament). It uses the table page's session (sessionStorage
// of this tab: the page is opened from the table page's "Tournaments" link, or from a launch
// URL pointed here), its header, connection line, messages and catalogue, and the player's
// own socket (/ws/v1/me) for "your match is ready" and the wallet.

import { api, ApiError } from "../../games/play/api.js";
import { watchConnection } from "../../games/play/connection.js";
import { $, h } from "../../games/play/dom.js";
import { money } from "../../games/play/format.js";
import { clearNotices, dismissLatest, showProblem } from "../../games/play/notices.js";
import { PlayerSocket } from "../../games/play/player-socket.js";
import {
  onSessionEnd, startSession, takeLaunchToken, watchExpiry,
} from "../../games/play/session.js";
import { followSessionLanguage, gettext } from "../../games/play/i18n.js";
import { TournamentLobby } from "./lobby.js";
import { TournamentScreen, tournamentIdOf } from "./tournament.js";

const main = $("#main");
let screen = null;
let player = {};

function exchange(launchToken) {
  return api("launch/session", { method: "POST", body: { launch_token: launchToken }, auth: false });
}

function showMessage(id, title, text) {
  main.replaceChildren(h("section", { class: "ended", id, "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title`, text: title }), h("p", { text })));
  main.setAttribute("aria-busy", "false");
}

/** The money the player can play with (as the table page's header shows it). */
function walletBalance(wallet) {
  if (wallet.wallet_mode !== "seamless") return money(wallet.balance);
  return wallet.operator_balance ? money(wallet.operator_balance) : gettext("balance unavailable");
}

async function renderAccount() {
  const name = h("span", { class: "player", id: "player-name", text: player.screen_name || player.display_name || gettext("Player") });
  $("#account").replaceChildren(name);
  try {
    const wallet = await api("me/wallet");
    $("#account").replaceChildren(name, h("span", { class: "balance", id: "wallet-balance", "aria-label": gettext("Wallet balance") }, walletBalance(wallet)));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
}

function listenToThePlayer() {
  const socket = new PlayerSocket({
    hello: () => { // what a lost push would have said
      renderAccount();
      if (screen && screen.refreshEntry) screen.refreshEntry();
    },
    message: (message) => {
      if (message.type === "wallet_changed") renderAccount();
      else if (screen && screen.pushed) screen.pushed(message);
    },
  });
  socket.start();
}

async function boot() {
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && dismissLatest()) event.preventDefault();
  });
  onSessionEnd(() => {
    if (screen) screen.stop();
    showMessage("session-ended", gettext("Your session has expired"), gettext("Open the game again from your operator's site."));
  });
  let started;
  try {
    started = await startSession(takeLaunchToken(), exchange);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showMessage("launch-failed", gettext("This game link cannot be used"), gettext("Game links work once and only for a short time. Open the game again from your operator's site."));
    showProblem(error.problem);
    return;
  }
  if (started.ended) {
    showMessage("session-ended", gettext("Your session has expired"), gettext("Open the game again from your operator's site."));
    return;
  }
  if (!started.session) {
    showMessage("no-session", gettext("Open the game from your operator's site"), gettext("This page is opened with a game link from the site where you play."));
    return;
  }
  if (followSessionLanguage(started.session.lang)) return;
  clearNotices();
  watchExpiry();
  watchConnection();
  player = started.session.player || {};
  renderAccount();
  const tournamentId = tournamentIdOf(window.location.pathname);
  screen = tournamentId ? new TournamentScreen(main, tournamentId) : new TournamentLobby(main);
  listenToThePlayer();
  await screen.start();
  main.focus({ preventScroll: true });
}

boot();
