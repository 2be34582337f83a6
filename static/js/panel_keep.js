/* What a facilitator has started in a console panel, kept across a redraw of that panel.
 *
 * console.js draws the open panel afresh when what it shows changes, and another station booking for
 * the same team (or, for a trade, for any team) changes it every few seconds on game day. Drawn afresh,
 * the amounts typed for a trade, an exchange or track steps went back to 0, the field being typed in
 * lost its focus (a tablet's keyboard closed), and a "harvest again?" question went, so the answer tap
 * asked again. W.keep(panel) reads what was started; W.resume(panel, kept) puts it back on the new
 * drawing: each number at the same place under the same label, as if typed again (so a total, a limit
 * note or a disabled button follows the new figures), the question on the same button with its time.
 * Needs forms.js (W.arm).
 */
(function () {
  "use strict";
  var W = window.W;
  var each = function (list, fn) { Array.prototype.forEach.call(list, fn); };

  W.keep = function (panel) {
    var inputs = panel.querySelectorAll("input[type=number]"), buttons = panel.querySelectorAll("button");
    return {
      values: Array.prototype.map.call(inputs, function (i) { return [i.getAttribute("aria-label"), i.value]; }),
      focused: Array.prototype.indexOf.call(inputs, document.activeElement),
      armed: Array.prototype.map.call(buttons, function (b) {
        return b.dataset.armed ? { label: b.dataset.label, question: b.textContent, at: Number(b.dataset.armed) } : null;
      }),
    };
  };

  /** True when the panel holds something the facilitator started: a number typed, a question asked. */
  W.started = function (panel) {
    return Array.prototype.some.call(panel.querySelectorAll("input[type=number]"), function (i) { return i.value !== "" && i.value !== i.defaultValue; }) ||
      !!panel.querySelector("button[data-armed]");
  };

  W.resume = function (panel, kept) {
    var inputs = panel.querySelectorAll("input[type=number]"), buttons = panel.querySelectorAll("button");
    if (inputs.length === kept.values.length) {  // another form (an event closed, a kind changed): nothing to carry
      each(inputs, function (input, k) {
        var was = kept.values[k];
        if (was[0] !== input.getAttribute("aria-label") || was[1] === input.value) return;
        input.value = was[1];
        W.retyped(input);
      });
      if (kept.focused >= 0) inputs[kept.focused].focus({ preventScroll: true });
    }
    if (buttons.length === kept.armed.length) {
      each(buttons, function (button, k) {
        var was = kept.armed[k];
        if (was && button.textContent === was.label) W.arm(button, was.question, was.at);
      });
    }
  };
})();
