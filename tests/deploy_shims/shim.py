"""Stand-ins for what a test container cannot do for real while it follows docs/DEPLOY.md's steps.

Run as `python3 shim.py NAME ARGS...` by a two-line wrapper named NAME first on the steps' PATH
(tests/system/test_deploy_doc.py writes them). Each does what the real program would do to the
machine, inside the sandbox (sandbox.py), and refuses what it cannot stand for, saying so:

- sudo: runs the command (`-u USER` as the current user, once USER exists), with sudo's clean
  environment; `-u postgres` reaches the test's throwaway PostgreSQL as its superuser.
- apt, apt-get: never install; check each named package is installed (dpkg-query).
- useradd, chown: recorded, not done (the users and owners the steps gave).
- systemctl: `enable --now terrabank@PORT` runs the unit file the steps copied, as systemd
  would (EnvironmentFile, Environment, StateDirectory, WorkingDirectory, ExecStart with %i); `reload nginx`
  starts or reloads the sandbox's nginx.
- nginx: `-t` checks the sandbox's nginx (Debian's main file: conf.d/*.conf and sites-enabled/*).
- git: `clone` copies the test's own checkout (its committed HEAD), whatever the address.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from sandbox import SYSTEM_PATH, Sandbox, free


def die(message: str, code: int = 1):
    print(message, file=sys.stderr)
    sys.exit(code)


def real(program: str) -> str:
    found = shutil.which(program, path=SYSTEM_PATH)
    if not found:
        die(f"{program}: command not found")
    return found


# --- sudo ------------------------------------------------------------------------------------
# What Debian's sudo keeps of the caller's environment (env_reset), plus what this machine's
# pip needs to reach its index (PIP_*, certificates) and the sandbox's own settings.
_KEPT = re.compile(r"^(HOME|LANG|LC_\w+|TERM|DEPLOY_\w+|PIP_\w+|\w*_CA_\w+|SSL_CERT_\w+|(?i:\w*_proxy))$")


def sudo(args: list[str]) -> None:
    box = Sandbox.from_env()
    user = "root"
    while args and args[0].startswith("-"):
        flag = args.pop(0)
        if flag == "-u" and args:
            user = args.pop(0)
        elif flag == "--":
            break
        elif flag not in ("-E", "--preserve-env", "-H"):
            die(f"sudo (sandbox): the option {flag} is not emulated")
    if not args:
        die("usage: sudo [-u user] command")
    if not box.is_user(user):
        die(f"sudo: unknown user {user}")
    env = {k: v for k, v in os.environ.items() if _KEPT.match(k)}
    env["PATH"] = os.environ["DEPLOY_SHIMS"] + ":" + SYSTEM_PATH
    env["USER"] = env["LOGNAME"] = user
    if user == "postgres":  # Debian's peer log-in as postgres: the test server's superuser
        env.update(PGHOST="127.0.0.1", PGPORT=os.environ["DEPLOY_PG_PORT"], PGUSER=os.environ["DEPLOY_PG_ADMIN"],
                   PGDATABASE="postgres")
    try:
        os.execvpe(args[0], args, env)
    except FileNotFoundError:
        die(f"sudo: {args[0]}: command not found")


# --- apt -------------------------------------------------------------------------------------
def apt(args: list[str]) -> None:
    words = [a for a in args if not a.startswith("-")]
    if not words or words[0] == "update":
        return
    if words[0] != "install":
        die(f"apt (sandbox): only `install` and `update` are emulated, not {words[0]!r}")
    missing = []
    for package in words[1:]:
        status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
        if status.returncode != 0 or "install ok installed" not in status.stdout:
            missing.append(package)
    if missing:
        die(f"E: the sandbox never installs; not installed on this machine: {' '.join(missing)} "
            f"(sudo apt-get install {' '.join(missing)})", 100)
    print(f"{' '.join(words[1:])}: already installed (the sandbox checked, installed nothing)")


# --- users and owners ------------------------------------------------------------------------
def useradd(args: list[str]) -> None:
    box = Sandbox.from_env()
    accounts = box.accounts()
    # Options that take a value: the value is not the user's name.
    valued = {"-s", "--shell", "-d", "--home-dir", "-g", "--gid", "-G", "--groups", "-c", "--comment", "-u", "--uid"}
    name, group = None, None
    i = 0
    while i < len(args):
        if args[i] in valued:
            if args[i] in ("-g", "--gid"):
                group = args[i + 1]
            i += 2
            continue
        if not args[i].startswith("-"):
            name = args[i]
        i += 1
    if name is None:
        die("useradd: no user name given")
    if box.is_user(name):
        die(f"useradd: user '{name}' already exists", 9)
    if group is not None and not box.is_group(group):
        die(f"useradd: group '{group}' does not exist", 6)
    accounts["users"].append(name)
    if "-U" in args or "--user-group" in args or group is None:  # Debian's USERGROUPS_ENAB yes
        accounts["groups"].append(name)
    box.save_accounts(accounts)


def chown(args: list[str]) -> None:
    box = Sandbox.from_env()
    rest = [a for a in args if not a.startswith("-")]
    if len(rest) < 2:
        die("chown: missing operand")
    owner, paths = rest[0], rest[1:]
    user, _, group = owner.partition(":")
    if user and not box.is_user(user):
        die(f"chown: invalid user: {owner!r}")
    if group and not box.is_group(group):
        die(f"chown: invalid group: {owner!r}")
    accounts = box.accounts()
    for path in paths:
        if not Path(path).exists():
            die(f"chown: cannot access '{box.unrooted(path)}': No such file or directory")
        accounts["owners"][str(Path(path))] = f"{user}:{group or user}"
    box.save_accounts(accounts)


def refused(name: str):
    def run(args: list[str]) -> None:
        die(f"{name} (sandbox): not emulated; the steps make their user with useradd")
    return run


# --- git -------------------------------------------------------------------------------------
def git(args: list[str]) -> None:
    if not args or args[0] != "clone":
        os.execv(real("git"), ["git", *args])
    positional = [a for a in args[1:] if not a.startswith("-")]
    if len(positional) != 2:
        die("git clone (sandbox): give the address and the folder, e.g. git clone URL /srv/terrabank")
    dest = positional[1]
    done = subprocess.run([real("git"), "clone", "--quiet", os.environ["DEPLOY_REPO"], dest])
    sys.exit(done.returncode)


# --- systemd ---------------------------------------------------------------------------------
def read_unit(path: Path) -> dict[str, dict[str, list[str]]]:
    """A unit file as {section: {key: [values in order]}} (continuation lines joined)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    text = re.sub(r"\\\n", " ", path.read_text())
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        if current is None or "=" not in line:
            die(f"{path.name}: cannot read the line {line!r}")
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def read_environment_file(path: Path) -> dict[str, str]:
    env = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        key, sep, value = line.partition("=")
        if not sep:
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        env[key.strip()] = value
    return env


