"""Closing the accounts while the server's threads still run statements on them refuses those statements
with a sentence; it never crashes the process.

Before: Access.close() finalized the shared connection's cached statements while another thread was
running one: a segmentation fault of the whole process (a forced garbage collection in the browser
tests' run made it show: a server thread's log-in check crashed pytest). Run in a child process, so a
crash fails this test instead of ending the run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RACE = """
import os, sys, tempfile, threading
from bank.store.accounts.access import Access
from bank.store.storage import StorageError
refusals = set()
for trial in range(int(sys.argv[1])):
    access = Access(os.path.join(tempfile.mkdtemp(), "accounts.db"), hash_method="pbkdf2:sha256:1")
    together = threading.Barrier(9)
    def check():
        together.wait()
        for n in range(2000):
            try:
                access._sql(f"SELECT key FROM display_key WHERE id = {n % 50}")  # 50 cached statements
            except StorageError as exc:
                refusals.add(str(exc).split(":")[0])
                return
    threads = [threading.Thread(target=check) for _ in range(8)]
    for t in threads:
        t.start()
    together.wait()
    access.close()
    for t in threads:
        t.join()
print(sorted(refusals))
"""


def test_closing_the_accounts_under_running_statements_refuses_them_and_never_crashes(tmp_path):
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", RACE, "300"], cwd=ROOT, text=True,
                          capture_output=True, timeout=240)
    assert done.returncode == 0, done.stderr[-1500:]  # -11: a segmentation fault
    assert done.stdout.strip() in ("[]", "['storage_failed']"), done.stdout  # the closed file's sentence
