/* The admin page's team links: each link with its QR code, drawn by the bank,
 * on the address the phones can reach. The bank proposes its network address (never the
 * 127.0.0.1 the lead's own browser may be using); the lead may type another. A loopback
 * address is shown with a warning, and the join cards and poster are printed for it only
 * after "use it anyway" is ticked. Needs board_labels.js and forms.js; admin.js calls W.teamLinks.
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;
  var KEY = "terrabank.phoneBase"; // the lead's own choice, kept on this device

  var address = null, banner = null, confirmThen = null;

  function query(extra) {
    var q = "base=" + encodeURIComponent(address.base);
    if (address.loopback && TB.$("#loopback-ok input").checked) q += "&loopback=1";
    return "?" + q + (extra || "");
  }

  /** The address line, the loopback warning, and the print links that carry the address. */
  function showAddress() {
    var form = TB.$("#address-form");
    form.base.value = address.base;
    TB.$("#address-note").textContent = t("address_" + address.source, { base: address.base });
    var warn = TB.$("#address-warning");
    warn.classList.toggle("hidden", !address.loopback);
    warn.textContent = address.loopback ? t("address_loopback", { base: address.base }) : "";
    TB.$("#loopback-ok").classList.toggle("hidden", !address.loopback);
    ["join", "poster"].forEach(function (kind) { TB.$("#print-" + kind).href = TB.url("/api/print/" + kind + ".pdf" + query()); });
  }

  /** Ask the bank which address to use; `typed` is the lead's own (remembered on this device). */
  async function loadAddress(typed) {
    var url = "/api/teams/address" + (typed ? "?base=" + encodeURIComponent(typed) : "");
    var r = await TB.get(url);
    if (!r.ok && typed) { W.banner(banner, "error", W.errorText(r.error)); return false; }
    if (!r.ok) return false;
    address = r.data;
    showAddress();
    return true;
  }

  async function loadLinks() {
    var r = await TB.get("/api/teams/links");
    if (!r.ok || !address) return;
    TB.fill(TB.$("#links"), Object.keys(r.data).map(function (team) {
      var url = address.base + TB.root + "/t/" + r.data[team];
      var code = el("code", { text: url });
      // The token in the address makes a new link load a new picture (the bank also says no-store).
      var qr = el("img", { class: "link-qr", alt: t("qr_of", { team: W.teamLabel(team) }), width: 132, height: 132,
        src: TB.url("/api/teams/" + encodeURIComponent(team) + "/qr.svg" + query("&v=" + encodeURIComponent(r.data[team]))) });
      return el("div", { class: "link-row", dataset: { team: team } }, qr,
        el("div", { class: "link-text" }, W.teamChip(team), code,
          el("span", { class: "row" },
            el("button", { type: "button", class: "btn btn-small", text: t("copy"), onclick: function (ev) { copy(url, code, ev.currentTarget); } }),
            el("button", { type: "button", class: "btn btn-small btn-danger", text: t("rotate"), onclick: confirmThen(async function () {
              var res = await TB.api("POST", "/api/teams/" + encodeURIComponent(team) + "/rotate", {});
              if (res.ok) W.banner(banner, "ok", t("rotated", { team: W.teamLabel(team) }));
              else W.banner(banner, "error", W.errorText(res.error));
              await loadLinks();
              var row = document.querySelector('.link-row[data-team="' + team + '"]');
              if (row) row.scrollIntoView({ block: "nearest" }); // the new code is where the lead is looking
            }, t("rotate_confirm")) }))));
    }));
  }

  /** Copy a link; the clipboard API needs HTTPS, so fall back to selecting the text. */
  function copy(text, node, button) {
    var done = function () { button.textContent = t("copied"); setTimeout(function () { button.textContent = t("copy"); }, 1500); };
    if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(text).then(done); return; }
    var range = document.createRange();
    range.selectNodeContents(node);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    try { if (document.execCommand("copy")) done(); } catch (e) { /* the text stays selected for a manual copy */ }
  }

  W.teamLinks = async function (theBanner, confirm) {
    banner = theBanner;
    confirmThen = confirm;
    var saved = null;
    try { saved = window.localStorage.getItem(KEY); } catch (e) { saved = null; }
    if (!(saved && await loadAddress(saved))) await loadAddress(null);
    TB.$("#address-form").addEventListener("submit", async function (ev) {
      ev.preventDefault();
      var typed = ev.currentTarget.base.value.trim();
      if (!(await loadAddress(typed))) return;
      try { window.localStorage.setItem(KEY, address.base); } catch (e) { /* private mode: kept for this visit only */ }
      W.banner(banner, address.loopback ? "error" : "ok", t("address_" + address.source, { base: address.base }));
      loadLinks();
    });
    TB.$("#loopback-ok input").addEventListener("change", function () { showAddress(); loadLinks(); });
    ["join", "poster"].forEach(function (kind) {
      TB.$("#print-" + kind).addEventListener("click", function (ev) {
        if (address && address.loopback && !TB.$("#loopback-ok input").checked) {
          ev.preventDefault(); // the bank would refuse: say why here, where the lead clicked
          W.banner(banner, "error", t("error.loopback_address"));
          TB.$("#address-warning").scrollIntoView({ block: "center" });
        }
      });
    });
    await loadLinks();
  };
})();
