// Player protection on the page (docs/player-protection.md "The hosted page"): the play
// session's strip (time played, net position, in play, the limits), the limits asked before
// a real-money seat where the profile requires them, the reality check dialog, and the
// notices of a reached limit or an ended session.
//
// The state is GET /api/v1/me/play-session, read on load, after every `hello` of the
// player's socket (player-socket.js) and when a table's game changes status; the socket's
// `reality_check` and `play_session` pushes update it in between. A session the page knew
// that is gone (an ended session is not "open") is looked up in GET /me/play-sessions, so
// the page says why it ended even when the push was lost.

import { api, ApiError, problemIs } from "./api.js";
import { $, h } from "./dom.js";
import { clockText, plainMoney, SESSION_ENDS, signedMoney, spokenDuration } from "./format.js";
import { askLimits } from "./limits.js";
import { dismiss, showNotice, showProblem } from "./notices.js";
import { formatNumber, gettext, LANGUAGE, pgettext } from "./i18n.js";

// The reasons a session's end stops the player's game after its hand (an `end_of_hand`
// profile); a break or an idle end leaves the game in progress be.
const STOPPING = ["player", "duration_limit", "loss_limit"];
// The hosted history page (docs/play.md "History"), where a reality check's history link goes.
const HISTORY_PAGE = "history";

/** The history page in the page's language. */
function historyPage() {
  return `${HISTORY_PAGE}?lang=${encodeURIComponent(LANGUAGE)}`;
}
// How the strip names an ended session's end.
const ENDED_AS = {
  duration_limit: gettext("time limit reached"),
  loss_limit: gettext("loss limit reached"),
  player: gettext("ended by you"),
  idle: gettext("no play for a while"),
  break: gettext("your break began"),
};

export class Protection {
  constructor() {
    this.profile = null;
    this.session = null; // the open session (open or limit_reached), or null
    this.ended = null; // the session that ended while the page was open
    this.readAt = 0;
    this.loading = null;
    this.listeners = new Set();
    this.dialog = null;
    this.confirmEnd = false;
    this.told = new Set(); // "<session>/<state>": each notice once
    this.answered = new Set(); // reality checks answered here (a late read shows none again)
  }

  start() {
    this.ticker = window.setInterval(() => this.tick(), 1000);
    return this.load();
  }

  stop() {
    this.stopped = true;
    window.clearInterval(this.ticker);
    this.closeCheck();
    const strip = $("#play-session");
    strip.hidden = true;
    strip.replaceChildren();
  }

