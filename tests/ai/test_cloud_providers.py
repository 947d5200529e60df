"""Models on Bedrock, Vertex AI and Azure (issue 25): requests addressed and signed by the SDKs' own platform
clients, against the scripted server's cloud routes (`testing/wire_cloud.py`), with fake credentials taken
from each platform's own credential chain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prime_jupyter.ai.events import ErrorEvent
from prime_jupyter.ai.models import CloudPlatform, Model
from prime_jupyter.ai.registry import ModelRegistry
from prime_jupyter.ai.stream import StreamOptions, stream
from prime_jupyter.ai.types import AssistantMessage, Context, UserMessage
from prime_jupyter.errors import ConfigError
from prime_jupyter.testing import HttpError, ScriptedLLMServer, ScriptedTurn, Text, ToolCall

CONTEXT = Context(system_prompt="be brief", messages=[UserMessage(content="hi")])
BEDROCK_ID = "anthropic.claude-sonnet-5-5-v1:0"


def _model(model_id: str, cloud: CloudPlatform, base_url: str, api: str = "anthropic-messages") -> Model:
    return Model(id=model_id, name=model_id, api=api, provider="cloud", base_url=base_url, cloud=cloud)  # type: ignore[arg-type]


async def _answer(model: Model, key: str = "none") -> AssistantMessage:
    return await stream(model, CONTEXT, StreamOptions(api_key=key, max_tokens=256)).result()


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """AWS's credential chain finds these in the environment (and no file of the machine's)."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDSCRIPTEDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "scripted/secret/key/EXAMPLEKEY")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))
    for name in ("AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.asyncio
async def test_bedrock_requests_are_signed_with_aws_signature_v4(llm: ScriptedLLMServer, aws: None) -> None:
    blocks = [Text(text="from "), Text(text="bedrock"), ToolCall(name="read", arguments={"path": "a.csv"})]
    llm.enqueue(ScriptedTurn(blocks=blocks))
    model = _model(BEDROCK_ID, CloudPlatform(platform="bedrock", region="eu-west-3"), llm.base_url)
    answer = await _answer(model)
    assert answer.stop_reason == "toolUse" and answer.text() == "from bedrock"
    assert [call.arguments for call in answer.tool_calls()] == [{"path": "a.csv"}]
    request = llm.requests[-1]
    assert request.path == f"/model/{BEDROCK_ID}/invoke-with-response-stream"
    signature = request.headers["authorization"]
    assert signature.startswith("AWS4-HMAC-SHA256 Credential=AKIDSCRIPTEDEXAMPLE/")
    assert "/eu-west-3/bedrock/aws4_request" in signature and "Signature=" in signature
    assert "x-amz-date" in request.headers and "scripted/secret" not in json.dumps(request.headers)
    assert isinstance(request.body, dict) and request.body["anthropic_version"]  # in the body, not a header
    assert "model" not in request.body and request.body["system"][0]["text"] == "be brief"


@pytest.mark.asyncio
async def test_a_bedrock_api_key_is_sent_instead_of_a_signature(llm: ScriptedLLMServer, aws: None) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    model = _model(BEDROCK_ID, CloudPlatform(platform="bedrock", region="us-east-1"), llm.base_url)
    assert (await _answer(model, key="bedrock-api-key-0123456789")).text() == "ok"
    assert llm.requests[-1].headers["authorization"] == "Bearer bedrock-api-key-0123456789"


@pytest.mark.asyncio
async def test_bedrock_refusals_fail_like_any_providers(llm: ScriptedLLMServer, aws: None) -> None:
    llm.enqueue(ScriptedTurn(blocks=[], fault=HttpError(status=429, message="Too many tokens, please wait")))
    model = _model(BEDROCK_ID, CloudPlatform(platform="bedrock", region="us-east-1"), llm.base_url)
    events = [event async for event in stream(model, CONTEXT, StreamOptions(api_key="none"))]
    failed = events[-1]
    assert isinstance(failed, ErrorEvent) and failed.retryable
    assert "Too many tokens, please wait" in (failed.error.error_message or "")


@pytest.mark.asyncio
async def test_vertex_takes_its_token_from_googles_credential_chain(
    llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    credentials = tmp_path / "service-account.json"  # its token_uri says where the chain gets tokens
    account = {
        "type": "service_account",
        "project_id": "scripted-project",
        "private_key_id": "scripted-key",
        "private_key": key.decode(),
        "client_email": "agent@scripted-project.iam.gserviceaccount.com",
        "client_id": "1",
        "token_uri": f"{llm.base_url}/_scripted/oauth2/token",
    }
    credentials.write_text(json.dumps(account))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(credentials))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="from vertex")]))
    cloud = CloudPlatform(platform="vertex", region="us-east5", project_id="scripted-project")
    answer = await _answer(_model("claude-sonnet-5-5", cloud, f"{llm.base_url}/v1"))
    assert answer.text() == "from vertex"
    request = llm.requests[-1]
    model = "/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict"
    assert request.path == f"/v1/projects/scripted-project/locations/us-east5{model}" and llm.tokens_issued == 1
    assert request.headers["authorization"] == "Bearer ya29.scripted-1"
    assert isinstance(request.body, dict) and request.body["anthropic_version"] and "model" not in request.body


