// "Set your session limits" (docs/player-protection.md "The hosted page"): where the
// operator's profile asks for them (es), a play session's duration and loss limit are chosen
// before its first real-money buy-in. A dialog of its own, outside the re-rendered screens;
// it sends POST /api/v1/me/play-session and answers the new state (null: not set).

import { api, ApiError, problemIs } from "./api.js";
import { $, h } from "./dom.js";
import { formatNumber, gettext } from "./i18n.js";

const MAX_MINUTES = 1440;
const FIELDS = { duration_minutes: "limits-duration", loss_limit: "limits-loss" };

/** The wallet's currency (the session's figures and its loss limit are in it). */
async function walletCurrency() {
  try {
    const wallet = await api("me/wallet");
    return wallet.balance && wallet.balance.currency;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return null;
  }
}

/** The session's state once the limits are set; null when the player cancels, or when the
 * session already has its limits (`session-active`: the caller reads the state again). */
export async function askLimits({ profile }) {
  const currency = await walletCurrency();
  return new Promise((resolve) => {
    const stops = profile && profile.limit_reached === "end_of_hand";
    const duration = h("input", {
      id: "limits-duration", name: "duration_minutes", type: "number", inputmode: "numeric",
      min: 1, max: MAX_MINUTES, step: 1, required: true, autocomplete: "off",
      "aria-describedby": "limits-duration-hint",
    });
    const loss = h("input", {
      id: "limits-loss", name: "loss_limit", type: "text", inputmode: "decimal", required: true,
      autocomplete: "off", "aria-describedby": "limits-loss-hint",
    });
    const error = h("p", { class: "form-error", id: "limits-error", role: "alert" });
    const submit = h("button", { type: "submit", class: "button primary", id: "limits-submit" }, gettext("Set the limits"));
    const cancel = h("button", { type: "button", class: "button" }, gettext("Cancel"));
    const form = h("form", { class: "limits-form", novalidate: true },
      h("label", { for: "limits-duration", text: gettext("Session length (minutes)") }), duration,
      h("p", { class: "hint", id: "limits-duration-hint", text: stops
        ? gettext("1 to %(max)s minutes. When it is reached, the session ends; a game in progress stops after the hand being played, and every stake in it is returned.", { max: formatNumber(MAX_MINUTES) })
        : gettext("1 to %(max)s minutes. When it is reached, the session ends.", { max: formatNumber(MAX_MINUTES) }) }),
      h("label", { for: "limits-loss", text: currency ? gettext("Loss limit (%(currency)s)", { currency }) : gettext("Loss limit") }), loss,
      h("p", { class: "hint", id: "limits-loss-hint", text: gettext("The most this session may lose. A buy-in that could take you past it is refused.") }),
      error,
      h("div", { class: "button-row" }, submit, cancel));
    const dialog = h("dialog", { id: "limits-dialog", "aria-labelledby": "limits-title", "aria-describedby": "limits-intro" },
      h("h2", { id: "limits-title", text: gettext("Set your session limits") }),
      h("p", { id: "limits-intro", text: gettext("Before you play for real money, choose how long this session may last and how much it may lose. They hold until the session ends.") }),
      form);
    let answer = null;
    const finish = () => { dialog.close(); };
    dialog.addEventListener("close", () => { dialog.remove(); resolve(answer); });
    cancel.addEventListener("click", finish);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      for (const input of [duration, loss]) input.removeAttribute("aria-invalid");
      error.textContent = "";
      submit.disabled = true;
      const minutes = duration.value.trim();
      const body = {
        duration_minutes: minutes === "" ? null : (Number.isInteger(Number(minutes)) ? Number(minutes) : minutes),
        loss_limit: loss.value.trim() === "" ? null : loss.value.trim(),
      };
      try {
        answer = await api("me/play-session", { method: "POST", body });
        finish();
      } catch (failure) {
        submit.disabled = false;
        if (!(failure instanceof ApiError)) throw failure;
        if (problemIs(failure.problem, "session-active")) {
          finish(); // set already (another tab): the caller reads the state
          return;
        }
        const id = FIELDS[failure.problem.field];
        const field = id ? $(`#${id}`, form) : null;
        if (field) {
          field.setAttribute("aria-invalid", "true");
          field.focus();
        }
        error.textContent = failure.problem.detail || failure.problem.title;
      }
    });
    document.body.append(dialog);
    dialog.showModal();
    duration.focus();
  });
}
