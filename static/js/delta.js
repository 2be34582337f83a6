/* Apply a patch of bank/web/push/delta.py to a JSON picture. Plain ES5: old Android phones too.
 *
 * A patch is a list of [code, path, value?]: "s" sets the value at path ([] = the whole picture),
 * "d" deletes the dict key at path, "a" appends items to the list at path. TBDelta.apply(old, patch)
 * returns the new picture and leaves `old` alone; a patch that does not fit throws TBDelta.Misfit,
 * and the page then asks the server for the whole picture.
 */
(function () {
  "use strict";

  function Misfit(message) { this.message = message; }
  Misfit.prototype = Object.create(Error.prototype);
  Misfit.prototype.name = "Misfit";

  function copy(value) { return value === undefined ? undefined : JSON.parse(JSON.stringify(value)); }
  function isDict(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function isIndex(k) { return typeof k === "number" && k >= 0 && Math.floor(k) === k; }
  function has(node, key) { return Object.prototype.hasOwnProperty.call(node, key); }

  function child(node, key) {
    if (isDict(node) && typeof key === "string" && has(node, key)) return node[key];
    if (Array.isArray(node) && isIndex(key) && key < node.length) return node[key];
    throw new Misfit("the picture has nothing at " + JSON.stringify(key));
  }

  function append(target, op) {
    if (!Array.isArray(target) || op.length < 3 || !Array.isArray(op[2])) throw new Misfit("cannot append");
    copy(op[2]).forEach(function (item) { target.push(item); });
  }

  function applyOne(picture, op) {
    if (!Array.isArray(op) || op.length < 2 || ["s", "d", "a"].indexOf(op[0]) < 0 || !Array.isArray(op[1])) {
      throw new Misfit("not a patch operation");
    }
    var code = op[0], path = op[1];
    if (!path.length) {
      if (code === "s" && op.length > 2) return copy(op[2]);
      if (code === "a") { append(picture, op); return picture; }
      throw new Misfit("bad operation at the root");
    }
    var parent = picture;
    for (var i = 0; i < path.length - 1; i++) parent = child(parent, path[i]);
    var last = path[path.length - 1];
    if (code === "a") append(child(parent, last), op);
    else if (code === "d") {
      if (!isDict(parent) || typeof last !== "string" || !has(parent, last)) throw new Misfit("nothing to delete");
      delete parent[last];
    } else {
      var fits = (isDict(parent) && typeof last === "string") ||
        (Array.isArray(parent) && isIndex(last) && last < parent.length);
      if (!fits || op.length < 3) throw new Misfit("cannot set");
      // As an own property: a key named "__proto__" must not change the object's prototype.
      Object.defineProperty(parent, last, { value: copy(op[2]), writable: true, enumerable: true, configurable: true });
    }
    return picture;
  }

  /** The picture `patch` makes of `old`; throws TBDelta.Misfit when it does not fit. */
  function apply(old, patch) {
    if (!Array.isArray(patch)) throw new Misfit("a patch is a list");
    var picture = copy(old);
    for (var i = 0; i < patch.length; i++) picture = applyOne(picture, patch[i]);
    return picture;
  }

  window.TBDelta = { apply: apply, Misfit: Misfit };
})();
