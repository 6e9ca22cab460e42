"""The operator's LLM keys go only to the operator's endpoints."""

from __future__ import annotations

import socket

import pytest

from rse_core.errors import LLMEndpointError, LLMError
from rse_core.llm.answers import LLMProvider, build_messages
from rse_core.llm.endpoints import KeySource, resolve_endpoint, shown_operator_url, url_allowed
from tests.support.fake_llm import FakeLLM

OPERATOR_KEY = "sk-OPERATOR-secret-1234567890"
USER_KEY = "sk-user-own-key-0987654321"
LOCAL = {"RSE_ALLOWED_PRIVATE_HOSTS": "127.0.0.1, localhost"}  # the fakes listen on 127.0.0.1
MESSAGES = build_messages("What is the probation period?", "[S1]\nThe probation period is six months.")


@pytest.fixture
def fake():
    with FakeLLM() as server:
        yield server


def test_a_typed_url_without_a_key_never_gets_the_operators_key(fake):
    environ = {"OPENAI_API_KEY": OPERATOR_KEY, **LOCAL}
    with pytest.raises(LLMEndpointError, match="Give your own API key for this endpoint") as caught:
        resolve_endpoint("openai", f"{fake.url}/v1", "", environ=environ)
    assert OPERATOR_KEY not in str(caught.value)
    assert fake.requests == []  # refused before anything was sent
    for secrets in ({"OPENAI_API_KEY": OPERATOR_KEY}, {}):  # a key in secrets.toml counts too
        with pytest.raises(LLMEndpointError):
            resolve_endpoint("openai", f"{fake.url}/v1", None, environ=LOCAL if secrets else environ, secrets=secrets)


def test_a_typed_url_with_the_users_key_sends_that_key(fake):
    endpoint = resolve_endpoint(
        "openai", f"{fake.url}/v1/", USER_KEY, environ={"OPENAI_API_KEY": OPERATOR_KEY, **LOCAL}
    )
    assert endpoint.key_source is KeySource.TYPED and not endpoint.operator
    endpoint.client(endpoint.settings("fake-model", timeout=5.0)).answer(MESSAGES)
    assert [request["authorization"] for request in fake.requests] == [f"Bearer {USER_KEY}"]
    assert USER_KEY not in repr(endpoint) and fake.url not in repr(endpoint)


def test_the_operators_endpoint_gets_the_operators_key(fake):
    environ = {"OPENAI_API_KEY": OPERATOR_KEY, "OPENAI_BASE_URL": f"{fake.url}/v1"}
    for typed_url in ("", f"{fake.url}/v1", f"{fake.url.upper().replace('HTTP', 'http')}/v1/"):
        endpoint = resolve_endpoint("openai", typed_url, "", environ=environ)
        assert endpoint.operator and endpoint.key_source is KeySource.OPERATOR
    endpoint.client(endpoint.settings("fake-model", timeout=5.0)).answer(MESSAGES)
    assert fake.requests[-1]["authorization"] == f"Bearer {OPERATOR_KEY}"
    assert OPERATOR_KEY not in repr(endpoint)


def test_cohere_default_endpoint_and_a_typed_cohere_url():
    environ = {"CO_API_KEY": OPERATOR_KEY, **LOCAL}
    endpoint = resolve_endpoint("cohere", "", None, environ=environ)
    assert endpoint.base_url == "https://api.cohere.com" and endpoint.api_key == OPERATOR_KEY
    with pytest.raises(LLMEndpointError, match="own API key"):
        resolve_endpoint("cohere", "http://127.0.0.1:9/", None, environ=environ)
    with pytest.raises(LLMEndpointError, match="own API key"):  # Cohere always needs a key
        resolve_endpoint("cohere", "http://127.0.0.1:9/", None, environ=LOCAL)


def test_without_an_operator_key_a_local_server_needs_none(fake):
    endpoint = resolve_endpoint("openai", f"{fake.url}/v1", "", environ=LOCAL)
    assert endpoint.api_key is None and endpoint.key_source is KeySource.NONE
    endpoint.client(endpoint.settings("fake-model", timeout=5.0)).answer(MESSAGES)
    assert fake.requests[-1]["authorization"] == "Bearer no-key"


def test_user_endpoints_can_be_switched_off():
    environ = {"RSE_LLM_USER_ENDPOINTS": "0", "OPENAI_BASE_URL": "http://llm.internal:8000/v1"}
    with pytest.raises(LLMEndpointError, match="only sends questions to the LLM endpoint its operator configured"):
        resolve_endpoint("openai", "http://127.0.0.1:9/v1", USER_KEY, environ=environ)
    assert resolve_endpoint("openai", "", USER_KEY, environ=environ).base_url == "http://llm.internal:8000/v1"


