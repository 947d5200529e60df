"""Everything that speaks the Jupyter messaging protocol: `KernelOps`, its implementations, output budgeting."""
