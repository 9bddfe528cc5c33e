"""deploy/ (docs/deploy.md): every file parses, and every way of running the platform (compose,
Kubernetes, systemd, the Dockerfile) runs one of the four documented commands with environment
variables the code actually reads; the web role is the ASGI server everywhere, and everything in
front of it and around it lets its WebSockets live and its requests finish. Static: no Docker,
cluster, systemd or database needed.
"""

from __future__ import annotations

import ast
import configparser
import fnmatch
import http.server
import re
import runpy
import shlex
import threading
from pathlib import Path

import dj_database_url
import pytest
import yaml
from celery.bin.worker import worker as celery_worker_command
from django.conf import settings
from django.http.request import validate_host

from games.realtime.longpoll import LONG_POLL_MAX_SECONDS
from gin_platform.project.config import env_bool, production_problems

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
SYSTEMD = DEPLOY / "systemd"
DOCS = ROOT / "docs" / "deploy.md"
HEALTH_PATH = "/api/v1/health"
LIVE_PATH = "/api/v1/health/live"

# The four commands, once. docs/deploy.md must show each of them in a fenced block.
COMMANDS = {
    "web": "gunicorn gin_platform.project.asgi:application --config deploy/gunicorn.conf.py",
    "worker": "celery -A gin_platform worker -l info",
    "beat": "celery -A gin_platform beat -l info",
    "migrate": "python manage.py migrate --noinput",
}
DOCUMENTED = set(COMMANDS.values())

APP_SERVICES = ("migrate", "web", "worker", "beat")
SECRET_SETTINGS = (
    "SECRET_KEY",
    "SECRETS_ENCRYPTION_KEY",
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_BROKER_URL",
)
# What an operator fills in: a random Django key and a Fernet key (production refuses weak
# or missing ones, so the deploy files are checked with real-looking values).
FILLED_SECRETS = {
    "SECRET_KEY": "Jq3v9Xk2LrT8mWc5Yp1Zs7Nd4Hf6Gb0Ea-Ru_Ko2Vi8Tx3Ly9Pw5Qe1Mz7Cj4Bn",
    "SECRETS_ENCRYPTION_KEY": "x3k0vJtHq0yWm3c6dQ3v6g6Zl7z8Hk1o2Jw9nY5pR4s=",
}


# --- helpers ---------------------------------------------------------------------------------
def normalize(argv: list[str] | str) -> str:
    """A command as documented: program name without its directory (a virtualenv's
    /opt/.../bin/celery is `celery`), systemd's ExecStart prefixes dropped."""
    words = shlex.split(argv) if isinstance(argv, str) else list(argv)
    assert words, "empty command"
    program = Path(words[0].lstrip("-@:+!")).name
    if re.fullmatch(r"python3(\.\d+)?", program):
        program = "python"
    return " ".join([program, *words[1:]])


def fenced_blocks(text: str) -> list[list[str]]:
    blocks, current = [], None
    for line in text.splitlines():
        if line.strip().startswith("```"):
            if current is None:
                current = []
            else:
                blocks.append(current)
                current = None
        elif current is not None:
            current.append(line.strip())
    return blocks


def yaml_files() -> list[Path]:
    return sorted([*DEPLOY.rglob("*.yml"), *DEPLOY.rglob("*.yaml")])


def load_yaml(path: Path) -> list:
    with path.open() as handle:
        return [doc for doc in yaml.safe_load_all(handle) if doc is not None]


def env_file(path: Path, *, commented: bool = False) -> dict[str, str]:
    """KEY=value lines (and, with commented=True, "# KEY=value" examples too)."""
    values = {}
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if commented and line.startswith("#"):
            line = line.lstrip("#").strip()
        match = re.fullmatch(r"([A-Z][A-Z0-9_]*)=(.*)", line)
        if match:
            values[match[1]] = match[2]
    return values


