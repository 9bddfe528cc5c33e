"""What keeps the request path cheap: statements compiled once per process, credentials
remembered while an epoch holds, the Redis cache client, the one round trip that gates
every authenticated request, and the garbage collector kept off what a process loads once
(docs/benchmarks.md has the figures)."""