def check_unit(box: Sandbox, file: Path) -> None:
    """What systemd itself says of the unit (systemd-analyze verify, where systemd is installed): a key
    it ignores ("Unknown key ... ignoring") is only a line in the journal on a real machine, and the
    setting silently missing; here it stops the steps, naming it."""
    analyze = shutil.which("systemd-analyze", path=SYSTEM_PATH)
    if not analyze:
        return
    folder = box.state / "units"
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / file.name
    copy.write_text(box.rooted(file.read_text()))
    name = file.name.replace("@.service", "@1.service")
    done = subprocess.run([analyze, "verify", "--man=no", f"./{name}"], cwd=folder, capture_output=True, text=True)
    ignored = [line.replace(str(copy), f"/etc/systemd/system/{file.name}") for line in done.stderr.splitlines()
               if line.startswith(str(copy)) and re.search(r"Unknown|ignoring|Failed to parse|Invalid", line)]
    if ignored:
        die("systemd does not take the unit as written:\n" + "\n".join(ignored))


def start_unit(box: Sandbox, unit: str) -> None:
    name, _, instance = unit.removesuffix(".service").partition("@")
    file = box.root / "etc/systemd/system" / (f"{name}@.service" if instance else f"{name}.service")
    if not file.exists():
        die(f"Failed to enable unit: Unit file {unit}.service does not exist.")
    service = read_unit(file).get("Service", {})
    port = str(box.port(instance)) if instance.isdigit() else instance

    def expand(value: str) -> str:
        return box.rooted(value.replace("%i", port).replace("%I", port))

    # systemd gives a service its own small environment, never the caller's.
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin", "LANG": "C.UTF-8"}
    for line in service.get("Environment", []):
        for item in shlex.split(expand(line)):
            key, _, value = item.partition("=")
            env[key] = value
    for entry in service.get("EnvironmentFile", []):  # they override Environment=
        optional = entry.startswith("-")
        path = Path(expand(entry.lstrip("-")))
        if not path.exists():
            if optional:
                continue
            die(f"{unit}.service: Failed to load environment files: No such file or directory "
                f"({box.unrooted(str(path))})")
        env.update(read_environment_file(path))
    # StateDirectory=NAME: systemd makes /var/lib/NAME for the unit's user (StateDirectoryMode=, 0755 unless
    # given) and names it to the process as STATE_DIRECTORY; here under R, as /srv and /etc are.
    made = []
    for name in " ".join(service.get("StateDirectory", [])).split():
        folder = box.root / "var/lib" / name
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(int((service.get("StateDirectoryMode") or ["0755"])[-1], 8))
        made.append(str(folder))
    if made:
        env["STATE_DIRECTORY"] = ":".join(made)
    user = (service.get("User") or ["root"])[-1]
    if not box.is_user(user):
        die(f"{unit}.service: Failed to determine user credentials: No such process (User={user})")
    workdir = Path(expand((service.get("WorkingDirectory") or ["/"])[-1]))
    if not workdir.is_dir():
        die(f"{unit}.service: Changing to the requested working directory failed: No such file or directory "
            f"({box.unrooted(str(workdir))})")
    if not service.get("ExecStart"):
        die(f"{unit}.service: Service has no ExecStart= setting. Refusing.")
    command = expand(service["ExecStart"][-1]).lstrip("-@+!:")
    command = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: env.get(m.group(1) or m.group(2), ""), command)
    argv = shlex.split(command)
    if not (os.path.isfile(argv[0]) and os.access(argv[0], os.X_OK)):
        die(f"{unit}.service: Failed at step EXEC spawning {box.unrooted(argv[0])}: No such file or directory")
    box.make()
    log = open(box.logs / f"{unit}.log", "ab")
    proc = subprocess.Popen(argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    (box.pids / f"{unit}.pid").write_text(str(proc.pid))


def systemctl(args: list[str]) -> None:
    box = Sandbox.from_env()
    words = [a for a in args if not a.startswith("-")]
    if not words:
        die("systemctl (sandbox): give a command")
    verb, units = words[0], words[1:]
    if verb == "daemon-reload":
        for file in (box.root / "etc/systemd/system").glob("*.service"):
            read_unit(file)  # an unreadable line is refused here
            check_unit(box, file)
        return
    if verb in ("reload", "restart", "start") and units == ["nginx"]:
        nginx_reload(box)
        return
    if verb == "enable" and "--now" in args or verb in ("start", "restart"):
        for unit in units:
            if unit.startswith(("postgresql", "redis-server", "nginx")):
                continue  # Debian started them when they were installed
            start_unit(box, unit)
        return
    if verb == "enable":
        return  # at the next boot: nothing to do in the sandbox
    die(f"systemctl (sandbox): {' '.join(words)} is not emulated")


# --- nginx -----------------------------------------------------------------------------------
def nginx_prepare(box: Sandbox) -> Path:
    """Debian's main nginx file, in the sandbox: R/etc/nginx's conf.d/*.conf and sites-enabled/*,
    each copied with its ports moved to the sandbox's (listen 80 -> a free port)."""
    folder = box.nginx_folder()
    for sub in ("conf.d", "sites-enabled"):
        shutil.rmtree(folder / sub, ignore_errors=True)
        (folder / sub).mkdir(parents=True)
        source = box.root / "etc/nginx" / sub
        for file in sorted(source.glob("*.conf" if sub == "conf.d" else "*")):
            if not file.exists():
                die(f'nginx: [emerg] open() "{box.unrooted(str(file))}" failed (2: No such file or directory)')
            text = box.addresses(file.read_text())  # the upstream's 127.0.0.1:5001..., before the listen lines
            text = re.sub(r"^(\s*listen\s+\[::\]:\d+.*)$", r"# sandbox, no IPv6: \1", text, flags=re.M)
            text = re.sub(r"^(\s*listen\s+)(?:(?:\*|0\.0\.0\.0):)?(\d+)\b",
                          lambda m: f"{m.group(1)}127.0.0.1:{box.port(m.group(2))}", text, flags=re.M)
            (folder / sub / file.name).write_text(text)
    temps = ""
    for temp in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):  # not /var/lib/nginx: the sandbox's own
        (folder / temp).mkdir(exist_ok=True)
        temps += f"  {temp}_temp_path {folder}/{temp};\n"
    main = folder / "nginx.conf"
    main.write_text(
        f"{'user root;' if os.geteuid() == 0 else ''}\nworker_processes 1;\npid {folder}/nginx.pid;\n"
        f"error_log {folder}/error.log;\nevents {{ worker_connections 512; }}\n"
        f"http {{\n  access_log off;\n{temps}"
        f"  include {folder}/conf.d/*.conf;\n  include {folder}/sites-enabled/*;\n}}\n")
    return main


