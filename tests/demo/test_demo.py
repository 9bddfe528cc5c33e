"""`make demo` end to end: a real server on the embedded database, three games over HTTP for
a transfer-wallet operator and one for a seamless-wallet operator."""

import os
import re

import pytest

from tests.processes import manage


@pytest.mark.slow
def test_the_demo_plays_and_settles_every_variant_and_both_wallet_models(tmp_path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"}
    } | {"GIN_VAR_DIR": str(tmp_path)}
    manage(env, "migrate", "--verbosity", "0", timeout=600)
    out = manage(env, "demo", timeout=600)
    for variant in ("(ftk,", "(match,", "(money,"):
        assert variant in out
    assert out.count("Settlement statement") == 4
    assert out.count("Game over:") == 4
    assert "final scores" in out  # the Money Play statement explains its bonuses
    assert "wallet alice:" in out and "->" in out
    # Seamless: two buy-in debits and the winner's payout credit reached the operator's
    # wallet, each once, and the platform wallets are empty again (transit only).
    seamless = out[out.index("Seamless wallet:") :]
    calls = re.findall(r"^  (debit|credit|rollback) +(\w+) +([\d.]+) EUR", seamless, re.M)
    assert sorted(kind for kind, _, _ in calls) == ["credit", "debit", "debit"]
    assert {(kind, amount) for kind, _, amount in calls} == {("debit", "5.00"), ("credit", "9.50")}
    assert seamless.count("seamless_debit 5.00, buy_in -5.00") == 2
    assert "settlement 9.50, seamless_credit -9.50" in seamless
    assert seamless.count("platform wallet 0.00 EUR") == 2
    assert "Server stopped. Demo finished" in out
