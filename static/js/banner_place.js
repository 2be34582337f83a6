/* On a phone the result banner sticks to an edge of the screen, never over the
 * resource buttons just scrolled to: it takes the top
 * or the bottom edge, whichever leaves the group of buttons last touched uncovered; the buttons
 * themselves never move (a second tap lands where the first did).
 * Loaded after board_labels.js (W.banner) on the pages that book: console and fight.
 */
(function () {
  "use strict";
  var W = window.W, NARROW = 760, GROUP = ".choice-grid, .team-picker, .panel";
  var touched = null, shown = null;

  document.addEventListener("pointerdown", function (event) {
    touched = event.target && event.target.closest ? event.target.closest(GROUP) : null;
  }, true);

  /** Top edge unless the touched group reaches into the banner's height there and the bottom has room. */
  function place(node) {
    var slot = node.parentNode;
    if (!slot || !slot.classList || !slot.classList.contains("banner-slot")) return;
    var visible = !node.classList.contains("hidden");
    var bottom = false;
    if (visible && touched && window.innerWidth <= NARROW) {
      var group = touched.getBoundingClientRect(), height = window.innerHeight, need = node.offsetHeight;
      var above = Math.max(0, group.top), below = Math.max(0, height - group.bottom);
      var stuck = slot.getBoundingClientRect().top <= 0;  // in its own place at the page's top it covers nothing
      bottom = stuck && above < need && below > above;
    }
    slot.classList.toggle("at-bottom", bottom);
    shown = visible ? node : null;
  }

  /* The console on a phone scrolls inside <body> and keeps the banner below it (terrabank.css): --banner-room
   * is the banner's height while it shows, so the page ends where the banner begins. */
  var onConsole = document.body.classList.contains("console-page"), banner = document.getElementById("banner");
  function roomForBanner() {
    if (!onConsole || !banner) return;
    var below = window.innerWidth <= NARROW && !banner.classList.contains("hidden") && getComputedStyle(banner).position === "fixed";
    var px = below ? Math.ceil(banner.getBoundingClientRect().height) + 12 + "px" : "0px";
    if (document.body.style.getPropertyValue("--banner-room") !== px) document.body.style.setProperty("--banner-room", px);
  }
  if (onConsole && banner) {
    new MutationObserver(roomForBanner).observe(banner, { attributes: true, attributeFilter: ["class"] });
    if (window.ResizeObserver) new ResizeObserver(roomForBanner).observe(banner);
    window.addEventListener("resize", roomForBanner);
  }

  var show = W.banner;
  W.banner = function (node, kind, content) {
    show(node, kind, content);
    place(node);
  };
  var pending = false;
  window.addEventListener("scroll", function () {  // the finger scrolled on: the free edge may change
    if (!shown || pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; if (shown) place(shown); });
  }, { passive: true });
})();
