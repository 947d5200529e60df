"""Which proxy the environment names for a provider's host (`providers._connect`), as curl and httpx read it."""

from __future__ import annotations

import pytest

from prime_jupyter.ai.providers._connect import Origin, proxy_for, ssl_context

HTTPS = Origin("https", "api.anthropic.com", 443)
PLAIN = Origin("http", "localhost", 11434)


def test_the_proxy_of_the_scheme_and_all_proxy_otherwise() -> None:
    found = proxy_for(HTTPS, {"HTTPS_PROXY": "proxy.corp:3128", "HTTP_PROXY": "http://other:1"})
    assert found is not None and found.origin == Origin("http", "proxy.corp", 3128) and found.authorization is None
    every = proxy_for(PLAIN, {"ALL_PROXY": "http://all:8080"})
    assert every is not None and every.origin.host == "all"
    assert proxy_for(HTTPS, {}) is None


def test_the_lower_case_name_wins() -> None:
    found = proxy_for(HTTPS, {"https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2"})
    assert found is not None and found.origin.host == "lower"


@pytest.mark.parametrize(
    ("no_proxy", "bypassed"),
    [
        ("*", True),
        ("anthropic.com", True),
        (".anthropic.com", True),
        ("localhost, api.anthropic.com:443", True),
        ("thropic.com", False),
        ("openai.com,example.org", False),
    ],
)
def test_no_proxy_names_hosts_and_domains(no_proxy: str, bypassed: bool) -> None:
    found = proxy_for(HTTPS, {"HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": no_proxy})
    assert (found is None) is bypassed


def test_proxy_credentials_become_basic_auth_and_socks_is_refused() -> None:
    found = proxy_for(HTTPS, {"HTTPS_PROXY": "http://user:p%3Ass@proxy:3128"})
    assert found is not None and found.authorization == "Basic dXNlcjpwOnNz"  # user:p:ss
    with pytest.raises(ValueError, match="SOCKS proxy"):
        proxy_for(HTTPS, {"ALL_PROXY": "socks5://proxy:1080"})


def test_tls_verifies_certificates_and_host_names() -> None:
    import ssl

    context = ssl_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context is ssl_context()