def test_the_allowlist_matches_whole_path_segments():
    environ = {"RSE_LLM_ALLOWED_URLS": "https://api.example.com/v1, http://localhost:11434", **LOCAL}
    assert resolve_endpoint("openai", "https://API.example.com/v1/", USER_KEY, environ=environ).api_key == USER_KEY
    assert resolve_endpoint("openai", "http://localhost:11434/v1", USER_KEY, environ=environ).operator is False
    for url in (
        "https://api.example.com.evil.net/v1",
        "https://api.example.com@evil.net/v1",
        "https://api.example.com/v10",
        "http://localhost:11434evil",
        "https://user:pw@evil.net/v1",
    ):
        with pytest.raises(LLMEndpointError, match="RSE_LLM_ALLOWED_URLS") as caught:
            resolve_endpoint("openai", url, USER_KEY, environ=environ)
        assert "pw@" not in str(caught.value) and USER_KEY not in str(caught.value)
    # the operator's own endpoint needs no listing
    assert resolve_endpoint("openai", "", None, environ=environ).base_url == "https://api.openai.com/v1"
    assert not url_allowed("https://evil.net", ())


def test_settings_for_another_url_cannot_borrow_the_key():
    endpoint = resolve_endpoint("openai", "", None, environ={"OPENAI_API_KEY": OPERATOR_KEY})
    from rse_core.llm.answers import LLMSettings

    elsewhere = LLMSettings(provider=LLMProvider.OPENAI, model="m", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(LLMEndpointError) as caught:
        endpoint.client(elsewhere)
    assert OPERATOR_KEY not in str(caught.value)


def _resolve_to_loopback(monkeypatch, name: str) -> None:
    """``name`` resolves to 127.0.0.1, as a public-looking name pointed at the server itself would."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        return real("127.0.0.1" if host == name else host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize("provider", ["openai", "cohere"])
def test_a_typed_private_address_is_refused_before_anything_is_sent(fake, provider):
    typed = fake.url.replace("http://", "http://admin:HUNTER2@") + "/v1?api_key=QSECRET"
    with pytest.raises(LLMEndpointError) as caught:
        resolve_endpoint(provider, typed, USER_KEY, environ={})
    assert str(caught.value) == (
        "This address (127.0.0.1) is private (loopback); the server only contacts public addresses unless its "
        "operator allows this host (RSE_ALLOWED_PRIVATE_HOSTS)."
    )
    assert fake.requests == []


@pytest.mark.parametrize("provider", ["openai", "cohere"])
def test_a_public_looking_name_resolving_to_loopback_gets_no_request(fake, monkeypatch, provider):
    _resolve_to_loopback(monkeypatch, "llm.example.com")
    typed = fake.url.replace("127.0.0.1", "admin:HUNTER2@llm.example.com")
    endpoint = resolve_endpoint(provider, f"{typed}/v1", USER_KEY, environ={})  # no lookup while typing
    with pytest.raises(LLMEndpointError, match=r"\(llm.example.com\) is private \(loopback\)") as caught:
        endpoint.client(endpoint.settings("fake-model", timeout=5.0, max_retries=2)).answer(MESSAGES)
    assert "HUNTER2" not in str(caught.value) and USER_KEY not in str(caught.value)
    assert fake.requests == []  # nor a retry: a refusal is final


def test_the_same_name_is_answered_when_the_operator_allows_it(fake, monkeypatch):
    _resolve_to_loopback(monkeypatch, "llm.example.com")
    typed = fake.url.replace("127.0.0.1", "llm.example.com") + "/v1"
    environ = {"RSE_ALLOWED_PRIVATE_HOSTS": "llm.example.com"}
    endpoint = resolve_endpoint("openai", typed, USER_KEY, environ=environ)
    assert "probation" in endpoint.client(endpoint.settings("fake-model", timeout=5.0)).answer(MESSAGES)
    assert fake.request_count == 1


def test_the_operators_private_endpoint_works_and_its_shown_form_means_it(fake):
    configured = fake.url.replace("http://", "http://user:S3CRETPASS@") + "/v1"
    environ = {"OPENAI_BASE_URL": configured}  # private (127.0.0.1) and nothing allowed: the operator's own
    shown = shown_operator_url("openai", environ)
    assert shown == f"{fake.url}/v1"
    endpoint = resolve_endpoint("openai", shown, "", environ=environ)
    assert endpoint.operator and endpoint.base_url == configured and endpoint.address_policy is None
    assert "S3CRETPASS" not in endpoint.display_url and "S3CRETPASS" not in repr(endpoint)
    assert "probation" in endpoint.client(endpoint.settings("fake-model", timeout=5.0)).answer(MESSAGES)
    assert fake.request_count == 1
    assert shown_operator_url("openai", {}) == ""


def test_a_server_echoing_the_urls_secrets_has_them_scrubbed(fake):
    """The fake answers 404 naming the path it got, query and all (the SDK puts a base URL's query
    there): the message passed on keeps neither the query's values nor the password."""
    configured = fake.url.replace("http://", "http://user:S3CRETPASS@") + "/v1?api_key=QSECRET"
    endpoint = resolve_endpoint("openai", "", "", environ={"OPENAI_BASE_URL": configured})
    with pytest.raises(LLMError, match="HTTP 404") as caught:
        endpoint.client(endpoint.settings("fake-model", timeout=5.0)).answer(MESSAGES)
    assert "QSECRET" not in str(caught.value) and "[api key]" in str(caught.value)
    assert fake.request_count == 1