def names_read_from_environment(path: Path) -> set[str]:
    """Variable names a module reads: ENV.get("X"), env["X"], os.environ.get("X"),
    os.environ.setdefault("X", ...), env_bool(ENV, "X"), env_list(ENV, "X")."""

    def is_environ(node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in {"ENV", "env", "environ"}
        return isinstance(node, ast.Attribute) and node.attr == "environ"

    def text(node: ast.AST) -> str | None:
        is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
        return node.value if is_text else None

    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Subscript) and is_environ(node.value):
            names.add(text(node.slice))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            if isinstance(func, ast.Attribute) and is_environ(func.value):
                if func.attr in {"get", "setdefault", "pop"}:
                    names.add(text(node.args[0]))
            elif isinstance(func, ast.Attribute) and func.attr == "getenv":
                names.add(text(node.args[0]))
            elif isinstance(func, ast.Name) and func.id in {"env_bool", "env_list"}:
                names.add(text(node.args[1]))
    return names - {None}


def allowed_env_names() -> set[str]:
    modules = [
        ROOT / "gin_platform" / "project" / "settings.py",
        ROOT / "gin_platform" / "project" / "config.py",
        ROOT / "gin_platform" / "project" / "celery.py",
        ROOT / "gin_platform" / "project" / "wsgi.py",
        ROOT / "gin_platform" / "project" / "asgi.py",
        DEPLOY / "gunicorn.conf.py",
        DEPLOY / "healthcheck.py",
    ]
    names = set().union(*(names_read_from_environment(module) for module in modules))
    # The celery command line reads CELERY_WORKER_<OPTION> (click's auto_envvar_prefix).
    names |= {f"CELERY_WORKER_{option.name.upper()}" for option in celery_worker_command.params}
    # The interpreter's own.
    names |= {"PYTHONPATH", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE"}
    return names


ALLOWED_ENV = allowed_env_names()


def assert_env_names_known(names, where: str) -> None:
    unknown = sorted(set(names) - ALLOWED_ENV)
    assert not unknown, f"{where} sets {unknown}, which no code reads"


def assert_production_ready(env: dict[str, str], where: str) -> None:
    """The environment passes the production start-up checks of gin_platform/project/settings.py."""
    assert env.get("GIN_ENV") == "production", where
    engine = dj_database_url.parse(env["DATABASE_URL"])["ENGINE"]
    problems = production_problems(
        env=env, debug=env_bool(env, "DEBUG", default=False), database_engine=engine
    )
    assert problems == [], f"{where}: {problems}"


# --- every file parses; the commands are documented ----------------------------------------
def test_every_yaml_file_under_deploy_parses():
    files = yaml_files()
    assert DEPLOY / "docker-compose.yml" in files
    assert K8S / "kustomization.yaml" in files
    for path in files:
        assert load_yaml(path), f"{path} holds no document"


def test_docs_show_each_command_in_a_fenced_block():
    lines = {line for block in fenced_blocks(DOCS.read_text()) for line in block}
    missing = DOCUMENTED - lines
    assert not missing, f"docs/deploy.md does not show {missing} in a code block"


@pytest.mark.parametrize("doc", ["README.md", "docs/deploy.md"])
def test_docs_start_roles_only_with_the_documented_commands(doc):
    """A line that starts gunicorn, a worker, beat or migrate is exactly a documented one."""
    path = ROOT / doc
    assert path.exists(), f"{doc} is missing"
    role = re.compile(
        r"^(\S*/)?(gunicorn gin_platform\.[aw]sgi|celery -A gin_platform (worker|beat)\b|"
        r"python3? manage\.py migrate --noinput)"
    )
    for block in fenced_blocks(path.read_text()):
        for line in block:
            command = line.removeprefix("$ ").split("#")[0].strip()
            if role.match(command):
                assert normalize(command) in DOCUMENTED, f"{doc}: {line!r}"


def test_allowed_env_names_include_what_settings_read():
    """Guards the scan itself: it must find the settings' core variables."""
    assert {
        "GIN_ENV",
        "DEBUG",
        "SECRET_KEY",
        "ALLOWED_HOSTS",
        "DATABASE_URL",
        "REDIS_URL",
        "CELERY_BROKER_URL",
        "GUNICORN_WORKERS",
        "CELERY_WORKER_CONCURRENCY",
    } <= ALLOWED_ENV


# --- docker compose ------------------------------------------------------------------------
def compose() -> dict:
    (document,) = load_yaml(DEPLOY / "docker-compose.yml")
    return document


def interpolate(value, variables: dict[str, str]):
    """Compose's ${VAR}, ${VAR:-default}, ${VAR:?error} on strings, recursively."""
    if isinstance(value, dict):
        return {key: interpolate(item, variables) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, variables) for item in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match) -> str:
        name, operator, argument = match[1], match[2], match[3]
        current = variables.get(name, "")
        if operator == ":?" and not current:
            raise AssertionError(f"${{{name}}} is required: {argument}")
        if operator == ":-" and not current:
            return argument
        return current

    return re.sub(r"\$\{([A-Z0-9_]+)(?:(:[-?])([^}]*))?\}", one, value)


