"""The provider form's routes: `chat/providers` (read, save) and `chat/providers/test` (one small request).

The work is `runtime.provider_setup`'s; these handlers add Jupyter's authentication, the administrator's
switch (`c.PrimeApp.provider_setup`), and read and write the files off the server's event loop. A saved key is
never answered back.
"""

from __future__ import annotations

import asyncio

from jupyter_server.auth.decorator import authorized
from tornado import web

from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.common import ModelRef
from prime_jupyter.protocol.providers import ProviderSetupRequest, ProvidersResponse
from prime_jupyter.runtime.factory import new_session_model
from prime_jupyter.runtime.provider_setup import provider_statuses, save_provider_setup, test_provider_setup
from prime_jupyter.server.http.base import ApiError, PrimeHandler

__all__ = ["ChatProviderTestHandler", "ChatProvidersHandler"]

TURNED_OFF = (
    "Setting up providers from JupyterLab is turned off on this server (c.PrimeApp.provider_setup = False): "
    "ask its administrator to configure one."
)


class ChatProvidersHandler(PrimeHandler):
    """`GET`: the providers, whether each has a key and where it comes from; `POST`: save the form."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.reply(await asyncio.to_thread(self._providers))

    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(ProviderSetupRequest)
        if not self.bridge.config.provider_setup:
            raise ApiError(403, TURNED_OFF)
        await asyncio.to_thread(save_provider_setup, self.bridge.config.agent_dir, request)
        self.reply(await asyncio.to_thread(self._providers))

    def _providers(self) -> ProvidersResponse:
        config = self.bridge.config
        try:
            model, _level = new_session_model(
                config.agent_dir, config.root_dir, config.default_model, config.allowed_models
            )
            current: ModelRef | None = ModelRef(provider=model.provider, id=model.id)
        except PrimeError:  # a default that does not resolve: the form names none
            current = None
        return ProvidersResponse(
            providers=provider_statuses(config.agent_dir),
            default_model=current,
            editable=config.provider_setup,
            agent_dir=str(config.agent_dir),
        )


class ChatProviderTestHandler(PrimeHandler):
    """`POST`: one small request with the form's values; the answer or the provider's exact error."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parse(ProviderSetupRequest)
        if not self.bridge.config.provider_setup:
            raise ApiError(403, TURNED_OFF)
        self.reply(await test_provider_setup(self.bridge.config.agent_dir, request))
