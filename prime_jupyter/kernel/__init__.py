"""Everything that speaks the Jupyter messaging protocol: `KernelOps`, its implementations, output budgeting.

Importing this package is cheap: jupyter_client is imported when a local kernel is first launched, and
jupyter_server only for typing. Modules:

    ops          the seam: KernelOps, KernelLauncher, OutputMessage, ExecuteReply, KernelError tree
    managed      KernelOps over a jupyter_client multi-kernel manager
    gateway      GatewayChannels: a remote kernel's channels over a gateway's websocket (--gateway-url)
    local        LocalKernelLauncher: a private AsyncMultiKernelManager (no server)
    server       ServerKernelLauncher: the Jupyter server's own kernel manager
    inprocess    InProcessLauncher: the running IPython shell (%%prime)
    launchers    shared_local_launcher(): the process's own kernels (a session given no launcher)
    provisioner  IpythonKernelProvisioner: one session's kernel (start once, share, replace, dispose)
    execution    run_cell: time limit, abort, dead kernels
    outputs      iopub messages folded into nbformat outputs
    budget       the model's view: capped text parts, images
    images       which image the model gets, at what size
    helpers      kernel-side: edit, attach_image, %%bash, image previews (sent as source)
    bootstrap    the cell that loads the kernel-side modules
    reaper       last-resort kill of our kernel processes at exit
"""

from prime_jupyter.kernel.execution import CellRun, RunStatus, run_cell
from prime_jupyter.kernel.inprocess import InProcessKernelOps, InProcessLauncher
from prime_jupyter.kernel.launchers import shared_local_launcher
from prime_jupyter.kernel.local import LocalKernelLauncher
from prime_jupyter.kernel.managed import ManagedKernelOps
from prime_jupyter.kernel.ops import (
    ExecuteReply,
    KernelDiedError,
    KernelError,
    KernelInfo,
    KernelLauncher,
    KernelOps,
    OutputMessage,
    OutputSink,
)
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner, ProgressCallback
from prime_jupyter.kernel.reaper import reap_all
from prime_jupyter.kernel.server import ServerKernelLauncher

__all__ = [
    "CellRun",
    "ExecuteReply",
    "InProcessKernelOps",
    "InProcessLauncher",
    "IpythonKernelProvisioner",
    "KernelDiedError",
    "KernelError",
    "KernelInfo",
    "KernelLauncher",
    "KernelOps",
    "LocalKernelLauncher",
    "ManagedKernelOps",
    "OutputMessage",
    "OutputSink",
    "ProgressCallback",
    "RunStatus",
    "ServerKernelLauncher",
    "reap_all",
    "run_cell",
    "shared_local_launcher",
]
