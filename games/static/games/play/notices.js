// Visible, dismissable messages: a refused move shows its problem's title and detail here
// (problem+json from REST, or the socket's `error` message); nothing else on the page moves.
// A message about the connection (a network failure: a problem of status 0) is marked so,
// and goes away by itself when the page is back (connection.js).

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

/** The page is back: every message that said it could not reach the server goes. */
export function dismissConnectionNotices() {
  const messages = document.querySelectorAll('#messages [data-about="connection"]');
  for (const message of messages) dismiss(message);
}

/** Show a problem (RFC 9457): its title, its detail when it says more. */
export function showProblem(problem, { level = "error" } = {}) {
  const title = (problem && problem.title) || gettext("Something went wrong");
  const detail = problem && problem.detail && problem.detail !== title ? problem.detail : null;
  const about = problem && problem.status === 0 ? "connection" : null;
  return show(title, detail, { level, type: problem && problem.type, about });
}

/** An information message. One with a `name` takes the place of the one shown under that
 * name (a banner that says more as things happen), as the newest message; one `about`
 * "connection" is dismissed when the page is back; a `link` ({href, text}) says where to
 * go about it. */
export function showNotice(title, detail = null, { level = "info", name = null, about = null, link = null } = {}) {
  if (name) dismiss(box().querySelector(`[data-notice="${CSS.escape(name)}"]`));
  return show(title, detail, { level, name, about, link });
}

function show(title, detail, { level, type = null, name = null, about = null, link = null }) {
  counter += 1;
  const id = `message-${counter}`;
  const message = h(
    "div",
    {
      class: ["message", `message-${level}`],
      role: level === "error" ? "alert" : "status",
      id,
      "aria-labelledby": `${id}-title`,
      dataset: {
        ...(type ? { problemType: type } : {}),
        ...(name ? { notice: name } : {}),
        ...(about ? { about } : {}),
      },
    },
    h("div", { class: "message-text" },
      h("strong", { id: `${id}-title`, class: "message-title", text: title }),
      detail ? h("p", { class: "message-detail", text: detail }) : null,
      link ? h("a", { class: "message-link", href: link.href, text: link.text }) : null),
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