def compose_variables() -> set[str]:
    return set(re.findall(r"\$\{([A-Z0-9_]+)", (DEPLOY / "docker-compose.yml").read_text()))


def test_compose_has_the_six_services():
    services = compose()["services"]
    assert set(services) >= {"postgres", "redis", *APP_SERVICES}


def test_compose_services_run_the_documented_commands():
    services = compose()["services"]
    for name in set(services) - {"postgres", "redis"}:
        assert "command" in services[name], f"compose service {name} has no command"
        assert normalize(services[name]["command"]) in DOCUMENTED, name
    for role in APP_SERVICES:
        assert normalize(services[role]["command"]) == COMMANDS[role], role


def test_compose_runs_one_beat_and_orders_the_start():
    services = compose()["services"]
    beat = services["beat"]
    assert beat.get("deploy", {}).get("replicas", 1) == 1
    assert beat.get("scale", 1) == 1
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert services["migrate"].get("restart") == "no"
    for role in ("web", "worker", "beat"):
        condition = services[role]["depends_on"]["migrate"]["condition"]
        assert condition == "service_completed_successfully", role


def test_compose_databases_have_healthchecks_and_volumes():
    document = compose()
    services = document["services"]
    assert services["postgres"]["image"].startswith("postgres:16")
    assert services["redis"]["image"].startswith("redis:7")
    for name in ("postgres", "redis"):
        assert services[name]["healthcheck"]["test"], name
        volume = services[name]["volumes"][0].split(":")[0]
        assert volume in document["volumes"], name


def test_compose_only_web_keeps_the_image_http_healthcheck():
    services = compose()["services"]
    assert not services["web"].get("healthcheck", {}).get("disable")
    for role in ("migrate", "worker", "beat"):
        assert services[role]["healthcheck"] == {"disable": True}, role


def test_compose_env_names_are_read_by_the_code():
    for role in APP_SERVICES:
        environment = compose()["services"][role]["environment"]
        assert_env_names_known(environment, f"compose service {role}")


def test_env_example_lists_every_compose_variable():
    documented = env_file(DEPLOY / ".env.example", commented=True)
    missing = compose_variables() - set(documented)
    assert not missing, f"deploy/.env.example does not mention {sorted(missing)}"


def test_compose_environment_passes_the_production_checks():
    variables = env_file(DEPLOY / ".env.example")
    variables.update(FILLED_SECRETS, POSTGRES_PASSWORD="pw")
    services = interpolate(compose()["services"], variables)
    for role in APP_SERVICES:
        environment = {key: str(value) for key, value in services[role]["environment"].items()}
        assert_production_ready(environment, f"compose service {role}")


@pytest.mark.parametrize("secret", ["SECRET_KEY", "SECRETS_ENCRYPTION_KEY", "POSTGRES_PASSWORD"])
def test_compose_refuses_to_start_with_a_secret_left_empty(secret):
    variables = env_file(DEPLOY / ".env.example")
    variables.update(FILLED_SECRETS, POSTGRES_PASSWORD="pw")
    variables[secret] = ""
    with pytest.raises(AssertionError, match=secret):
        interpolate(compose()["services"], variables)


