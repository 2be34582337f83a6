"""`terrabank serve` with the Socket.IO broadcast after each command switched off.

Only for bench_latency.py: the same server, minus bank/web/live.broadcast, so one
run shows how much of a command's latency the live update costs.

    python bench/serve_quiet.py --config config.toml --db game.db serve --host 127.0.0.1 --port 5000
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bank.cli import main  # noqa: E402
from bank.web import live  # noqa: E402

live.broadcast = lambda *args, **kwargs: None  # api.post_command looks it up on the module at each call

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
