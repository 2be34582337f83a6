"""A page's scripts as one file, when served for real (the phone's first load).

A team phone loaded a dozen scripts, each with its ~330 bytes of reply headers and its own
gzip dictionary: with the activity feed the first load went over its 60 KB budget (64.9 KB
on the wire). One file for the same scripts, in the same order, costs one reply and
compresses better (about 8 KB less). Templates call `scripts([...])`; without `prepare()`
(a test client, no server) it writes one tag per file, as before, so a page works either way.

The bundle's URL names its content (a hash of the files' bytes), so it is cached for a year
and never revalidated, as the versioned static files are (server.py). It is served gzipped
when the browser takes it; the bytes are made once per content.

The bundle leaves out the lines that are only a comment (`without_comment_lines`): our scripts
explain themselves at length, and the phone pays for every word on the Wi-Fi (a fifth of the
gzipped bundle). The files served one by one keep them, for whoever reads the page's sources.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
from pathlib import Path

from flask import Response, current_app, request, url_for
from markupsafe import Markup

ENDPOINT = "script_bundle"


def without_comment_lines(script: bytes) -> bytes:
    """The script less its lines that hold nothing but a comment: `// ...` lines, and `/* ... */` blocks
    that start a line and end one. Kept as they are: a licence's `/*! ... */`, a block with code after its
    end on the same line, and every line inside a template literal (an odd count of backticks on a line
    of code opens or closes one) or after a line ending in a backslash. No line is changed, only left out."""
    kept: list[bytes] = []
    block: list[bytes] = []  # the lines of a comment block being read
    literal = continued = False
    for line in script.split(b"\n"):
        bare = line.strip()
        if block:
            block.append(line)
            if b"*/" in bare:
                if not bare.endswith(b"*/"):
                    kept.extend(block)  # code after the block's end: keep it all
                block = []
            continue
        if not (literal or continued):
            if bare.startswith(b"//"):
                continue
            if bare.startswith(b"/*") and not bare.startswith(b"/*!"):
                if b"*/" not in bare[2:]:
                    block = [line]
                    continue
                if bare.endswith(b"*/") and bare.count(b"*/") == 1:
                    continue
        kept.append(line)
        if line.count(b"`") % 2:
            literal = not literal
        continued = line.endswith(b"\\")
    kept.extend(block)  # a block never closed: the file as it was
    return b"\n".join(kept)


def separate(files) -> Markup:
    """One <script> tag per file, each named by its content once served (the templates' url_for, server.py)."""
    versioned = current_app.jinja_env.globals.get("url_for", url_for)
    return Markup("\n").join(Markup('<script src="{}"></script>').format(versioned("static", filename=f))
                             for f in files)


class Bundles:
    """The bundles one app serves, by the hash of their content."""

    def __init__(self, static_folder: Path):
        self.folder = Path(static_folder).resolve()
        self.lock = threading.Lock()
        self.made: dict[tuple, str] = {}  # (files, their sizes and mtimes) -> key
        self.bodies: dict[str, tuple[bytes, bytes]] = {}  # key -> (plain, gzipped)

    def key(self, files) -> str:
        paths = [self._path(f) for f in files]
        stats = [p.stat() for p in paths]  # one stat a file a page load: the bundle follows an edited file
        stamp = tuple((f, st.st_size, st.st_mtime_ns) for f, st in zip(files, stats))
        with self.lock:
            if stamp not in self.made:
                # A file that does not end its last statement must not run into the next one.
                plain = b"\n;\n".join(without_comment_lines(p.read_bytes()) for p in paths) + b"\n"
                key = hashlib.sha256(plain).hexdigest()[:16]
                self.bodies[key] = (plain, gzip.compress(plain, compresslevel=9, mtime=0))
                self.made[stamp] = key
            return self.made[stamp]

    def tag(self, files) -> Markup:
        key = self.key(list(files))
        return Markup('<script src="{}"></script>').format(url_for(ENDPOINT, key=key, v=key))

    def serve(self, key: str):
        body = self.bodies.get(key)
        if body is None:
            return Response("unknown bundle: reload the page", status=404, mimetype="text/plain")
        zipped = "gzip" in request.headers.get("Accept-Encoding", "")
        response = Response(body[1] if zipped else body[0], mimetype="text/javascript")
        if zipped:
            response.headers["Content-Encoding"] = "gzip"
        response.vary.add("Accept-Encoding")
        response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
        return response

    def _path(self, filename: str) -> Path:
        path = (self.folder / filename).resolve()
        if not path.is_relative_to(self.folder) or path.suffix != ".js":
            raise ValueError(f"{filename!r} is not a script of the static folder")
        return path


def register(app) -> None:
    """The bundles' route, and one tag per file until the app is prepared for serving (create_app)."""
    bundles = Bundles(Path(app.static_folder))
    app.extensions["terrabank_bundles"] = bundles
    app.add_url_rule("/static/bundles/<key>.js", ENDPOINT, bundles.serve)
    app.jinja_env.globals["scripts"] = separate
    app.jinja_env.globals["script_tags"] = separate  # always one tag per file (pages not bundled)


def enable(app) -> None:
    """From now on `scripts([...])` is one file (prepare(): the app is about to be served)."""
    bundles = app.extensions.get("terrabank_bundles")
    if bundles is not None:
        app.jinja_env.globals["scripts"] = bundles.tag
