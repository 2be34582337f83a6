/* The facilitators' pages open while the bank is out of reach (docs/OUTBOX.md), where the browser allows a
 * service worker (HTTPS, or the machine itself): served at the game's root (/sw.js), it keeps a copy of
 * the console, the fight page, their scripts and the three answers they start from (the game's config,
 * who is logged in, the last state). Each is asked of the network first; the copy answers only when the
 * network fails (a page or a script also when nothing came for a few seconds: a cut link answers nothing),
 * so a page with the bank in reach shows the bank's own figures, never older ones. Commands never go
 * through the copy: they are POSTs, left alone, and kept by the page's outbox (outbox.js) until the bank
 * answers. The copy is dropped at every log-in and log-out: another account never opens this one's pages.
 * On the game's plain-HTTP Wi-Fi the browser refuses to start it, and the page says it must stay open.
 */
"use strict";

var CACHE = "tb-offline-v1";
var SLOW_MS = 4000; // a network that answers nothing for this long (a cut, no reset): the copy, if any
var ROOT = new URL(self.registration.scope).pathname; // "/" or a hosted game's "/g/<name>/"
var PAGES = ["console", "fight"], ANSWERS = ["api/config", "api/me", "api/state"];

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

/** "page" (a page or a script), "answer" (one of the three the pages start from), or null: not kept. */
function kind(url) {
  if (url.origin !== self.location.origin || url.pathname.indexOf(ROOT) !== 0) return null;
  var path = url.pathname.slice(ROOT.length);
  if (PAGES.indexOf(path) >= 0 || path.indexOf("static/") === 0) return "page";
  return ANSWERS.indexOf(path) >= 0 ? "answer" : null;
}

function networkFirst(request, waitMs) {
  return caches.open(CACHE).then(function (cache) {
    // ignoreVary: the copy is this device's own, whatever Vary says (Cookie, Accept-Encoding).
    var copy = function () { return cache.match(request, { ignoreVary: true }); };
    var network = fetch(request).then(function (response) {
      // Only a page or an answer as the bank gave it: never a redirection to the log-in, never a refusal.
      if (response.status === 200 && !response.redirected) cache.put(request, response.clone());
      return response;
    });
    var failed = network.catch(function () {
      return copy().then(function (found) { return found || Response.error(); });
    });
    if (!waitMs) return failed;
    var slow = new Promise(function (done) { setTimeout(done, waitMs); }).then(copy).then(function (found) {
      return found || failed; // no copy: the network's answer after all, however late
    });
    return Promise.race([failed, slow]);
  });
}

// The page (outbox.js) names what it loaded before this worker took it over: kept now, so the first visit
// already opens offline. Answered on the message's port: true once kept.
self.addEventListener("message", function (event) {
  var urls = ((event.data && event.data.keep) || []).filter(function (u) {
    try { return kind(new URL(u, self.location.href)) !== null; } catch (e) { return false; }
  });
  var port = event.ports && event.ports[0];
  event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.addAll(urls); }).then(
    function () { if (port) port.postMessage(true); }, function () { if (port) port.postMessage(false); }));
});

self.addEventListener("fetch", function (event) {
  var request = event.request, url = new URL(request.url);
  if (request.method === "POST" && url.origin === self.location.origin &&
      /\/api\/log(in|out)$/.test(url.pathname)) {
    event.waitUntil(caches.delete(CACHE)); // another account, or nobody: this account's copy goes
    return;
  }
  var what = request.method === "GET" ? kind(url) : null;
  if (!what) return; // commands, sockets and the rest: the network alone
  event.respondWith(networkFirst(request, what === "page" ? SLOW_MS : 0));
});
