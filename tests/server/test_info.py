"""`GET info`, kernel readiness, and what importing the extension costs (no SDK, no textual)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from serverkit import PrimeClient

from prime_jupyter._version import __version__
from prime_jupyter.protocol.version import CAP_CONNECTION, CAPABILITIES, PROTOCOL_VERSION, SCHEMA_REVISION
from prime_jupyter.server.routes import has_connection_routes


async def test_info_reports_versions_capabilities_and_the_kernel(prime: PrimeClient) -> None:
    info = await prime.get("info")
    assert info["version"] == __version__
    assert (info["protocolVersion"], info["schemaRevision"]) == (PROTOCOL_VERSION, SCHEMA_REVISION)
    expected = [c for c in CAPABILITIES if c != CAP_CONNECTION or has_connection_routes()]
    assert info["capabilities"] == expected
    assert info["kernel"] == {"ready": True}


@pytest.mark.prime(kernel_name="no-such-kernel")
async def test_a_missing_kernel_spec_is_reported(prime: PrimeClient) -> None:
    kernel = (await prime.get("info"))["kernel"]
    assert kernel["ready"] is False and "no-such-kernel" in kernel["reason"]


def test_importing_the_extension_stays_light() -> None:
    probe = (
        "import sys, json\n"
        "from prime_jupyter import _jupyter_server_extension_points as points\n"
        "points()\n"
        "import prime_jupyter.server.app, prime_jupyter.server.routes\n"
        "heavy = ('anthropic', 'openai', 'textual', 'httpx', 'ipykernel', 'IPython', 'prime_jupyter.kernel.managed')\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == []
