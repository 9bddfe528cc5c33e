// Reporting an opponent (docs/integrity.md "Player reports"): a dialog of its own,
// outside the table's re-rendered DOM, so a push never clears what is being typed. Sends
// POST me/reports with the opponent's seat; the page says the report was received.

import { api, ApiError } from "./api.js";
import { h } from "./dom.js";
import { showNotice, showProblem } from "./notices.js";
import { gettext } from "./i18n.js";

const REASONS = [
  ["collusion", gettext("Playing together against others")],
  ["chip_dumping", gettext("Losing on purpose to pass money")],
  ["bot", gettext("A program playing")],
  ["abuse", gettext("Abuse in the game")],
  ["other", gettext("Something else")],
];

export function openReport({ matchId, seat, name }) {
  const category = h("select", { id: "report-category", name: "category" },
    REASONS.map(([value, label]) => h("option", { value, text: label })));
  const text = h("textarea", { id: "report-text", name: "text", maxlength: 1000, rows: 3 });
  const dialog = h("dialog", { id: "report-dialog", "aria-labelledby": "report-title" },
    h("h2", { id: "report-title", text: gettext("Report %(name)s", { name }) }),
    h("label", { for: "report-category", text: gettext("What happened") }), category,
    h("label", { for: "report-text", text: gettext("Anything to add (optional)") }), text);
  const close = () => { dialog.close(); dialog.remove(); };
  const send = h("button", { type: "button", class: "button", id: "report-send" }, gettext("Send the report"));
  send.addEventListener("click", async () => {
    send.disabled = true;
    try {
      await api("me/reports", { method: "POST", body: { match_id: matchId, seat, category: category.value, text: text.value } });
      close();
      showNotice(gettext("Report received"), gettext("The integrity team will review it. You can follow its status, never its outcome."));
    } catch (error) {
      send.disabled = false;
      if (!(error instanceof ApiError)) throw error;
      showProblem(error.problem);
    }
  });
  dialog.append(h("div", { class: "button-row" }, send,
    h("button", { type: "button", class: "button subtle", onclick: close }, gettext("Cancel"))));
  document.body.append(dialog);
  dialog.showModal();
}
