/* The JSON API for every page: TB.api retries a lost or refused request with the same
 * Idempotency-Key (so a command that reached the bank is not booked twice), and TB.errorText
 * turns a refusal into a sentence in the page's language. Needs text.js.
 */
(function () {
  "use strict";

  var TB = window.TB;

  /** A random UUID v4. crypto.randomUUID needs HTTPS, which a field Wi-Fi does not have. */
  TB.uuid = function () {
    var b = new Uint8Array(16);
    (window.crypto || window.msCrypto).getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  };

  TB.csrf = function () {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  };

  // About 20 s of retries in all, then give up; each try waits at most timeoutMs for its answer. Page
  // settings, so a test can shorten them.
  TB.retryDelays = [500, 1000, 2000, 3000, 4000, 5000, 5000];
  TB.timeoutMs = 8000;

  function sleep(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }

  async function fetchOnce(method, url, body, headers) {
    var abort = window.AbortController ? new AbortController() : null;
    var timer = abort ? setTimeout(function () { abort.abort(); }, TB.timeoutMs) : null;
    try {
      return await fetch(TB.url(url), {
        method: method, headers: headers, credentials: "same-origin", cache: "no-store",
        body: body === undefined ? undefined : JSON.stringify(body), signal: abort ? abort.signal : undefined,
      });
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /**
   * Call the API. Resolves to {ok, status, data, error}; never rejects.
   * A network failure, a time-out or a 502/503/504 is retried with the SAME Idempotency-Key,
   * so a command that did reach the bank is not booked twice. onRetry(n, error) is told each
   * retry, with the bank's error when it answered (503 disk_full...), else null.
   */
  TB.api = async function (method, url, body, options) {
    options = options || {};
    var headers = { Accept: "application/json", "X-CSRF-Token": TB.csrf() };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (options.key) headers["Idempotency-Key"] = options.key;
    if (options.headers) Object.assign(headers, options.headers);
    for (var attempt = 0; ; attempt++) {
      var response = null;
      try {
        response = await fetchOnce(method, url, body, headers);
      } catch (e) {
        response = null; // offline, refused or timed out
      }
      var retryable = !response || [502, 503, 504].indexOf(response.status) >= 0;
      if (!retryable || attempt >= TB.retryDelays.length || options.retry === false) {
        return read(response);
      }
      // A 503 from the bank itself (disk full, read-only) says why: show it while retrying.
      if (options.onRetry) options.onRetry(attempt + 1, response ? (await read(response)).error : null);
      await sleep(TB.retryDelays[attempt]);
    }
  };

  async function read(response) {
    if (!response) {
      return { ok: false, status: 0, data: null, error: { code: "network", message: TB.t("network_error"), params: {} } };
    }
    var data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (response.ok) return { ok: true, status: response.status, data: data, error: null };
    var error = data && data.error ? data.error : { code: "http_" + response.status, message: TB.t("server_error", { status: response.status }), params: {} };
    return { ok: false, status: response.status, data: data, error: error };
  }

  TB.get = function (url) { return TB.api("GET", url); };

  /** The refusal as a sentence: a translated one when the page knows the code, else the bank's own. */
  TB.errorText = function (error) {
    if (!error) return "";
    var key = "error." + error.code;
    // The page's sentence for the refusal, in its language. The bank's own messages are English
    // and name things by their ids ("yellow harvester-1 ... (R14)"): shown only for a code the page
    // has no sentence for.
    if (Object.prototype.hasOwnProperty.call(TB.strings, key)) return TB.t(key, error.params || {});
    // Else the bank's own sentence in the page's language (`text`, bank/web/refusal_text.py), then its English.
    return error.text || error.message || error.code;
  };
})();