@pytest.mark.asyncio
async def test_azure_addresses_the_deployment_and_sends_its_key(llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="from azure")]))
    cloud = CloudPlatform(platform="azure", api_version="2026-06-01")
    model = _model("my-deployment", cloud, llm.base_url, api="openai-completions")
    answer = await _answer(model, key="azure-key-0123456789")
    assert answer.text() == "from azure" and answer.stop_reason == "stop"
    request = llm.requests[-1]
    assert request.path == "/openai/deployments/my-deployment/chat/completions?api-version=2026-06-01"
    assert request.headers["api-key"] == "azure-key-0123456789" and "authorization" not in request.headers


def test_models_json_declares_cloud_providers_and_says_what_is_wrong(tmp_path: Path) -> None:
    providers = {
        "bedrock": {"api": "anthropic-messages", "cloud": {"platform": "bedrock", "region": "us-west-2"},
                    "models": [{"id": BEDROCK_ID, "input": ["text", "image"]}]},
        "azure": {"baseUrl": "https://res.openai.azure.com", "apiKey": "AZURE_OPENAI_API_KEY",
                  "cloud": {"platform": "azure", "apiVersion": "2026-06-01"}, "models": [{"id": "gpt-deploy"}]},
    }  # fmt: skip
    (tmp_path / "models.json").write_text(json.dumps({"providers": providers}))
    registry = ModelRegistry.load(tmp_path)
    bedrock = registry.resolve("bedrock", BEDROCK_ID)
    assert bedrock.cloud == CloudPlatform(platform="bedrock", region="us-west-2") and registry.has_key("bedrock")
    assert registry.resolve("azure", "gpt-deploy").cloud.api_version == "2026-06-01"  # type: ignore[union-attr]
    assert registry.resolve("bedrock", "another-model").cloud is not None  # an unknown id keeps the platform
    wrong = {"api": "openai-completions", "cloud": {"platform": "vertex"}, "models": [{"id": "m"}]}
    (tmp_path / "models.json").write_text(json.dumps({"providers": {"v": wrong}}))
    with pytest.raises(ConfigError, match=r'providers\.v: a provider on vertex speaks "api": "anthropic-messages"'):
        ModelRegistry.load(tmp_path)
    (tmp_path / "models.json").write_text(json.dumps({"providers": {"a": {"cloud": {"platform": "azure"}}}}))
    with pytest.raises(ConfigError, match='Azure needs "baseUrl"'):
        ModelRegistry.load(tmp_path)
