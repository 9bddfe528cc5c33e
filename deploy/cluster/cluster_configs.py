"""The configuration files of the topology on one machine (topology.py): PostgreSQL's
settings, PgBouncer's ini and HAProxy's cfg with its problem+json pages, each a pure
function of the ports and directories it is given."""

from __future__ import annotations

import json
from pathlib import Path

DATABASE = "gin"  # the platform's database, on the primary and through PgBouncer
# Offsets from the port base (``--port-base``, CLUSTER_PORT_BASE; default 15400): nothing
# here clashes with the machine's 5432, 6379 or 8000.
PORT_OFFSETS = {
    "haproxy": 0,
    "web_a": 1,
    "web_b": 2,
    "haproxy_stats": 3,
    "primary": 32,
    "replica": 33,
    "pgbouncer": 64,
    "redis": 79,
}
DEFAULT_PORT_BASE = 15400


def ports_from(base: int) -> dict[str, int]:
    return {name: base + offset for name, offset in PORT_OFFSETS.items()}


def postgresql_conf(*, port: int, socket_dir: Path) -> str:
    """The primary's settings. ``synchronous_commit = on`` with the replica named in
    ``synchronous_standby_names``: a commit is acknowledged once the replica has flushed its
    WAL to disk, so an acknowledged money movement survives the primary's loss (promotion
    replays everything flushed). ``remote_apply`` would also wait for the replica to replay
    it (only needed to read your own writes on the replica, which nothing here does) at the
    cost of replay latency on every commit. ``synchronous_standby_names`` is set once the
    replica streams (before that, every commit would wait for it)."""
    return f"""
listen_addresses = '127.0.0.1'
port = {port}
unix_socket_directories = '{socket_dir}'
max_connections = 200
shared_buffers = 128MB
timezone = 'UTC'
log_timezone = 'UTC'
wal_level = replica
max_wal_senders = 5
max_replication_slots = 5
wal_keep_size = 256MB
hot_standby = on
synchronous_commit = on
wal_sender_timeout = 10s
wal_receiver_timeout = 10s
logging_collector = off
"""


def pgbouncer_ini(*, directory: Path, port: int, primary_port: int, pool_size: int) -> str:
    """Transaction pooling (PgBouncer 1.18 carries no prepared statements: the app runs with
    DATABASE_SERVER_SIDE_BINDING=0). The app's database is named (a reload repoints a named
    entry; one made from ``*`` keeps its first address), ``*`` serves any other on the same
    server: a failover is the port rewritten and a reload."""
    return f"""[databases]
{DATABASE} = host=127.0.0.1 port={primary_port} dbname={DATABASE}
* = host=127.0.0.1 port={primary_port}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {directory / "userlist.txt"}
admin_users = postgres
pool_mode = transaction
max_client_conn = 2000
default_pool_size = {pool_size}
reserve_pool_size = 10
reserve_pool_timeout = 2
server_reset_query =
server_check_delay = 5
server_connect_timeout = 3
server_login_retry = 1
query_wait_timeout = 30
log_connections = 0
log_disconnections = 0
ignore_startup_parameters = extra_float_digits,options
logfile = {directory / "pgbouncer.log"}
pidfile = {directory / "pgbouncer.pid"}
"""


PROBLEM_PAGES = {
    502: ("bad-gateway", "Bad gateway", "The web node serving this request went away."),
    503: ("service-unavailable", "Service unavailable", "No web node is available."),
    504: ("gateway-timeout", "Gateway timeout", "The web node did not answer in time."),
}


def problem_page(status: int) -> str:
    """HAProxy's own answer for ``status`` as problem+json (docs/api-errors.md), so a client
    meets the same error shape whether the app or the balancer answers."""
    slug, title, detail = PROBLEM_PAGES[status]
    body = json.dumps(
        {
            "type": f"/problems/{slug}",
            "title": title,
            "status": status,
            "detail": detail,
        }
    )
    return (
        f"HTTP/1.1 {status} {title}\r\n"
        "Content-Type: application/problem+json\r\n"
        "Cache-Control: no-store\r\n"
        "Retry-After: 1\r\n"
        "Connection: close\r\n"
        f"Content-Length: {len(body)}\r\n\r\n{body}"
    )


def haproxy_cfg(*, directory: Path, port: int, stats_port: int, web_ports: list[int]) -> str:
    """The load balancer.

    Health: ``/api/v1/health/live`` every second, 3 s to answer (down after 3 misses, up
    after 2 answers): the process answers. Not the readiness check, which also fails when the
    database or the broker does: that is every node at once, and the app's own problem+json
    503 says more than the balancer's. A node refusing connections (killed) is down within
    3 s; one merely busy answers its check late, not never. Should every node be marked down
    all the same (all busy at once), the balancer fails open: each node is also a backup
    without a check, so requests still reach the nodes instead of all getting the balancer's
    503 (500 tables at 100 moves/s on two cores marked both nodes down with a 1 s check, and
    the clients' retries of those 503s kept them down).

    Sockets: ``timeout tunnel`` 1 h (a socket is quiet for at most a 20 s heartbeat),
    ``timeout client`` 60 s (above the 25 s long poll). Retries: a request that could not be
    connected is sent to the other node (``redispatch``, safe for any method); one sent and
    unanswered is retried only when its method is idempotent (``disable-l7-retry``
    otherwise: a POST may have moved money)."""
    names = [f"web_{chr(ord('a') + i)}" for i in range(len(web_ports))]
    servers = "\n".join(
        [
            f"    server {name} 127.0.0.1:{p} check inter 1s fall 3 rise 2"
            for name, p in zip(names, web_ports, strict=True)
        ]
        + [
            f"    server {name}_open 127.0.0.1:{p} backup"
            for name, p in zip(names, web_ports, strict=True)
        ]
    )
    errorfiles = "\n".join(
        f"    errorfile {status} {directory / f'{status}.http'}" for status in PROBLEM_PAGES
    )
    return f"""global
    maxconn 8000
    log stderr format short local0 warning

defaults
    mode http
    log global
    option httplog
    option dontlognull
    timeout connect 3s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
    timeout client-fin 10s
    timeout http-keep-alive 60s
    timeout http-request 15s
    timeout queue 10s
    timeout check 3s
{errorfiles}

frontend web
    bind 127.0.0.1:{port}
    option forwardfor
    default_backend web

backend web
    balance roundrobin
    option allbackups
    option redispatch 1
    retries 3
    retry-on conn-failure empty-response response-timeout
    http-request disable-l7-retry if !METH_GET !METH_HEAD !METH_OPTIONS
    option httpchk
    http-check send meth GET uri /api/v1/health/live ver HTTP/1.1 hdr Host 127.0.0.1
    http-check expect status 200
    # A socket pins its node; a request may go to either (no stickiness needed: Redis
    # carries every push to the process holding the socket).
    http-request set-header X-Forwarded-Proto http
    http-response set-header X-Served-By %[srv_name]
    use-server web_a if {{ req.hdr(X-Gin-Node) -m str a }}
    use-server web_b if {{ req.hdr(X-Gin-Node) -m str b }}
{servers}

listen stats
    bind 127.0.0.1:{stats_port}
    stats enable
    stats uri /
    stats refresh 5s
"""
