// The page's language (docs/play.md "Languages"). Every string the player reads comes from
// the catalogue: `gettext("Your turn")`, `gettext("%(who)s discarded %(card)s", {who, card})`,
// `ngettext("%(count)s card", "%(count)s cards", n)`. The catalogue is Django's JavaScript
// catalogue for the page's language (a classic script loaded before the modules, which sets
// `globalThis.django`); without it the English source strings show. Placeholders are
// Python's named `%(name)s`, so translators see the same form in every catalogue.

const catalogue = globalThis.django && typeof globalThis.django.gettext === "function" ? globalThis.django : null;

/** The page's language: a BCP 47 tag ("es", "pt-BR"), the `lang` of <html>. */
export const LANGUAGE = document.documentElement.lang || "en";

function substitute(text, params) {
  if (!params) return text;
  return text.replace(/%\((\w+)\)s/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** A number as the page's language writes it: 1,234.5 / 1.234,5. */
export function formatNumber(value, options = {}) {
  return new Intl.NumberFormat(LANGUAGE, options).format(value);
}

/** "Ann, Bob and Cy" in the page's language. */
export function andList(items) {
  return new Intl.ListFormat(LANGUAGE, { type: "conjunction" }).format(items.map(String));
}

/** "€0.10 or €0.50" in the page's language. */
export function orList(items) {
  return new Intl.ListFormat(LANGUAGE, { type: "disjunction" }).format(items.map(String));
}

/** A date or time (a Date, or an ISO 8601 string) as the page's language writes it. */
export function formatDate(value, options = { dateStyle: "medium", timeStyle: "short" }) {
  return new Intl.DateTimeFormat(LANGUAGE, options).format(value instanceof Date ? value : new Date(value));
}

/** A page opened without `?lang=` whose player session speaks another language reloads
 * itself in that one (true: it is reloading). An explicit `?lang=` (the launch URL's, or the
 * language menu's) is the player's choice and stays. */
export function followSessionLanguage(language) {
  const url = new URL(window.location.href);
  if (!language || url.searchParams.has("lang") || language.toLowerCase() === LANGUAGE.toLowerCase()) return false;
  url.searchParams.set("lang", language);
  url.hash = "";
  window.location.replace(url.href);
  return true;
}

export function gettext(msgid, params = null) {
  return substitute(catalogue ? catalogue.gettext(msgid) : msgid, params);
}

/** `count` is also the `%(count)s` placeholder, written as the language writes numbers. */
export function ngettext(singular, plural, count, params = null) {
  const text = catalogue ? catalogue.ngettext(singular, plural, count) : count === 1 ? singular : plural;
  return substitute(text, { count: formatNumber(count), ...params });
}

/** The same English words meaning different things ("Pass" the upcard / "Pass" a turn). */
export function pgettext(context, msgid, params = null) {
  return substitute(catalogue ? catalogue.pgettext(context, msgid) : msgid, params);
}