# --- Kubernetes ----------------------------------------------------------------------------
def k8s_objects() -> list[dict]:
    (kustomization,) = load_yaml(K8S / "kustomization.yaml")
    objects = []
    for resource in kustomization["resources"]:
        objects.extend(load_yaml(K8S / resource))
    return objects


def of_kind(kind: str) -> list[dict]:
    return [obj for obj in k8s_objects() if obj["kind"] == kind]


def component(obj: dict) -> str:
    return obj["metadata"]["labels"]["app.kubernetes.io/component"]


def workload(kind: str, role: str) -> dict:
    (found,) = [obj for obj in of_kind(kind) if component(obj) == role]
    return found


def containers(obj: dict) -> list[dict]:
    spec = obj["spec"]["template"]["spec"]
    return spec["containers"] + spec.get("initContainers", [])


def hpa_for(deployment: dict) -> list[dict]:
    target = {"apiVersion": "apps/v1", "kind": "Deployment", "name": deployment["metadata"]["name"]}
    hpas = of_kind("HorizontalPodAutoscaler")
    return [hpa for hpa in hpas if hpa["spec"]["scaleTargetRef"] == target]


def config_env() -> dict[str, str]:
    (config,) = of_kind("ConfigMap")
    (secret,) = of_kind("Secret")
    return {**config["data"], **secret["stringData"]}


