/**
 * The composer's `/` menu: the commands a prompt can name here (prompt templates, skills, extension
 * commands, and the session's own `/mcp` and `/reload`), read from the server's one registry
 * (`GET chat/commands`) and filtered as the name is typed. Arrow keys move, Tab takes the highlighted one
 * (so does Enter, unless the name typed is already a command's: then Enter sends it), Escape closes.
 */
import type { CommandEntry } from "../protocol";
import { h } from "./dom";

/** The built-in commands a session answers itself when they arrive as a prompt (`AgentSession`). */
const PROMPT_BUILTINS: ReadonlySet<string> = new Set(["mcp", "reload"]);
const TYPING_A_NAME = /^\/(\S*)$/;

export class CommandMenu {
  readonly node = h("div", "jp-PrimeCommands");
  private commands: Promise<CommandEntry[]> | null = null;
  private prefix: string | null = null;
  private shown: CommandEntry[] = [];
  private active = 0;

  constructor(
    private readonly load: () => Promise<CommandEntry[]>,
    private readonly onPick: (text: string) => void,
  ) {
    this.node.hidden = true;
    this.node.setAttribute("role", "listbox");
    this.node.setAttribute("aria-label", "Commands");
  }

  get isOpen(): boolean {
    return !this.node.hidden;
  }

  /** Follow the prompt: open while it is `/` and part of a name (no space yet), else closed. */
  update(text: string): void {
    const typed = TYPING_A_NAME.exec(text);
    this.prefix = typed ? typed[1] : null;
    if (this.prefix === null) {
      this.close();
      return;
    }
    this.commands ??= this.load().then(
      (all) =>
        all.filter(
          (c) => c.source !== "builtin" || PROMPT_BUILTINS.has(c.name),
        ),
      () => [],
    );
    void this.commands.then((commands) => this.filter(commands));
  }

  /** Read the commands again when the menu next opens (another session, after `/reload`). */
  forget(): void {
    this.commands = null;
  }

  close(): void {
    this.node.hidden = true;
    this.shown = [];
  }

  /** A key of the prompt's while the menu is open: true when the menu took it. */
  key(event: KeyboardEvent): boolean {
    if (!this.isOpen || event.isComposing) {
      return false;
    }
    const count = this.shown.length;
    switch (event.key) {
      case "ArrowDown":
        this.highlight((this.active + 1) % count);
        return true;
      case "ArrowUp":
        this.highlight((this.active + count - 1) % count);
        return true;
      case "Tab":
        this.pick(this.active);
        return true;
      case "Enter":
        if (
          event.shiftKey ||
          event.altKey ||
          this.shown.some((c) => c.name === this.prefix)
        ) {
          this.close(); // the name is whole: Enter sends it
          return false;
        }
        this.pick(this.active);
        return true;
      case "Escape":
        this.close();
        return true;
    }
    return false;
  }

  private filter(commands: CommandEntry[]): void {
    const prefix = this.prefix;
    if (prefix === null) {
      return; // the prompt moved on while the list was on its way
    }
    this.shown = commands
      .filter((c) => c.name.startsWith(prefix))
      .sort((a, b) => a.name.localeCompare(b.name));
    this.node.replaceChildren(
      ...this.shown.map((command, index) => this.item(command, index)),
    );
    this.node.hidden = this.shown.length === 0;
    this.highlight(0);
  }

  private item(command: CommandEntry, index: number): HTMLElement {
    const item = h("div", "jp-PrimeCommands-item");
    item.setAttribute("role", "option");
    item.dataset.name = command.name;
    item.append(
      h("span", "jp-PrimeCommands-name", `/${command.name}`),
      h("span", "jp-PrimeCommands-arguments", command.arguments ?? ""),
      h("span", "jp-PrimeCommands-description", command.description),
    );
    item.addEventListener("mousedown", (event) => {
      event.preventDefault(); // the prompt keeps the focus
      this.pick(index);
    });
    return item;
  }

  private highlight(index: number): void {
    this.active = index;
    [...this.node.children].forEach((node, i) => {
      node.classList.toggle("jp-mod-active", i === index);
      node.setAttribute("aria-selected", String(i === index));
    });
  }

  private pick(index: number): void {
    const command = this.shown[index];
    if (command) {
      this.close();
      this.onPick(`/${command.name} `);
    }
  }
}