def nginx_test(box: Sandbox) -> subprocess.CompletedProcess:
    main = nginx_prepare(box)
    done = subprocess.run([real("nginx"), "-t", "-p", str(main.parent), "-c", str(main)], capture_output=True,
                          text=True)
    # Name the operator's files, not the sandbox's copies of them.
    out = done.stderr.replace(str(main), "/etc/nginx/nginx.conf")
    out = out.replace(f"{main.parent}/sites-enabled/", "/etc/nginx/sites-enabled/")
    out = out.replace(f"{main.parent}/conf.d/", "/etc/nginx/conf.d/")
    return subprocess.CompletedProcess(done.args, done.returncode, "", box.unrooted(out))


def nginx_reload(box: Sandbox) -> None:
    checked = nginx_test(box)
    if checked.returncode != 0:
        die("Job for nginx.service failed (its configuration test failed):\n" + checked.stderr)
    folder = box.nginx_folder()
    pid_file = folder / "nginx.pid"
    if pid_file.exists() and _alive(int(pid_file.read_text() or 0)):
        os.kill(int(pid_file.read_text()), signal.SIGHUP)
        time.sleep(0.5)  # the new workers take over
        return
    done = subprocess.run([real("nginx"), "-p", str(folder), "-c", str(folder / "nginx.conf")], capture_output=True,
                          text=True)
    if done.returncode != 0:
        die("nginx did not start: " + box.unrooted(done.stderr))
    port = box.port(80)
    deadline = time.monotonic() + 20
    while free(port):
        if time.monotonic() > deadline:
            die(f"nginx did not listen on port 80 (the sandbox's {port}) within 20 s")
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return pid > 0
    except OSError:
        return False


def nginx(args: list[str]) -> None:
    box = Sandbox.from_env()
    if "-t" in args or "-T" in args:
        done = nginx_test(box)
        sys.stderr.write(done.stderr)
        sys.exit(done.returncode)
    if args[:2] == ["-s", "reload"]:
        nginx_reload(box)
        return
    die(f"nginx (sandbox): {' '.join(args)} is not emulated (nginx -t, nginx -s reload, systemctl reload nginx)")


COMMANDS = {"sudo": sudo, "apt": apt, "apt-get": apt, "useradd": useradd, "chown": chown, "git": git,
            "systemctl": systemctl, "nginx": nginx, "adduser": refused("adduser"), "addgroup": refused("addgroup"),
            "groupadd": refused("groupadd"), "usermod": refused("usermod"), "userdel": refused("userdel")}

if __name__ == "__main__":
    COMMANDS[sys.argv[1]](sys.argv[2:])