def test_kustomization_lists_every_manifest():
    (kustomization,) = load_yaml(K8S / "kustomization.yaml")
    on_disk = {path.name for path in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == on_disk
    assert kustomization["namespace"] == "gin-platform"


def test_k8s_has_every_object_the_platform_needs():
    kinds = {obj["kind"] for obj in k8s_objects()}
    assert kinds >= {
        "Namespace",
        "ConfigMap",
        "Secret",
        "Job",
        "Deployment",
        "Service",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "Ingress",
    }
    assert {component(obj) for obj in of_kind("Deployment")} == {"web", "worker", "beat"}
    assert component(workload("Job", "migrate")) == "migrate"


def test_k8s_containers_run_the_documented_commands():
    for obj in of_kind("Deployment") + of_kind("Job"):
        for container in containers(obj):
            argv = container.get("command", []) + container.get("args", [])
            assert argv, f"{obj['metadata']['name']}: relies on the image's command"
            assert normalize(argv) in DOCUMENTED, obj["metadata"]["name"]
        (main,) = obj["spec"]["template"]["spec"]["containers"]
        assert normalize(main["command"] + main.get("args", [])) == COMMANDS[component(obj)]


def test_k8s_web_is_autoscaled_probed_and_protected():
    web = workload("Deployment", "web")
    (hpa,) = hpa_for(web)
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["minReplicas"] >= 2
    assert web["spec"].get("replicas", hpa["spec"]["minReplicas"]) >= 2
    assert [metric["resource"]["name"] for metric in hpa["spec"]["metrics"]] == ["cpu"]

    allowed_hosts = config_env()["ALLOWED_HOSTS"].split(",")
    (container,) = web["spec"]["template"]["spec"]["containers"]
    assert {"readinessProbe", "livenessProbe"} <= set(container)
    for probe in {"startupProbe", "readinessProbe", "livenessProbe"} & set(container):
        get = container[probe]["httpGet"]
        # Liveness checks only the process: a database outage must not restart web pods.
        expected = LIVE_PATH if probe == "livenessProbe" else HEALTH_PATH
        assert get["path"] == expected, probe
        host = {header["name"]: header["value"] for header in get["httpHeaders"]}["Host"]
        assert validate_host(host, allowed_hosts), f"{probe}: Host {host} is not allowed"
    assert container["resources"]["requests"]["cpu"]
    assert container["resources"]["limits"]["memory"]

    labels = web["spec"]["template"]["metadata"]["labels"]
    (pdb,) = of_kind("PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    (service,) = of_kind("Service")
    assert service["spec"]["selector"].items() <= labels.items()


def test_k8s_worker_and_single_beat():
    worker = workload("Deployment", "worker")
    assert all(hpa["spec"]["minReplicas"] >= 1 for hpa in hpa_for(worker))
    beat = workload("Deployment", "beat")
    assert beat["spec"]["replicas"] == 1
    assert beat["spec"]["strategy"] == {"type": "Recreate"}
    assert hpa_for(beat) == [], "beat must never be autoscaled"


def test_k8s_migrate_job_runs_once():
    job = workload("Job", "migrate")
    assert job["spec"]["template"]["spec"]["restartPolicy"] in {"Never", "OnFailure"}
    assert job["spec"]["backoffLimit"] >= 1


def test_k8s_containers_are_non_root_with_resources():
    for obj in of_kind("Deployment") + of_kind("Job"):
        pod = obj["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] != 0
        for container in containers(obj):
            assert container["securityContext"]["allowPrivilegeEscalation"] is False
            assert container["resources"]["requests"], container["name"]


def test_k8s_env_names_are_read_by_the_code():
    (config,) = of_kind("ConfigMap")
    (secret,) = of_kind("Secret")
    assert_env_names_known(config["data"], "the ConfigMap")
    assert_env_names_known(secret["stringData"], "the Secret")
    assert set(SECRET_SETTINGS) <= set(secret["stringData"])
    assert not set(SECRET_SETTINGS) & set(config["data"]), "secrets belong in the Secret"
    names = {config["metadata"]["name"], secret["metadata"]["name"]}
    for obj in of_kind("Deployment") + of_kind("Job"):
        for container in containers(obj):
            assert_env_names_known([env["name"] for env in container.get("env", [])], obj["kind"])
            refs = {
                (source.get("configMapRef") or source.get("secretRef"))["name"]
                for source in container["envFrom"]
            }
            assert refs == names, container["name"]


def test_k8s_environment_passes_the_production_checks():
    env = config_env()
    # The Secret ships placeholders that production refuses, so forgetting to replace them
    # stops the pods instead of running with a known key.
    problems = production_problems(
        env=env, debug=False, database_engine="django.db.backends.postgresql"
    )
    assert "SECRET_KEY is weak: use at least 50 random characters" in problems
    assert any("SECRETS_ENCRYPTION_KEY key 1 is not a Fernet key" in p for p in problems)
    assert_production_ready(env | FILLED_SECRETS, "ConfigMap + Secret")


# --- systemd -------------------------------------------------------------------------------
UNITS = {
    "gin-web.service": "web",
    "gin-worker.service": "worker",
    "gin-beat.service": "beat",
    "gin-migrate.service": "migrate",
}
HARDENING = ("NoNewPrivileges", "ProtectSystem", "PrivateTmp", "ProtectHome", "PrivateDevices")


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read_string((SYSTEMD / name).read_text())
    return parser


def test_systemd_has_the_four_units():
    assert {path.name for path in SYSTEMD.glob("*.service")} == set(UNITS)


@pytest.mark.parametrize("name", sorted(UNITS))
def test_systemd_unit_runs_a_documented_command_hardened(name):
    service = unit(name)["Service"]
    assert normalize(service["ExecStart"]) == COMMANDS[UNITS[name]]
    assert service["EnvironmentFile"] == "/etc/gin-platform/env"
    assert service["Restart"] == "on-failure"
    assert service["User"] != "root"
    for option in HARDENING:
        assert service[option] in {"yes", "true", "strict"}, option
    assert service["ProtectSystem"] == "strict"


def test_systemd_migrate_is_a_oneshot_started_by_hand():
    parser = unit("gin-migrate.service")
    assert parser["Service"]["Type"] == "oneshot"
    assert not parser.has_section("Install")


def test_systemd_env_example_names_are_read_by_the_code():
    example = env_file(SYSTEMD / "env.example")
    assert_env_names_known(example, "deploy/systemd/env.example")
    assert_production_ready({**example, **FILLED_SECRETS}, "systemd env.example")


# --- Dockerfile ----------------------------------------------------------------------------
def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    instructions, pending = [], ""
    for raw in (DEPLOY / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, rest = (pending + line).partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
        pending = ""
    return instructions


def final_stage() -> list[tuple[str, str]]:
    instructions = dockerfile()
    last_from = max(i for i, (keyword, _) in enumerate(instructions) if keyword == "FROM")
    return instructions[last_from:]


def test_dockerfile_is_multi_stage_on_python_311_slim():
    instructions = dockerfile()
    args = dict(
        rest.split("=", 1) for keyword, rest in instructions if keyword == "ARG" and "=" in rest
    )
    bases = [rest.split()[0] for keyword, rest in instructions if keyword == "FROM"]
    assert len(bases) >= 2
    for base in bases:
        image = re.sub(r"\$\{(\w+)\}", lambda match: args[match[1]], base)
        assert image.startswith("python:3.11-slim"), image


def test_dockerfile_installs_the_hashed_lock_and_collects_static():
    runs = " ".join(rest for keyword, rest in dockerfile() if keyword == "RUN")
    assert re.search(r"pip install --require-hashes\b.* -r \S*base\.lock", runs)
    assert "collectstatic" in runs and "SECRET_KEY=" in runs


def test_dockerfile_collects_static_under_settings_production_accepts():
    """collectstatic runs with GIN_ENV=production at build time: its throwaway values must
    pass the production start-up checks, or the build fails."""
    (run,) = [
        rest for keyword, rest in dockerfile() if keyword == "RUN" and "collectstatic" in rest
    ]
    env = dict(re.findall(r"\b([A-Z][A-Z0-9_]*)=(\S+)", run))
    assert_production_ready(env, "the Dockerfile's collectstatic step")


def test_dockerfile_runs_gunicorn_as_non_root_with_a_healthcheck():
    stage = final_stage()
    users = [rest for keyword, rest in stage if keyword == "USER"]
    assert users and users[-1].split(":")[0] not in {"root", "0"}
    (cmd,) = [rest for keyword, rest in stage if keyword in {"CMD", "ENTRYPOINT"}]
    argv = yaml.safe_load(cmd)  # exec form: a JSON array
    assert normalize(argv) == COMMANDS["web"]
    (healthcheck,) = [rest for keyword, rest in stage if keyword == "HEALTHCHECK"]
    assert "deploy/healthcheck.py" in healthcheck
    assert runpy.run_path(str(DEPLOY / "healthcheck.py"))["HEALTH_PATH"] == HEALTH_PATH


def test_dockerfile_env_names_are_read_by_the_code():
    names = []
    for keyword, rest in final_stage():
        if keyword == "ENV":
            names += re.findall(r"(\w+)=", rest)
    assert_env_names_known(set(names) - {"PATH"}, "deploy/Dockerfile")


def test_docker_build_context_keeps_what_the_image_needs():
    patterns = [
        line.strip()
        for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    needed = [
        "manage.py",
        "gin_platform/project/settings.py",
        "requirements/base.lock",
        "deploy/gunicorn.conf.py",
        "deploy/healthcheck.py",
    ]
    for path in needed:
        assert (ROOT / path).exists(), path
        prefixes = [path] + [str(parent) for parent in Path(path).parents if str(parent) != "."]
        hits = [p for p in patterns for prefix in prefixes if fnmatch.fnmatch(prefix, p)]
        assert not hits, f"{path} is excluded from the image by {hits}"


# --- gunicorn config and the health check script --------------------------------------------
def gunicorn_conf(monkeypatch, **env: str | None) -> dict:
    """deploy/gunicorn.conf.py evaluated under exactly these GUNICORN_*/ASGI_*/REDIS_URL."""
    for name in (
        "GUNICORN_WORKERS",
        "GUNICORN_BIND",
        "GUNICORN_CONTROL_SOCKET",
        "GUNICORN_GRACEFUL_TIMEOUT",
        "ASGI_THREADS",
        "REDIS_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))


def test_gunicorn_conf_runs_uvicorn_workers_as_many_as_the_channel_layer_allows(monkeypatch):
    config = gunicorn_conf(monkeypatch, REDIS_URL="redis://redis:6379/0")
    # ASGI: one event loop per process holds the sockets; Django's views run in threads.
    assert config["worker_class"] == "gin_platform.project.web_server.Worker"
    assert "threads" not in config  # meaningless for uvicorn workers
    assert isinstance(config["workers"], int) and config["workers"] >= 2
    assert config["workers"] == max(config["available_cpus"](), 2)
    assert config["bind"] == "0.0.0.0:8000"
    assert "control_socket" not in config
    # Without Redis the channel layer is in memory: one process, or pushes get lost.
    assert gunicorn_conf(monkeypatch)["workers"] == 1

    config = gunicorn_conf(
        monkeypatch,
        REDIS_URL="redis://redis:6379/0",
        GUNICORN_WORKERS="7",
        GUNICORN_CONTROL_SOCKET="/run/gin-web/gunicorn.ctl",
    )
    assert config["workers"] == 7
    assert config["control_socket"] == "/run/gin-web/gunicorn.ctl"


def test_gunicorn_conf_caps_django_requests_per_process_with_asgi_threads(monkeypatch):
    assert gunicorn_conf(monkeypatch)["asgi_threads"] == 32
    assert gunicorn_conf(monkeypatch, ASGI_THREADS="8")["asgi_threads"] == 8


def test_graceful_timeout_lets_a_long_poll_finish(monkeypatch):
    """Stopping a worker closes its sockets at once (1012: reconnect) and waits for HTTP
    requests; a long poll holds one for up to LONG_POLL_MAX_SECONDS."""
    config = gunicorn_conf(monkeypatch)
    assert config["graceful_timeout"] > LONG_POLL_MAX_SECONDS
    # The worker heartbeat comes from the event loop, which never waits on a view.
    assert config["timeout"] >= 30


def seconds(value: str | int) -> int:
    """Seconds in a compose duration ("45s", "1m30s"), a systemd time span or a number."""
    if isinstance(value, int):
        return value
    parts = re.fullmatch(r"(?:(\d+)m)?\s*(?:(\d+)s?)?", value.strip())
    assert parts and any(parts.groups()), value
    return int(parts[1] or 0) * 60 + int(parts[2] or 0)


def test_every_supervisor_waits_for_the_graceful_stop(monkeypatch):
    """compose, Kubernetes and systemd kill web only after gunicorn's graceful timeout (and,
    in Kubernetes, the preStop pause before it)."""
    graceful = gunicorn_conf(monkeypatch)["graceful_timeout"]
    assert seconds(compose()["services"]["web"]["stop_grace_period"]) > graceful
    web = workload("Deployment", "web")
    pod = web["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    assert pod["terminationGracePeriodSeconds"] > int(pre_stop[1]) + graceful
    assert seconds(unit("gin-web.service")["Service"]["TimeoutStopSec"]) > graceful


def test_web_runs_the_settings_asgi_application_everywhere():
    """compose, Kubernetes, systemd and the image start the same ASGI application, the one
    the settings name (HTTP and the WebSockets under /ws/v1/)."""
    application = settings.ASGI_APPLICATION.replace(".application", ":application")
    assert application in COMMANDS["web"]
    web = workload("Deployment", "web")
    (container,) = web["spec"]["template"]["spec"]["containers"]
    (cmd,) = [rest for keyword, rest in final_stage() if keyword == "CMD"]
    commands = {
        "compose": normalize(compose()["services"]["web"]["command"]),
        "k8s": normalize(container["command"] + container.get("args", [])),
        "systemd": normalize(unit("gin-web.service")["Service"]["ExecStart"]),
        "image": normalize(yaml.safe_load(cmd)),
    }
    assert set(commands.values()) == {COMMANDS["web"]}, commands


def test_ingress_routes_sockets_to_web_with_timeouts_above_the_heartbeat():
    (ingress,) = of_kind("Ingress")
    (service,) = of_kind("Service")
    annotations = ingress["metadata"]["annotations"]
    for name in ("proxy-read-timeout", "proxy-send-timeout"):
        timeout = int(annotations[f"nginx.ingress.kubernetes.io/{name}"])
        # A quiet socket hears a ping every heartbeat; a long poll answers within its limit.
        assert timeout > 2 * settings.REALTIME_HEARTBEAT_SECONDS, name
        assert timeout > LONG_POLL_MAX_SECONDS, name
    allowed_hosts = config_env()["ALLOWED_HOSTS"].split(",")
    for rule in ingress["spec"]["rules"]:
        assert validate_host(rule["host"], allowed_hosts), rule["host"]
        (path,) = rule["http"]["paths"]
        assert (path["path"], path["pathType"]) == ("/", "Prefix")  # /api/, /ws/, /play/
        backend = path["backend"]["service"]
        assert backend["name"] == service["metadata"]["name"]
        assert backend["port"]["name"] in {port["name"] for port in service["spec"]["ports"]}
    tls_hosts = {host for tls in ingress["spec"]["tls"] for host in tls["hosts"]}
    assert tls_hosts == {rule["host"] for rule in ingress["spec"]["rules"]}


def test_docs_show_a_proxy_that_passes_websockets():
    """docs/deploy.md's nginx example upgrades the connection and waits longer than the
    heartbeat and the long poll."""
    (block,) = [b for b in fenced_blocks(DOCS.read_text()) if "proxy_pass" in " ".join(b)]
    text = "\n".join(block)
    assert "proxy_http_version 1.1;" in text
    assert re.search(r"proxy_set_header Upgrade \$http_upgrade;", text)
    assert re.search(r"proxy_set_header Connection \$connection_upgrade;", text)
    assert re.search(r"map \$http_upgrade \$connection_upgrade", text)
    for directive in ("proxy_read_timeout", "proxy_send_timeout"):
        (value,) = re.findall(rf"{directive} (\w+);", text)
        assert seconds(value) > 2 * settings.REALTIME_HEARTBEAT_SECONDS, directive
        assert seconds(value) > LONG_POLL_MAX_SECONDS, directive


def test_healthcheck_names_an_allowed_host_and_the_bound_port():
    script = runpy.run_path(str(DEPLOY / "healthcheck.py"))
    host_header, target = script["host_header"], script["target"]
    for allowed in ("api.example.com,gin-web", ".example.com", "*,gin-web", "*", ""):
        host = host_header({"ALLOWED_HOSTS": allowed})
        assert validate_host(host, allowed.split(",")) or not allowed, (allowed, host)
    assert target({}) == ("127.0.0.1", 8000)
    assert target({"GUNICORN_BIND": "0.0.0.0:9000"}) == ("127.0.0.1", 9000)
    assert target({"GUNICORN_BIND": "127.0.0.1:8001"}) == ("127.0.0.1", 8001)


@pytest.mark.parametrize(("status", "exit_code"), [(200, 0), (503, 1), (400, 1)])
def test_healthcheck_exit_code_follows_the_endpoint(monkeypatch, status, exit_code):
    seen = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen["path"], seen["host"] = self.path, self.headers["Host"]
            self.send_response(status)
            self.end_headers()
            self.wfile.write(b'{"status": "ok"}')

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("GUNICORN_BIND", f"0.0.0.0:{server.server_port}")
        monkeypatch.setenv("ALLOWED_HOSTS", ".gin.example.com")
        main = runpy.run_path(str(DEPLOY / "healthcheck.py"))["main"]
        assert main() == exit_code
    finally:
        server.shutdown()
        server.server_close()
    assert seen == {"path": HEALTH_PATH, "host": "gin.example.com"}
