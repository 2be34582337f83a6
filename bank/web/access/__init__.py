"""Who a client is and what it may do: log-ins, the session cookie, the permission table.

auth.py checks the session (and its CSRF token) on every request and socket; the
signed cookie is cookie_session.py; permissions.py says which role may send which
command. The rows behind them (accounts, sessions, failed log-ins) are in
bank.store.accounts. Imports the store, the game's command list and bank.web.serving;
no route and no live update lives here.
"""
