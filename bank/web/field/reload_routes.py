"""What became of the last config reload, for the lead's admin page (static/js/reload_status.js).

The reload is done by this process's Gunicorn master (bank/web/serving/reload.py), which has no app; it leaves
its last word in memory its workers share. Before, a reload that waited (another program holding the game file's
write lock, the database away, a worker still starting) or was refused (a typo) was said only in the log: the lead
who pressed reload at the folding table saw nothing happen.
"""

from __future__ import annotations

from flask import jsonify

from bank.web.access.auth import lead_required
from bank.web.field.api import bp
from bank.web.serving import reload as config_reload


@bp.get("/reload")
@lead_required
def reload_status():
    """{"reload": null} when no reload was asked since the bank started (or no checking master serves it), else
    {"state": checking | waiting | refused | reloaded, "why": boot | file | database (waiting), "problem": the
    check's sentence (refused, waiting), "still_waiting": file | database (refused while a sound edit reloaded before
    waits for the game: that edit is still taken), "waited": bool (reloaded), "age": seconds since it was said}."""
    return jsonify({"reload": config_reload.status()})
