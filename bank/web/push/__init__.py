"""What goes to the open pages: Socket.IO rooms, the broadcaster, patches, other processes.

extensions.py makes each app's Socket.IO server, with deflate.py's small
permessage-deflate window (4 KB, memLevel 3: a page's compressor is most of its memory); live.py handles sockets and runs
rounds; broadcaster.py sends each room the patch of the picture it holds (delta.py), one
message per page per round in rooms shaped for it (rounds.py);
socket_owners.py cuts the sockets of an ended session or a replaced link; peers.py hears
the rows other server processes book (Redis). Imports the services, bank.web.access and
bank.web.serving; two known edges upward (the field's payloads, the Trias notice) are
listed in tests/system/test_architecture.py.
"""
