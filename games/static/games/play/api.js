// The player API over fetch, with the session token from sessionStorage (never in a URL).
// Every refusal is an RFC 9457 problem (problem+json); ApiError carries it. Whether the
// server answered at all is told to connection.js (the page's connection state).

import { reportResponse, reportRestFailed } from "./connection.js";
import { session, sessionEnded } from "./session.js";
import { gettext } from "./i18n.js";

export const API_ROOT = "/api/v1/";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || gettext("HTTP %(status)s", { status }));
    this.status = status;
    this.problem = problem;
  }
}

function networkFailure() {
  return new ApiError(0, {
    type: "about:blank",
    title: gettext("The game server cannot be reached"),
    detail: gettext("Check your connection; the page keeps trying."),
    status: 0,
  });
}

async function problemOf(response) {
  try {
    const body = await response.json();
    if (body && typeof body === "object") return body;
  } catch {
    // not JSON: a proxy's page, a dropped connection
  }
  return { type: "about:blank", title: gettext("The server answered %(status)s", { status: response.status }), status: response.status };
}

/**
 * `api("lobby")`, `api("tables/3/sit", {method: "POST", body: {...}})`. Answers the parsed
 * JSON; throws ApiError (a problem) otherwise. A 401 with the player's token means the
 * session is over: the page says so.
 */
export async function api(path, { method = "GET", body, auth = true, signal } = {}) {
  const headers = { Accept: "application/json" };
  const current = session();
  if (auth && current) headers.Authorization = `Bearer ${current.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(API_ROOT + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
      signal,
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    reportRestFailed();
    throw networkFailure();
  }
  if (!reportResponse(response)) throw networkFailure(); // a proxy's page: the server is down
  if (!response.ok) {
    const problem = await problemOf(response);
    if (response.status === 401 && auth && current) sessionEnded();
    throw new ApiError(response.status, problem);
  }
  if (response.status === 204) return null;
  return response.json();
}

/** Whether `problem` is the one named `slug` (its `type` ends with "/<slug>"). */
export function problemIs(problem, slug) {
  return Boolean(problem && typeof problem.type === "string" && problem.type.endsWith(`/${slug}`));
}

/** Every page of a paginated list (`{next, results}`), up to `limit` items. */
export async function apiList(path, { limit = 500 } = {}) {
  const items = [];
  let next = path;
  while (next && items.length < limit) {
    const page = await api(next);
    items.push(...(page.results || []));
    next = page.next ? page.next.slice(page.next.indexOf(API_ROOT) + API_ROOT.length) : null;
  }
  return items;
}
