/* The admin page's choice: may visitors start Trias games while the field game runs?
 * Read from and sent to /api/trias/visitors (bank/web/trias/visitors.py). Needs page.js and api.js.
 */
(function () {
  "use strict";
  var TB = window.TB;

  async function load() {
    var box = document.getElementById("trias-visitors");
    if (!box) return;
    var r = await TB.get("/api/trias/visitors");
    if (!r.ok) return;
    box.checked = r.data.open;
    box.addEventListener("change", async function () {
      box.disabled = true;
      var sent = await TB.api("POST", "/api/trias/visitors", { open: box.checked });
      box.disabled = false;
      if (sent.ok) box.checked = sent.data.open;
      else box.checked = !box.checked;  // refused: the choice stays as it was
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
})();
