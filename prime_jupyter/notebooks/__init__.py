"""The user's notebooks as the agent works on them: cells and their edits (`cells`), the guard that never
lets an edit overwrite what the agent has not seen (`guard`), where a notebook lives (`store`: a file on
disk; `contents`: the Jupyter server's contents manager; `collab`: the shared document of a notebook open
in a collaborative Lab), the notebook's own kernel (`kernels`), what the model is shown (`render`), and
the one object the tools use (`workspace`).

No Jupyter server or IPython import here: the server passes its managers in as objects.
"""
