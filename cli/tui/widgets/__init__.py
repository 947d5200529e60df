"""The app's widgets, one per file: conversation, messages, tool cards, editor, command menu, queue, footer."""
