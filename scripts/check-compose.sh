#!/usr/bin/env bash
# Checks compose.yaml as far as this machine can without a container engine:
#   1. against the Compose Specification's JSON schema (the copy check-jsonschema ships,
#      `--builtin-schema vendor.compose-spec`);
#   2. `podman-compose config`: podman-compose reads and merges the file as it would to
#      start it (anchors, merge keys, env_file, secrets), and the result is checked: three
#      nodes with their own node ids on the same image, each waiting for PostgreSQL's health
#      check, nginx waiting for theirs, no secret written into the file;
#   3. deploy/nginx.conf with `nginx -t` (the nodes' service names read as 127.0.0.1);
#   4. deploy/rangers.env.example holds placeholders only.
# It does not start anything: this machine has no container runtime that can.
# podman-compose and check-jsonschema (pinned) are installed from PyPI into a virtualenv
# under ${XDG_CACHE_HOME:-~/.cache}/emoji-rangers/.
#
#   bash scripts/check-compose.sh
set -euo pipefail
cd "$(dirname "$0")/.."

requirements=("podman-compose==1.6.0" "check-jsonschema==0.39.0")
venv=${XDG_CACHE_HOME:-$HOME/.cache}/emoji-rangers/compose-check-$(printf '%s\n' "${requirements[@]}" | sha256sum | cut -c1-12)
if [[ ! -x $venv/bin/podman-compose ]]; then
    command -v python3 >/dev/null || { echo "check-compose.sh: python3 is missing" >&2; exit 3; }
    echo "== installing ${requirements[*]} into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "${requirements[@]}"
fi

failures=0
pass() { echo "PASS  $1"; }
fail() { echo "FAIL  $1"; failures=$((failures + 1)); }
folder=$(mktemp -d /tmp/rangers-compose-check.XXXXXX)
trap 'rm -rf "$folder"' EXIT

if "$venv/bin/check-jsonschema" --builtin-schema vendor.compose-spec compose.yaml > "$folder/schema.log" 2>&1; then
    pass "compose.yaml matches the Compose Specification's schema (check-jsonschema $("$venv/bin/check-jsonschema" --version | awk '{print $NF}'))"
else
    fail "compose.yaml matches the Compose Specification's schema"; sed 's/^/      | /' "$folder/schema.log"
fi

if "$venv/bin/podman-compose" -f compose.yaml config > "$folder/config.yaml" 2> "$folder/config.log"; then
    pass "podman-compose $("$venv/bin/podman-compose" --version 2>/dev/null | awk '/podman-compose/ {print $NF}' | head -1) config reads and merges compose.yaml"
else
    fail "podman-compose config reads compose.yaml"; sed 's/^/      | /' "$folder/config.log"
fi

if "$venv/bin/python" - "$folder/config.yaml" compose.yaml > "$folder/shape.log" 2>&1 <<'EOF'
import re, sys, yaml
config = yaml.safe_load(open(sys.argv[1]))
services = config["services"]
nodes = {name: service for name, service in services.items() if name.startswith("node-")}
problems = []
if sorted(nodes) != ["node-1", "node-2", "node-3"]:
    problems.append(f"nodes: {sorted(nodes)}")
if {service.get("image") for service in nodes.values()} != {"emoji-rangers:latest"}:
    problems.append("the nodes do not share one image")
ids = [service["environment"].get("RANGERS_NODE_ID") for service in nodes.values()]
if sorted(ids) != ["node-1", "node-2", "node-3"]:
    problems.append(f"node ids: {ids}")
for name, service in nodes.items():
    environment = service["environment"]
    if environment.get("RANGERS_APNS") != "apple" or environment.get("APNS_KEY_FILE") != "/run/secrets/apns_key":
        problems.append(f"{name}: not on Apple's APNs with the key from a secret")
    if service.get("depends_on", {}).get("postgres", {}).get("condition") != "service_healthy":
        problems.append(f"{name}: does not wait for PostgreSQL's health check")
    if "deploy/rangers.env" not in (service.get("env_file") or []):
        problems.append(f"{name}: no deploy/rangers.env")
    if "/healthz" not in " ".join(service.get("healthcheck", {}).get("test", [])) and \
       "/readyz" not in " ".join(service.get("healthcheck", {}).get("test", [])):
        problems.append(f"{name}: no health check on the readiness route")
waits = services["nginx"].get("depends_on", {})
if sorted(name for name, rule in waits.items() if rule.get("condition") == "service_healthy") != sorted(nodes):
    problems.append("nginx does not wait for every node's health check")
postgres = services["postgres"]
if "POSTGRES_PASSWORD" in postgres.get("environment", {}) or \
   postgres.get("environment", {}).get("POSTGRES_PASSWORD_FILE") != "/run/secrets/postgres_password":
    problems.append("PostgreSQL's password is not a secret file")
settings = " ".join(postgres.get("command", []))
for setting in ["max_connections=", "shared_buffers=", "wal_compression=on", "synchronous_commit=on", "checkpoint_timeout=", "max_wal_size=", "autovacuum_naptime="]:
    if setting not in settings:
        problems.append(f"PostgreSQL is started without {setting}")
text = open(sys.argv[2]).read()
for secret in ["RANGERS_DATABASE_URL", "RANGERS_GAME_MASTER_KEY", "RANGERS_LIVE_LINK_SECRET", "APNS_KEY_ID", "APNS_TEAM_ID", "POSTGRES_PASSWORD:"]:
    if re.search(rf"^\s*{secret}\s*[:=]", text, re.M):
        problems.append(f"{secret} is written in compose.yaml")
print("\n".join(problems) or f"{len(services)} services: {', '.join(sorted(services))}")
sys.exit(1 if problems else 0)
EOF
then
    pass "the merged file: three nodes on one image, own node ids, Apple's APNs with the key as a secret, health checks waited for, no secret in the file ($(cat "$folder/shape.log"))"
else
    fail "the merged file's shape"; sed 's/^/      | /' "$folder/shape.log"
fi

nginx=$(command -v nginx || echo /usr/sbin/nginx)
if [[ -x $nginx ]]; then
    sed -e 's/node-[123]:8080/127.0.0.1:8080/' -e "s|^pid .*|pid $folder/nginx.pid;|" deploy/nginx.conf > "$folder/nginx.conf"
    if "$nginx" -t -q -p "$folder" -c "$folder/nginx.conf" -e "$folder/nginx-error.log" > "$folder/nginx.log" 2>&1; then
        pass "deploy/nginx.conf passes nginx -t ($("$nginx" -v 2>&1 | cut -d/ -f2), the nodes' names read as 127.0.0.1)"
    else
        fail "deploy/nginx.conf passes nginx -t"; sed 's/^/      | /' "$folder/nginx.log"
    fi
else
    echo "SKIP  deploy/nginx.conf with nginx -t: nginx is not installed (apt-get install nginx)"
fi

if grep -vE '^\s*(#|$)' deploy/rangers.env.example | grep -vE '=(REPLACE_WITH_[A-Z_]+|sandbox|production|postgres://rangers:REPLACE_WITH_THE_POSTGRES_PASSWORD@postgres:5432/rangers\?sslmode=disable)$' > "$folder/env.log"; then
    fail "deploy/rangers.env.example holds placeholders only"; sed 's/^/      | /' "$folder/env.log"
else
    pass "deploy/rangers.env.example holds placeholders only"
fi

echo "== compose.yaml was read and checked, not started: this machine has no container runtime that can start it"
[[ $failures == 0 ]]
