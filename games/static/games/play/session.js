// The player's session: exchanged from the launch token in the URL fragment, kept in
// sessionStorage (this tab only; a reload keeps it) until it expires. Never put in a URL.

const KEY = "gin.play.session";
const listeners = new Set();
let current = null;

function read() {
  try {
    const stored = JSON.parse(window.sessionStorage.getItem(KEY) || "null");
    return stored && typeof stored.token === "string" ? stored : null;
  } catch {
    return null;
  }
}

function write(value) {
  if (value) window.sessionStorage.setItem(KEY, JSON.stringify(value));
  else window.sessionStorage.removeItem(KEY);
}

/** The session in use, or null. */
export function session() {
  return current;
}

export function expired(value) {
  return !value || (value.expires_at && Date.parse(value.expires_at) <= Date.now());
}

/** Called with no argument when the session ends (expired, revoked): the page says so. */
export function onSessionEnd(listener) {
  listeners.add(listener);
}

export function sessionEnded() {
  if (current === null) return;
  const returnUrl = current.options && current.options.return_url;
  current = null;
  write(null);
  window.sessionStorage.setItem(`${KEY}.return`, returnUrl || "");
  for (const listener of listeners) listener();
}

/** What the page was showing (lobby, a table, a watched table), for a reload. */
export function remember(place) {
  if (!current) return;
  current.place = place;
  write(current);
}

/** The launch token of a `/play/#launch=glt_...` address, removed from the address bar. */
export function takeLaunchToken() {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  const token = params.get("launch");
  if (window.location.hash) {
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  return token;
}

/**
 * The session to use: a fresh one from `launchToken` (exchanged with `exchange(token)`),
 * else the stored one. Answers {session} or {ended: true, returnUrl} or {missing: true}.
 */
export async function startSession(launchToken, exchange) {
  if (launchToken) {
    const issued = await exchange(launchToken);
    current = {
      token: issued.token,
      expires_at: issued.expires_at,
      player: issued.player || {},
      options: issued.options || { mode: "lobby" },
      // The session's language (the launch's `lang`, the player's stored one): the page
      // follows it when its address does not name one (i18n.js followSessionLanguage).
      lang: issued.lang || null,
      place: null,
    };
    write(current);
    return { session: current };
  }
  const stored = read();
  if (stored && !expired(stored)) {
    current = stored;
    return { session: current };
  }
  if (stored) {
    current = stored;
    sessionEnded();
    return { ended: true, returnUrl: stored.options && stored.options.return_url };
  }
  const returnUrl = window.sessionStorage.getItem(`${KEY}.return`);
  return returnUrl === null ? { missing: true } : { ended: true, returnUrl };
}

/** Ends the session when its expiry passes while the page is open. */
export function watchExpiry() {
  window.setInterval(() => {
    if (current && expired(current)) sessionEnded();
  }, 5000);
}
