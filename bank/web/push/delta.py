"""What changed between two JSON pictures, as a short patch a page can apply.

A patch is a list of operations, each [code, path, value?], path a list of dict keys
and list indexes from the root:

- ["s", path, value]  set: the value at path becomes `value` (path [] replaces the whole picture);
- ["d", path]         delete: the dict key at the end of path is gone;
- ["a", path, items]  append: the list at path grew by `items` at its end.

A list that only grew becomes an append; a list of the same length is compared item by
item (a harvest changes a few entries of the team's "affordable" list, not the list);
anything else is replaced. Wherever the changes inside a value would take more bytes
than the value itself, the value is replaced whole. static/js/delta.js is the same
`apply` for the browser; tests/web/push/test_delta.py checks both on random JSON.

Values are compared strictly (type and value), so true and 1, or 1 and 1.0, are not
"the same": the page must end with exactly the picture the server computed.
"""

from __future__ import annotations

import copy
import json

SET, DELETE, APPEND = "s", "d", "a"


class PatchError(ValueError):
    """The patch does not fit the picture it is applied to (a page holding another version)."""


def size(value) -> int:
    """Bytes of `value` as sent: compact JSON, non-ASCII escaped, as python-socketio encodes it."""
    return len(json.dumps(value, separators=(",", ":")))


SCALARS = frozenset((str, int, float, bool, type(None)))  # JSON's values that hold no other value


def same(a, b) -> bool:
    """Strict JSON equality: equal values of the same JSON type, all the way down."""
    if a is b:  # one object in both pictures: nothing in a picture changes in place
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind in SCALARS:
        return a == b
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def diff(old, new, *, whole: bool = True) -> list:
    """The patch that turns `old` into `new` (an empty list when they are the same).

    whole=False: the caller weighs the patch against the whole picture itself (the broadcaster),
    so the top level is not encoded here to compare; the patch may then be larger than the whole."""
    return _diff(old, new, [], whole)


def _diff(old, new, path: list, whole: bool = True) -> list:
    # Each value is looked at once (no whole-subtree comparison before going down): a round
    # diffs five pictures of a few KB and must stay well under a millisecond or two.
    if old is new:  # one object in both pictures (views.affordable's kept list): no value in a picture changes in place
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        ops = [[DELETE, path + [k]] for k in old if k not in new]
        for k, value in new.items():
            if k in old:
                was = old[k]
                # Most of a picture's values are numbers and strings as they were: settled here, without a
                # call and a path made for each (as same() would say: the same type, equal).
                if type(was) is type(value) and type(value) in SCALARS and was == value:
                    continue
                ops += _diff(was, value, path + [k])
            else:
                ops.append([SET, path + [k], value])
    elif isinstance(old, list) and isinstance(new, list) and len(new) >= len(old):
        changed = [i for i, (x, y) in enumerate(zip(old, new))
                   if x is not y and not (type(x) is type(y) and type(y) in SCALARS and x == y) and not same(x, y)]
        if not changed:
            return [[APPEND, path, new[len(old):]]] if len(new) > len(old) else []
        if len(new) > len(old):
            return [[SET, path, new]]
        ops = [op for i in changed for op in _diff(old[i], new[i], path + [i])]
    elif same(old, new):
        return []
    else:
        return [[SET, path, new]]
    # Several changes inside one value, or a removed key's name, may weigh more than the value
    # itself: then send it whole. (One set or append carries its value, which the whole has too.)
    if (path or whole) and (len(ops) > 1 or (ops and ops[0][0] == DELETE)) and size(ops) >= size([[SET, path, new]]):
        return [[SET, path, new]]
    return ops


def apply(old, patch: list):
    """The picture `patch` makes of `old`; `old` itself is left as it was.

    Only the dicts and lists on the paths the patch touches are copied; the rest is shared
    with `old` (nothing here changes a value in place once it is in a picture). A crowd of 300
    simulated pages (bench/system/failover_pages.py) spent most of its time deep-copying pictures.

    Raises PatchError when the patch does not fit: a path through a missing key, an
    index past the end, or into something that is not a dict or list.
    """
    if not isinstance(patch, list):
        raise PatchError("a patch is a list of operations")
    fresh: dict[int, object] = {}  # id -> a container copied by this apply (kept alive here): changed in place
    picture = old
    for op in patch:
        picture = _apply_one(picture, op, fresh)
    return picture if picture is not old else _own(old, fresh)


def _own(node, fresh: dict):
    """`node` itself if this apply made it, else a shallow copy (dicts and lists) that it may change."""
    if id(node) in fresh or not isinstance(node, (dict, list)):
        return node
    mine = dict(node) if isinstance(node, dict) else list(node)
    fresh[id(mine)] = mine
    return mine


def _apply_one(picture, op, fresh: dict):
    if not (isinstance(op, list) and len(op) >= 2 and op[0] in (SET, DELETE, APPEND) and isinstance(op[1], list)):
        raise PatchError(f"not a patch operation: {op!r}")
    code, path = op[0], op[1]
    if code == SET and not path:
        return copy.deepcopy(op[2]) if len(op) > 2 else _missing(op)
    if code == APPEND and not path:
        picture = _own(picture, fresh)
        _append(picture, op)
        return picture
    if not path:
        raise PatchError("nothing to delete at the root")
    picture = parent = _own(picture, fresh)
    for key in path[:-1]:
        child = _own(_child(parent, key), fresh)
        parent[key] = child
        parent = child
    last = path[-1]
    if code == APPEND:
        target = _own(_child(parent, last), fresh)
        _append(target, op)
        parent[last] = target
    elif code == DELETE:
        if not isinstance(parent, dict) or last not in parent:
            raise PatchError(f"nothing to delete at {path!r}")
        del parent[last]
    else:
        if len(op) < 3:
            _missing(op)
        _check_slot(parent, last, path)
        parent[last] = copy.deepcopy(op[2])
    return picture


def _child(node, key):
    if isinstance(node, dict) and isinstance(key, str) and key in node:
        return node[key]
    if isinstance(node, list) and _is_index(key) and key < len(node):
        return node[key]
    raise PatchError(f"the picture has nothing at {key!r}")


def _check_slot(parent, key, path) -> None:
    """A set may add a dict key, or replace an existing list item."""
    if isinstance(parent, dict) and isinstance(key, str):
        return
    if isinstance(parent, list) and _is_index(key) and key < len(parent):
        return
    raise PatchError(f"cannot set {path!r}")


def _append(target, op) -> None:
    if not isinstance(target, list) or len(op) < 3 or not isinstance(op[2], list):
        raise PatchError(f"cannot append at {op[1]!r}")
    target.extend(copy.deepcopy(op[2]))


def _is_index(key) -> bool:
    return isinstance(key, int) and not isinstance(key, bool) and key >= 0


def _missing(op):
    raise PatchError(f"operation without a value: {op!r}")
