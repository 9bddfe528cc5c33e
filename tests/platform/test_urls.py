"""Every route is reached by its own paths: no pattern shadows another, so the order of the
URL conf (hot routes first, gin_platform/project/urls.py) changes nothing but speed."""

import uuid

from django.urls import URLPattern, URLResolver, get_resolver, resolve

SAMPLES = {
    "str": "x7",
    "int": "7",
    "slug": "some-slug",
    "uuid": str(uuid.UUID(int=7)),
    "path": "a/b",
}


def routes(resolver: URLResolver, prefix: str = ""):
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from routes(entry, route)
        elif isinstance(entry, URLPattern):
            yield route, entry


def sample_path(route: str) -> str | None:
    if route.startswith("^") or "(?P" in route:  # a regex route (the admin's): not sampled
        return None
    path = route
    while "<" in path:
        start, end = path.index("<"), path.index(">")
        converter = path[start + 1 : end].split(":")[0] if ":" in path[start:end] else "str"
        path = path[:start] + SAMPLES[converter] + path[end + 1 :]
    return "/" + path


def test_each_route_resolves_to_its_own_view():
    checked = 0
    for route, pattern in routes(get_resolver()):
        path = sample_path(route)
        if path is None or route.startswith("admin/"):
            continue
        match = resolve(path)
        assert match.route == route, f"{path} reaches {match.route}, not {route}"
        assert match.func.__name__ == pattern.callback.__name__
        checked += 1
    assert checked > 80
