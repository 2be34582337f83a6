/* The admin page's big-screen link: /display?key=..., the big screen's own key, so a real
 * screen has its own live slots and is never one of the anonymous pages (bank/web/serving/admission.py).
 * Replaceable like a team link: screens open with the old link are closed. /display without a key
 * still works, from the few places kept for anonymous pages. Needs page.js and api.js.
 */
(function () {
  "use strict";
  var TB = window.TB;
  var WORDS = {
    fr: { title: "Lien du grand écran : ", replace: "Nouveau lien", confirm: "Le grand écran ouvert avec l’ancien lien sera fermé. Continuer ?" },
    en: { title: "Big screen link: ", replace: "New link", confirm: "A big screen open with the old link will be closed. Go on?" },
  };
  var words = WORDS[TB.lang] || WORDS.fr;

  function show(box, data) {
    var url = data.url || window.location.origin + data.path;  // the phones' address, not this page's
    box.textContent = "";
    box.appendChild(document.createTextNode(words.title));
    box.appendChild(TB.el("a", { href: url, text: url, target: "_blank", rel: "noopener" }));
    box.appendChild(document.createTextNode(" "));
    box.appendChild(TB.el("button", { type: "button", class: "btn btn-small btn-danger", text: words.replace, onclick: async function () {
      if (!window.confirm(words.confirm)) return;
      var saved = null;
      try { saved = window.localStorage.getItem("terrabank.phoneBase"); } catch (e) { saved = null; }
      var r = await TB.api("POST", "/api/display/rotate" + (saved ? "?base=" + encodeURIComponent(saved) : ""), {});
      if (r.ok) show(box, r.data);
    } }));
  }

  async function load() {
    var box = document.getElementById("display-link");
    if (!box) return;
    var saved = null;
    try { saved = window.localStorage.getItem("terrabank.phoneBase"); } catch (e) { saved = null; }  // links.js's KEY
    var r = await TB.get("/api/display/link" + (saved ? "?base=" + encodeURIComponent(saved) : ""));
    if (r.ok) show(box, r.data);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
})();
