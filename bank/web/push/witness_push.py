"""The witnesses' reports reach the facilitators' open pages (the admin page among them) on every server process.

The reports are kept with the accounts (bank/store/accounts/witness_reports.py). The facilitators' pages
connected to the process that heard a new one are sent the whole list at once (socket event
`chain_witness`); with several processes on one game the others hear a {"witness": True} notice on the
queue (bank/web/push/peers.py), read the list from the store and send it to theirs. A lost notice leaves
an admin page without the new report until its next (re)connect, which asks for the list.
"""

from __future__ import annotations

from bank.web.push.extensions import socketio_of
from bank.web.push.socket_owners import owners


def tell_facilitators(app, tell_others: bool = True) -> int:
    """Send the whole list (bounded: a flood's withdrawn reports leave the pages too) to this process's
    facilitators' pages, and tell the other processes; returns how many pages this process told."""
    pages = [sid for key in owners(app).sessions() for sid in owners(app).of_session(key)]
    if pages:  # read only for someone: a flood heard where no admin page is open costs no read
        every = {"reports": app.extensions["terrabank"].access.witness_reports().all()}
        for sid in pages:
            socketio_of(app).emit("chain_witness", every, to=sid, namespace="/")
    peers = app.extensions.get("terrabank_peers")
    if tell_others and peers is not None:
        peers.announce_witness()
    return len(pages)
