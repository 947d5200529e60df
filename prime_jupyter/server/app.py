"""`PrimeApp`: the Jupyter server extension (`c.PrimeApp.*`).

Importing it stays light (design.md D10): no provider SDK, no textual, no kernels.
"""

from __future__ import annotations

from jupyter_server.extension.application import ExtensionApp

from prime_jupyter.server.handlers import route_table

__all__ = ["PrimeApp"]


class PrimeApp(ExtensionApp):
    name = "prime"

    def initialize_handlers(self) -> None:
        self.handlers.extend(route_table())

    def initialize_settings(self) -> None:
        self.settings.update({"prime_app": self})

    async def stop_extension(self) -> None:
        return None
