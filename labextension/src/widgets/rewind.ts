/**
 * "Rewind" on a user message: asked once in Lab's own dialog, then the server puts back the files and
 * notebooks the agent changed since the message and goes on from before it. Its report shows as a Lab
 * notification (kept open when something was not undone: a file changed since, code that ran).
 */
import { Dialog, Notification, showDialog } from "@jupyterlab/apputils";

import type { ChatController } from "../controller";
import { describe } from "../errortext";

export async function rewindTo(
  controller: ChatController,
  entryId: string,
): Promise<void> {
  const answer = await showDialog({
    title: "Rewind to before this message?",
    body:
      "Files and notebooks the agent changed since go back as they were (a file changed by someone else " +
      "since is kept). What code did (ipython, bash) and the kernel are not undone. The conversation goes on " +
      "from before the message; the old branch stays in the session tree.",
    buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: "Rewind" })],
  });
  if (!answer.button.accept) {
    return;
  }
  try {
    const result = await controller.rewind(entryId);
    if (!result) {
      return;
    }
    const kept = [
      result.conflicts,
      result.left,
      Object.keys(result.codeRuns ?? {}),
      result.kernel,
    ];
    const summary = result.summary || "Rewound.";
    if (kept.some((items) => items?.length)) {
      Notification.warning(summary, { autoClose: false });
    } else {
      Notification.success(summary, { autoClose: 6000 });
    }
  } catch (error: unknown) {
    Notification.error(`Prime could not rewind: ${describe(error)}`, {
      autoClose: false,
    });
  }
}
