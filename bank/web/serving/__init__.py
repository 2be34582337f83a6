"""The server under the app: Gunicorn with its limits, the reply hook, proxies and hosted games.

server.py runs `terrabank serve` on Gunicorn's threaded worker with the bank's limits
(slow clients, connections per address); thread.py runs the same in a thread for tests;
after_reply.py wakes work once a reply is written; proxies.py reads the client's address
behind nginx; hosting.py mounts several games under /g/<name>/. The bottom of the web:
it knows no route, and imports only bank.store and bank.errors.
"""
