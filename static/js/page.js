/* The first script of every page: defines window.TB with the page's strings (TB.t), DOM helpers
 * (TB.el, TB.fill: data always set as text, never as HTML), time formats, and the header's
 * language switch and log-out. Plain ES2017, no build step (old Android phones).
 */
(function () {
  "use strict";

  var TB = (window.TB = {});
  TB.lang = document.documentElement.lang || "fr";

  /* ---- paths: a game hosted beside others lives under /g/<name>/, so every path the
     scripts use is the page's root plus the path; the root is "" for the one game of a Pi. ---- */
  var rootMeta = document.querySelector('meta[name="root"]');
  TB.root = rootMeta ? rootMeta.content : "";
  /** "/api/me" -> "/g/camp/api/me" on a hosted game; full addresses are left alone. */
  TB.url = function (path) { return path.charAt(0) === "/" && path.charAt(1) !== "/" ? TB.root + path : path; };

  /* ---- strings: filled by the templates in <script type="application/json" data-strings> ---- */

  TB.strings = {};
  Array.prototype.forEach.call(document.querySelectorAll("script[data-strings]"), function (node) {
    try {
      Object.assign(TB.strings, JSON.parse(node.textContent));
    } catch (e) {
      /* a broken block must not stop the page; the keys then show as themselves */
    }
  });

  /** The translated string for `key`, with %(name)s replaced from params; a plural entry (a template's
   * ngettext: [one, other]) takes the form params.n asks for. */
  TB.t = function (key, params) {
    var text = Object.prototype.hasOwnProperty.call(TB.strings, key) ? TB.strings[key] : key;
    if (Array.isArray(text)) text = text[params && TB.one(Number(params.n)) ? 0 : 1];
    return text.replace(/%\((\w+)\)s/g, function (all, name) {
      return params && params[name] !== undefined ? String(params[name]) : all;
    });
  };

  /** Whether `n` takes the singular: French says "0 pt", "1 pt"; English "1 pt" but "0 pts". */
  TB.one = function (n) { n = Math.abs(n); return TB.lang === "fr" ? n < 2 : n === 1; };

  /** A quoted text as each language quotes: « with no-break spaces » in French, “as so” in English. */
  TB.quote = function (text) { return TB.lang === "fr" ? "\u00ab\u00a0" + text + "\u00a0\u00bb" : "\u201c" + text + "\u201d"; };

  /** "label: value" as each language writes it: French puts a no-break space before the colon. */
  TB.colon = function (label, value) { return label + (TB.lang === "fr" ? "\u00a0: " : ": ") + value; };

  /** A label from the API: a plain string, or {fr, en} picked in the page's language. */
  TB.pick = function (label) {
    if (label === null || label === undefined) return "";
    if (typeof label !== "object") return String(label);
    return label[TB.lang] || label.fr || label.en || "";
  };

  /* ---- times as text ---- */

  /** "2:05" for 125 seconds; "1:02:05" past an hour. */
  TB.clockText = function (seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    var h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    var mm = h ? String(m).padStart(2, "0") : String(m);
    return (h ? h + ":" : "") + mm + ":" + String(s).padStart(2, "0");
  };

  /** "14:03:27" for a journal time (epoch seconds). */
  TB.timeOfDay = function (epochSeconds) {
    var d = new Date(epochSeconds * 1000);
    return [d.getHours(), d.getMinutes(), d.getSeconds()].map(function (n) { return String(n).padStart(2, "0"); }).join(":");
  };

  /* ---- DOM ---- */

  /** Build an element: TB.el("div", {class: "x", onclick: fn}, "text", child...). Strings become text nodes. */
  TB.el = function (tag, props) {
    var node = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (name) {
        var value = props[name];
        if (value === undefined || value === null || value === false) return;
        if (name === "class") node.className = value;
        else if (name === "text") node.textContent = value;
        else if (name === "style" && typeof value === "object") {
          Object.keys(value).forEach(function (k) {
            if (k.slice(0, 2) === "--") node.style.setProperty(k, value[k]); else node.style[k] = value[k];
          });
        }
        else if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), value);
        else if (name === "dataset") Object.assign(node.dataset, value);
        else if (name in node && name !== "list" && name !== "type") node[name] = value;
        else node.setAttribute(name, value === true ? "" : value);
      });
    }
    for (var i = 2; i < arguments.length; i++) TB.append(node, arguments[i]);
    return node;
  };

  TB.append = function (node, child) {
    if (child === null || child === undefined || child === false) return node;
    if (Array.isArray(child)) child.forEach(function (c) { TB.append(node, c); });
    else node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    return node;
  };

  /** Replace a node's children. */
  TB.fill = function (node, children) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return TB.append(node, children);
  };

  /** An SVG element with attributes (no text from data is ever parsed as markup). */
  var SVG_NS = (function () {
    // The namespace, read from the HTML parser rather than written as a URL in this file.
    var probe = document.createElement("div");
    probe.innerHTML = "<svg></svg>";
    return probe.firstChild.namespaceURI;
  })();
  TB.svg = function (tag, attrs) {
    var node = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    for (var i = 2; i < arguments.length; i++) TB.append(node, arguments[i]);
    return node;
  };

  TB.$ = function (selector, root) { return (root || document).querySelector(selector); };

  /* Text on a team's or a resource's colour. WCAG's contrast between two relative luminances; the ink is
   * whichever of near-black and white reads better, and where neither reaches 4.5:1 (mid greens, oranges:
   * about 3.5:1 either way) the background is darkened until white does, so a name on any configured
   * colour stays readable (WCAG 1.4.3). */
  function luminance(hex) {
    var short = /^#?([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(hex || "");
    if (short) hex = short[1] + short[1] + short[2] + short[2] + short[3] + short[3];
    var m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex || "");
    if (!m) return null;
    var lum = [m[1], m[2], m[3]].map(function (h) {
      var c = parseInt(h, 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * lum[0] + 0.7152 * lum[1] + 0.0722 * lum[2];
  }
  var DARK = "#111111", DARK_L = luminance(DARK), READABLE = 4.6;  // a margin over 4.5 for rounding
  TB.contrast = function (a, b) {
    var la = luminance(a), lb = luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  };
  /** Black or white text, whichever reads better on a background colour. */
  TB.ink = function (hex) {
    var l = luminance(hex);
    if (l === null) return "#fff";
    return (l + 0.05) / (DARK_L + 0.05) >= 1.05 / (l + 0.05) ? "#111" : "#fff";
  };
  /** {background, color} for text on `hex`: its own colour when an ink reads at 4.5:1, else that colour darkened. */
  TB.paint = function (hex) {
    var ink = TB.ink(hex);
    if (luminance(hex) === null || TB.contrast(ink, hex) >= READABLE) return { background: hex, color: ink };
    var rgb = [1, 3, 5].map(function (i) { return parseInt(hex.replace("#", "").substr(i - 1, 2), 16); });
    for (var k = 0.95; k > 0; k -= 0.05) {
      var dark = "#" + rgb.map(function (c) { return ("0" + Math.round(c * k).toString(16)).slice(-2); }).join("");
      if (TB.contrast("#ffffff", dark) >= READABLE) return { background: dark, color: "#fff" };
    }
    return { background: "#000000", color: "#fff" };
  };

  /* ---- the header: language switch and log-out ---- */

  document.addEventListener("click", async function (event) {
    var target = event.target.closest ? event.target.closest("[data-lang],[data-logout]") : null;
    if (!target) return;
    event.preventDefault();
    if (target.dataset.lang) await TB.api("POST", "/api/lang/" + target.dataset.lang, {}, { retry: false });
    if (target.hasAttribute("data-logout")) {
      TB.loggingOut = true;
      await TB.api("POST", "/api/logout", {}, { retry: false });
      window.location.href = TB.url("/login");
      return;
    }
    window.location.reload();
  });

  // A log-in starts afresh: keys of commands left unconfirmed by whoever used this tab before
  // belong to another facilitator (the bank fingerprints the sender too), so they are dropped.
  if (window.location.pathname === TB.url("/login")) {
    try { window.sessionStorage.removeItem("tb.pending"); } catch (e) { /* no storage: nothing kept */ }
  }
})();
