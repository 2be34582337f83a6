/* The admin page's word on stations still catching up: the devices that said they hold commands
 * waiting to be sent (static/js/outbox.js reports them), so the end of the game is not called while
 * one of them still has bookings on its way. Lead only (the list is refused to others).
 */
(function () {
  "use strict";
  var TB = window.TB, el = TB.el, t = TB.t, node = TB.$("#outbox-devices");
  if (!node) return;

  function age(seconds) { return seconds < 60 ? seconds + " s" : Math.floor(seconds / 60) + " min"; }

  async function load() {
    var r = await TB.get("/api/outbox");
    if (!r.ok) return;
    var devices = r.data.devices || [];
    node.classList.toggle("hidden", !devices.length);
    TB.fill(node, devices.length ? [el("b", { text: t("outbox_devices", { n: devices.length }) }),
      el("ul", {}, devices.map(function (d) {
        return el("li", { dataset: { device: d.device }, text: t("outbox_device_line",
          { account: d.account, device: d.device, n: d.waiting, age: age(d.oldest_seconds) }) });
      }))] : []);
  }

  load();
  setInterval(load, 10000);
})();
