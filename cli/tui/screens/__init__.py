"""The app's screens, one per file: the chat, the model and session pickers, the question dialog, help."""
