// Visible, dismissable messages: a refused move shows its problem's title and detail here
// (problem+json from REST, or the socket's `error` message); nothing else on the page moves.

import { $, h } from "./dom.js";
import { gettext } from "./i18n.js";

let counter = 0;

function box() {
  return $("#messages");
}

export function dismiss(message) {
  if (message && message.parentNode) message.remove();
}

/** The most recent message goes first; Esc closes it. */
export function dismissLatest() {
  const latest = box().firstElementChild;
  if (!latest) return false;
  dismiss(latest);
  return true;
}

export function clearNotices() {
  box().replaceChildren();
}

/** Show a problem (RFC 9457): its title, its detail when it says more. */
export function showProblem(problem, { level = "error" } = {}) {
  const title = (problem && problem.title) || gettext("Something went wrong");
  const detail = problem && problem.detail && problem.detail !== title ? problem.detail : null;
  return show(title, detail, { level, type: problem && problem.type });
}

/** An information message. One with a `name` takes the place of the one shown under that
 * name (a banner that says more as things happen), as the newest message. */
export function showNotice(title, detail = null, { level = "info", name = null } = {}) {
  if (name) dismiss(box().querySelector(`[data-notice="${CSS.escape(name)}"]`));
  return show(title, detail, { level, name });
}

function show(title, detail, { level, type = null, name = null }) {
  counter += 1;
  const id = `message-${counter}`;
  const message = h(
    "div",
    {
      class: ["message", `message-${level}`],
      role: level === "error" ? "alert" : "status",
      id,
      "aria-labelledby": `${id}-title`,
      dataset: { ...(type ? { problemType: type } : {}), ...(name ? { notice: name } : {}) },
    },
    h("div", { class: "message-text" },
      h("strong", { id: `${id}-title`, class: "message-title", text: title }),
      detail ? h("p", { class: "message-detail", text: detail }) : null),
    h("button", {
      type: "button",
      class: "message-close",
      "aria-label": gettext("Dismiss: %(title)s", { title }),
      onclick: () => dismiss(message),
    }, "\u00d7"),
  );
  box().prepend(message);
  while (box().children.length > 4) box().lastElementChild.remove();
  return message;
}
