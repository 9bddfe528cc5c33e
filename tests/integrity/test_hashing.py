"""Identifiers as keyed hashes (docs/integrity.md "Hashing"): the same identifier gives
the same digest whoever sent it, a different kind or secret a different one, and nothing of
the value shows; addresses are compared as a household sees them."""

from __future__ import annotations

import re

from django.test import override_settings

from integrity.hashing import identifier_digest, normalized_identifier


def test_the_same_identifier_is_the_same_digest_and_shows_nothing_of_itself():
    one = identifier_digest(kind="device", value="app-install-7f3c2a")
    assert one == identifier_digest(kind="device", value="  app-install-7f3c2a ")
    assert one is not None and re.fullmatch(r"[0-9a-f]{64}", one)
    assert "7f3c2a" not in one
    assert one != identifier_digest(kind="device", value="app-install-7f3c2b")


def test_the_kind_is_part_of_the_message():
    assert identifier_digest(kind="device", value="abc-123") != identifier_digest(
        kind="payment_instrument", value="abc-123"
    )


def test_another_secret_gives_another_digest():
    before = identifier_digest(kind="payment_instrument", value="psp-fp-1")
    with override_settings(INTEGRITY_LINK_SECRET="another-network-secret"):
        assert identifier_digest(kind="payment_instrument", value="psp-fp-1") != before


def test_ipv6_addresses_of_one_household_share_their_64():
    home = identifier_digest(kind="address", value="2a02:c7f:1234:5678::1")
    assert home == identifier_digest(kind="address", value="2a02:c7f:1234:5678:ffff:1:2:3")
    assert home != identifier_digest(kind="address", value="2a02:c7f:1234:5679::1")


def test_an_ipv4_mapped_address_is_its_ipv4_address():
    assert identifier_digest(kind="address", value="::ffff:81.2.69.160") == identifier_digest(
        kind="address", value="81.2.69.160"
    )


def test_private_loopback_and_malformed_addresses_link_nobody():
    for value in ("10.0.0.7", "192.168.1.20", "127.0.0.1", "::1", "fe80::1", "not-an-ip", ""):
        assert normalized_identifier(kind="address", value=value) is None, value
        assert identifier_digest(kind="address", value=value) is None, value
    assert identifier_digest(kind="device", value="   ") is None


def test_without_a_secret_of_its_own_the_secret_is_derived_from_the_secret_key():
    with override_settings(INTEGRITY_LINK_SECRET="", SECRET_KEY="one-deployment-key"):
        derived = identifier_digest(kind="device", value="d-1")
        assert derived == identifier_digest(kind="device", value="d-1")
    with override_settings(INTEGRITY_LINK_SECRET="", SECRET_KEY="another-deployment-key"):
        assert identifier_digest(kind="device", value="d-1") != derived