  /** `listener()` after each change (the table shows a game stopping); answers the unsubscribe. */
  onChange(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The state now, read once however many ask at the same time. */
  load() {
    if (!this.loading) {
      this.loading = this.read().finally(() => { this.loading = null; });
    }
    return this.loading;
  }

  async read() {
    let state;
    try {
      state = await api("me/play-session");
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return; // the session is over (401), or the server is away: the next read will do
    }
    if (this.stopped) return;
    this.profile = state.profile;
    if (state.session) {
      this.seen(state.session);
      return;
    }
    const known = this.session;
    this.session = null;
    if (known) await this.readEnded(known.id);
    this.changed();
  }

  /** The session the page showed is not open any more: how it ended (its last figures). */
  async readEnded(id) {
    try {
      const page = await api("me/play-sessions");
      const found = (page.results || []).find((session) => session.id === id);
      if (found && !this.stopped) this.seen(found);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }

  /** A message of the player's socket. */
  pushed(message) {
    if (message.type === "reality_check" && message.reality_check) {
      this.showCheck(message.reality_check);
      this.load(); // the figures beside it
    } else if (message.type === "play_session" && message.play_session) {
      this.seen(message.play_session);
    }
  }

  /** The game at the table changed status (or a paused turn of the player's own waits for a
   * check not on screen): read the state, in case a push was lost. */
  tableChanged() {
    this.load();
  }

  seen(session) {
    if (session.state === "ended") {
      if (this.session && this.session.id === session.id) this.session = null;
      this.ended = session;
      this.closeCheck();
      this.tell(session);
    } else {
      if (this.ended && this.ended.id !== session.id) this.ended = null; // a new session
      this.session = session;
      this.readAt = Date.now();
      if (session.state === "limit_reached") this.tell(session);
      const check = session.reality_check;
      if (check && !check.answer) this.showCheck(check);
      else this.closeCheck();
    }
    this.changed();
  }

  changed() {
    this.renderStrip();
    for (const listener of this.listeners) listener();
  }

  // --- What the table asks -----------------------------------------------------------------
  /** Whether the player's own session ended (or reached its limit) so that their games stop
   * after the hand in play: the reason, or null. */
  stoppingReason() {
    if (!this.profile || this.profile.limit_reached !== "end_of_hand") return null;
    if (this.session && this.session.state === "limit_reached") {
      return this.session.limit_reached === "loss" ? "loss_limit" : "duration_limit";
    }
    if (this.ended && STOPPING.includes(this.ended.end_reason)) return this.ended.end_reason;
    return null;
  }

  /** A check is on screen (the table leaves a paused turn of the player's own be). */
  get checkShown() {
    return Boolean(this.dialog && this.dialog.open);
  }

  // --- Limits before play ----------------------------------------------------------------
  /** Before a real-money seat: where the profile asks for limits and the session has none,
   * the player sets them (false: they did not, nothing is sent). */
  async limitsFirst() {
    if (!this.profile) await this.load();
    const profile = this.profile;
    if (!profile || !profile.session_limits_required) return true;
    if (this.session && this.session.limits_set_at) return true;
    return this.setLimits();
  }

  /** `call()` (a buy-in); a `session-limits-required` answer asks for the limits and tries
   * once more. Answers what `call` answers, or null when the player did not set them. */
  async withLimits(call) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ApiError) || !problemIs(error.problem, "session-limits-required")) throw error;
      await this.load();
      if (!(await this.setLimits())) return null;
      return call();
    }
  }

  async setLimits() {
    const state = await askLimits({ profile: this.profile });
    if (!state) {
      await this.load(); // a session-active answer: the limits are set already
      return Boolean(this.session && this.session.limits_set_at);
    }
    this.profile = state.profile;
    dismiss(document.querySelector('[data-notice="play-session"]')); // an old session's
    if (state.session) this.seen(state.session);
    return true;
  }

  // --- The strip -------------------------------------------------------------------------
  renderStrip() {
    const strip = $("#play-session");
    const session = this.session || this.ended;
    if (!session || this.stopped) {
      strip.hidden = true;
      strip.replaceChildren();
      return;
    }
    const over = session.state === "ended";
    const fact = (name, id, text) => h("div", { class: "session-fact" }, h("dt", { text: name }), h("dd", { id, text }));
    const ended = ENDED_AS[session.end_reason] || pgettext("a session's end", "over");
    const title = over
      ? gettext("Session ended: %(why)s", { why: ended })
      : gettext("Your session");
    strip.replaceChildren(...[
      h("h2", { id: "session-title", class: "session-title", text: title }),
      h("dl", { class: "session-facts" },
        fact(gettext("Time played"), "session-elapsed", clockText(this.elapsed(session))),
        fact(pgettext("a session's net position", "Net"), "session-net", signedMoney(session.net_position)),
        over ? null : fact(gettext("In play"), "session-in-play", plainMoney(session.in_play)),
        limitsText(session) ? fact(gettext("Limits"), "session-limits", limitsText(session)) : null,
        session.state === "limit_reached"
          ? fact(gettext("Limit reached"), "session-limit-reached",
            session.limit_reached === "loss" ? pgettext("the limit reached", "loss") : pgettext("the limit reached", "time"))
          : null),
      over ? null : this.renderEnd(),
    ].filter(Boolean));
    strip.dataset.state = session.state;
    strip.hidden = false;
  }

  renderEnd() {
    if (!this.confirmEnd) {
      return h("button", {
        type: "button", class: "button subtle", id: "session-end",
        onclick: () => { this.confirmEnd = true; this.renderStrip(); $("#session-end-confirm").focus(); },
      }, gettext("End session…"));
    }
    const stops = this.profile && this.profile.limit_reached === "end_of_hand";
    return h("div", { class: "button-row session-end" },
      h("p", { class: "warning", text: stops
        ? gettext("Ending the session stops your game in progress after the hand being played; every stake in it is returned.")
        : gettext("A game in progress is played to its end; no new real-money game starts in this session.") }),
      h("button", { type: "button", class: "button danger", id: "session-end-confirm", onclick: () => this.endSession() }, gettext("End the session")),
      h("button", { type: "button", class: "button", onclick: () => { this.confirmEnd = false; this.renderStrip(); } }, gettext("Keep playing")));
  }

  async endSession() {
    this.confirmEnd = false;
    const known = this.session;
    try {
      await api("me/play-session/end", { method: "POST", body: {} });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status !== 401) showProblem(error.problem);
    }
    if (known) await this.readEnded(known.id);
    await this.load();
  }

  elapsed(session) {
    const running = session.state !== "ended" && session === this.session;
    return session.elapsed_seconds + (running ? (Date.now() - this.readAt) / 1000 : 0);
  }

  tick() {
    const el = $("#session-elapsed");
    if (el && this.session) el.textContent = clockText(this.elapsed(this.session));
  }

  // --- Notices -----------------------------------------------------------------------------
  /** Say once that the session reached its limit or ended, and what that does to a game. */
  tell(session) {
    const key = `${session.id}/${session.state}`;
    if (this.told.has(key)) return;
    this.told.add(key);
    const why = SESSION_ENDS[session.state === "ended" ? session.end_reason : session.limit_reached];
    const title = why || gettext("Your session has ended");
    const stops = this.profile && this.profile.limit_reached === "end_of_hand";
    const stopping = session.state === "ended" ? STOPPING.includes(session.end_reason) : true;
    const game = stops && stopping
      ? gettext("A game in progress stops after the hand being played, and every stake in it is returned.")
      : gettext("A game in progress is played to its end.");
    const next = session.state === "ended"
      ? gettext("To play for real money again, start a new session.")
      : gettext("No new real-money game starts in this session; end it to start another.");
    showNotice(title, pgettext("two sentences", "%(first)s %(second)s", { first: game, second: next }), { name: "play-session" });
  }

  // --- The reality check -------------------------------------------------------------------
  showCheck(check) {
    if (this.stopped || this.answered.has(check.id)) return;
    if (this.dialog && this.dialog.dataset.checkId === String(check.id)) {
      if (!this.dialog.open) this.dialog.showModal();
      return;
    }
    this.closeCheck();
    const session = this.session;
    const dialog = h("dialog", {
      id: "reality-check", class: "reality-check",
      "aria-labelledby": "reality-check-title", "aria-describedby": "reality-check-facts",
      dataset: { checkId: check.id },
    },
    h("h2", { id: "reality-check-title", text: gettext("Reality check") }),
    h("div", { id: "reality-check-facts" },
      h("p", { id: "reality-check-elapsed", text: gettext("You have been playing for %(duration)s this session.", { duration: spokenDuration(check.elapsed_seconds) }) }),
      h("p", { id: "reality-check-net", text: gettext("Net position: %(net)s (what you won minus what you lost in this session's games that are over).", { net: signedMoney(check.net_position) }) }),
      h("p", { class: "hint", text: gettext("At a table, your turn's clock is paused until you answer.") })),
    h("ul", { class: "plain-list reality-check-links" },
      h("li", {}, h("a", { id: "reality-check-history", href: historyPage() }, gettext("Your history"))),
      h("li", {}, h("details", { id: "reality-check-limits" },
        h("summary", { text: gettext("Your limits") }),
        h("p", { text: session && limitsText(session)
          ? gettext("This session: %(limits)s.", { limits: limitsText(session) })
          : gettext("This session has no limits.") }),
        h("p", { class: "hint", text: gettext("A session's limits hold until it ends; end it to choose new ones.") })))),
    h("p", { class: "form-error", id: "reality-check-error", role: "alert" }));
    const answer = (value) => this.answer(dialog, check, value);
    dialog.append(h("div", { class: "button-row" },
      h("button", { type: "button", class: "button primary", id: "reality-check-continue", onclick: () => answer("continue") }, gettext("Continue playing")),
      h("button", { type: "button", class: "button", id: "reality-check-end", onclick: () => answer("end_session") }, gettext("End session"))));
    // Answered with a button only: Esc does not put it away unanswered.
    dialog.addEventListener("cancel", (event) => event.preventDefault());
    dialog.addEventListener("close", () => {
      if (this.dialog === dialog && !dialog.dataset.answered) dialog.showModal();
    });
    this.dialog = dialog;
    document.body.append(dialog);
    dialog.showModal();
    $("#reality-check-continue", dialog).focus();
  }

  async answer(dialog, check, value) {
    const buttons = dialog.querySelectorAll("button");
    for (const button of buttons) button.disabled = true;
    try {
      await api(`me/reality-checks/${check.id}`, { method: "POST", body: { answer: value } });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (!problemIs(error.problem, "reality-check-not-open")) {
        for (const button of buttons) button.disabled = false;
        $("#reality-check-error", dialog).textContent = error.problem.detail || error.problem.title;
        return;
      }
    }
    dialog.dataset.answered = value;
    this.answered.add(check.id);
    if (this.dialog === dialog) this.closeCheck();
    const known = this.session;
    if (value === "end_session" && known) await this.readEnded(known.id);
    await this.load();
  }

  closeCheck() {
    const dialog = this.dialog;
    this.dialog = null;
    if (!dialog) return;
    dialog.dataset.answered = dialog.dataset.answered || "closed";
    if (dialog.open) dialog.close();
    dialog.remove();
  }
}

/** The session's limits: "60 min · loss 20.00 EUR" (null: none). */
function limitsText(session) {
  const parts = [
    session.duration_limit_minutes
      ? gettext("%(minutes)s min", { minutes: formatNumber(session.duration_limit_minutes) }) : null,
    session.loss_limit ? gettext("loss %(limit)s", { limit: plainMoney(session.loss_limit) }) : null,
  ].filter(Boolean);
  return parts.length ? parts.join(" · ") : null;
}
