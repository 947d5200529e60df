/* eslint-disable */
/**
 * GENERATED FILE, do not edit: the wire types of prime_jupyter's protocol.
 * Source: prime_jupyter/protocol/schema.json. Regenerate: npm run gen:protocol (in labextension/).
 */

export type PrimeJupyterWireProtocol =
  | ChatFrame
  | ChatMessage
  | LiveRun
  | Question
  | QuestionAnswer
  | ChatCommandRequest
  | ChatCommandResponse
  | Command
  | ConnectionOutbound
  | ChatNewRequest
  | ChatNewResponse
  | ChatRequest
  | ChatSessionResponse
  | CommandEntry
  | CommandsResponse
  | ErrorBody
  | ImageInput
  | InfoResponse
  | KernelStatus
  | ModelInfo
  | ModelRef
  | ModelsResponse
  | OkResponse
  | QuestionAnswerRequest
  | RenameSessionRequest
  | SeedMessage
  | SessionRequest
  | SessionSummary
  | SessionsResponse
  | SetModelRequest
  | ProviderSetupRequest
  | ProviderStatus
  | ProviderTestResponse
  | ProvidersResponse
  | AttachSnapshot
  | ConnectionState
  | KernelState
  | MessagesResult
  | NavigateResult
  | OkResult
  | PromptResult
  | QueueResult
  | ReplacedResult
  | RunningShell
  | SessionEventMessage
  | SessionReplacedMessage
  | SessionView
  | SessionsResult
  | AttachRequest
  | AttachResponse
  | CommandRequest
  | RunEndedMessage
  | RunOutbound
  | RunRequest
  | RunStartedMessage
  | WaitRequest
  | WaitResult
  | ShellRequest
  | ShellResult;
export type ChatFrame =
  | StartFrame
  | MessageStartFrame
  | TextDeltaFrame
  | ReasoningDeltaFrame
  | ToolInputDeltaFrame
  | ToolFrame
  | MessageEndFrame
  | UsageFrame
  | DoneFrame
  | ErrorFrame
  | RetryFrame
  | CompactionFrame
  | ShellFrame
  | QueueFrame
  | QuestionFrame
  | QuestionResolvedFrame
  | NotifyFrame
  | StatusFrame
  | WidgetFrame
  | SessionInfoFrame
  | ModelFrame
  | ThinkingLevelFrame
  | ResyncRequiredFrame
  | ConnectedFrame;
export type JsonValue = unknown | undefined;
export type QuestionAnswer = ConfirmAnswer | SelectAnswer | InputAnswer;
export type ChatCommandRequest =
  | ChatNameCommand
  | ChatCompactCommand
  | ChatForkCommand
  | ChatCloneCommand
  | ChatTreeCommand
  | ChatExportCommand
  | ChatContextCommand
  | ChatRewindCommand;
export type ChatCommandResponse =
  | NameResult
  | CompactResult
  | ForkResult
  | TreeResult
  | ExportResult
  | ContextResult
  | RewindResult;
export type Command =
  | PromptCommand
  | SteerCommand
  | FollowUpCommand
  | AbortCommand
  | ClearQueueCommand
  | SetModelCommand
  | SetThinkingLevelCommand
  | SetPermissionModeCommand
  | CompactCommand
  | NewSessionCommand
  | SwitchSessionCommand
  | ForkCommand
  | NavigateTreeCommand
  | ListSessionsCommand
  | RenameSessionCommand
  | DeleteSessionCommand
  | ExportCommand
  | AnswerQuestionCommand
  | GetStateCommand
  | GetMessagesCommand
  | GetSessionViewCommand
  | SetLabelCommand
  | CloneSessionCommand
  | InterruptKernelCommand
  | RestartKernelCommand
  | RewindCommand;
export type ConnectionOutbound =
  | SessionEventMessage
  | SessionReplacedMessage
  | ConnectedFrame
  | QuestionFrame
  | QuestionResolvedFrame
  | NotifyFrame
  | StatusFrame
  | WidgetFrame
  | ResyncRequiredFrame;
export type KernelState = 'stopped' | 'starting' | 'idle' | 'busy' | 'dead';
export type RunOutbound = RunStartedMessage | SessionEventMessage | RunEndedMessage;

export interface StartFrame {
  type: 'start';
  runId: string;
  sessionId: string;
}
/**
 * An assistant message starts streaming under a live id.
 */
export interface MessageStartFrame {
  type: 'message-start';
  messageId: string;
  role: 'assistant';
  createdAt?: number | null;
}
export interface TextDeltaFrame {
  type: 'text-delta';
  messageId: string;
  index: number;
  delta: string;
}
export interface ReasoningDeltaFrame {
  type: 'reasoning-delta';
  messageId: string;
  index: number;
  delta: string;
}
/**
 * A chunk of a tool call's argument JSON as the model writes it.
 */
export interface ToolInputDeltaFrame {
  type: 'tool-input-delta';
  messageId: string;
  index: number;
  toolCallId: string;
  delta: string;
}
/**
 * The whole current state of one tool part; replace the part with the same `toolCallId`.
 */
export interface ToolFrame {
  type: 'tool';
  messageId: string;
  index?: number | null;
  part: ToolPart;
}
/**
 * One tool call and, once it ran, its result; merged by `toolCallId`.
 */
export interface ToolPart {
  type: string;
  toolCallId: string;
  toolName: string;
  state: 'input-streaming' | 'input-available' | 'output-available' | 'output-error';
  input?: {
    [k: string]: JsonValue | undefined;
  };
  output?: ToolOutputData | null;
  errorText?: string | null;
}
/**
 * What a tool returned: `content` as the model saw it, `details` for front ends only (for the IPython
 * tool, the cell's rich nbformat outputs; for Edit, the diff; whatever the tool put there).
 */
export interface ToolOutputData {
  content?: (TextContent | ImageContent)[];
  details?: {
    [k: string]: unknown | undefined;
  };
}
export interface TextContent {
  type: 'text';
  text: string;
  textSignature?: string | null;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
}
/**
 * A message is final and persisted: replace the message `messageId` (a live id) with `message`.
 */
export interface MessageEndFrame {
  type: 'message-end';
  messageId: string;
  message: ChatMessage;
}
/**
 * A user or assistant message; `id` is its transcript entry id (a live id only while it streams).
 */
export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  parts?: (TextPart | ReasoningPart | ImagePart | ErrorPart | ToolPart)[];
  createdAt?: number | null;
  stopReason?: ('stop' | 'length' | 'toolUse' | 'error' | 'aborted') | null;
  provider?: string | null;
  model?: string | null;
}
export interface TextPart {
  type: 'text';
  text: string;
}
/**
 * The model's thinking, shown collapsed. `redacted` thinking has no readable text.
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  redacted?: boolean;
}
/**
 * An image the user attached (base64 `data`).
 */
export interface ImagePart {
  type: 'image';
  mimeType: string;
  data: string;
}
/**
 * Why an assistant message failed (its `stopReason` is `error`).
 */
export interface ErrorPart {
  type: 'error';
  message: string;
  title?: string | null;
}
/**
 * Tokens and cost of one assistant message, the session's running total, and how full the context is.
 */
export interface UsageFrame {
  type: 'usage';
  messageId: string;
  usage: Usage;
  total: Usage;
  contextTokens: number;
  contextWindow?: number | null;
}
export interface Usage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  totalTokens?: number;
  cost?: Cost;
}
/**
 * Dollars spent, per token kind.
 */
export interface Cost {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  total?: number;
}
export interface DoneFrame {
  type: 'done';
  runId: string;
  sessionId: string;
  stopReason: 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';
  errorMessage?: string | null;
}
/**
 * A request could not start its run (or the server failed mid-stream); ends a `POST chat` stream.
 */
export interface ErrorFrame {
  type: 'error';
  message: string;
  reason?: 'busy' | 'not-found' | 'invalid' | 'no-api-key' | 'unknown-model' | 'internal';
  retryable?: boolean;
  runId?: string | null;
}
/**
 * `start`: attempt, maxAttempts, delayMs, errorMessage. `end`: attempt, success, finalError?.
 */
export interface RetryFrame {
  type: 'retry';
  phase: 'start' | 'end';
  attempt: number;
  maxAttempts?: number | null;
  delayMs?: number | null;
  errorMessage?: string | null;
  success?: boolean | null;
  finalError?: string | null;
}
/**
 * `start`: reason. `end`: reason, aborted, willRetry, and errorMessage or summary/tokensBefore.
 */
export interface CompactionFrame {
  type: 'compaction';
  phase: 'start' | 'end';
  reason: 'manual' | 'threshold' | 'overflow';
  aborted?: boolean | null;
  willRetry?: boolean | null;
  errorMessage?: string | null;
  summary?: string | null;
  tokensBefore?: number | null;
}
/**
 * The user's shell command (`!cmd` in the terminal app), run in the session's directory, as it runs.
 *
 * `start`: executionId, command, includeInContext. `output`: executionId, chunk (printed since the last
 * `output`; `skipped` bytes before it were left out of a burst too large to send). `end`:
 * executionId, command, output (the tail the transcript keeps), exitCode (absent: cancelled),
 * cancelled, truncated, fullOutputPath, entryId, or `error` when it could not run.
 */
export interface ShellFrame {
  type: 'shell';
  phase: 'start' | 'output' | 'end';
  executionId: string;
  command?: string | null;
  includeInContext?: boolean | null;
  chunk?: string | null;
  skipped?: number | null;
  output?: string | null;
  exitCode?: number | null;
  cancelled?: boolean | null;
  truncated?: boolean | null;
  fullOutputPath?: string | null;
  entryId?: string | null;
  error?: string | null;
}
export interface QueueFrame {
  type: 'queue';
  steering?: string[];
  followUp?: string[];
}
export interface QuestionFrame {
  id: string;
  kind: 'confirm' | 'select' | 'input';
  title: string;
  message?: string | null;
  options?: QuestionOption[];
  multiple?: boolean;
  placeholder?: string | null;
  default?: string | null;
  timeoutMs: number;
  expiresAt: number;
  toolCallId?: string | null;
  type: 'question';
}
export interface QuestionOption {
  id: string;
  label: string;
  description?: string | null;
}
/**
 * A question is no longer pending: `answer` is set, or `cancelled` says why not.
 */
export interface QuestionResolvedFrame {
  type: 'question-resolved';
  id: string;
  answer?: (ConfirmAnswer | SelectAnswer | InputAnswer) | null;
  cancelled?: ('dismissed' | 'timeout' | 'abort' | 'shutdown') | null;
}
export interface ConfirmAnswer {
  kind: 'confirm';
  confirmed: boolean;
}
export interface SelectAnswer {
  kind: 'select';
  optionIds: string[];
  text?: string | null;
}
export interface InputAnswer {
  kind: 'input';
  text: string;
}
export interface NotifyFrame {
  type: 'notify';
  level?: 'info' | 'warning' | 'error';
  message: string;
}
/**
 * A keyed status line; `text` absent or null clears it.
 */
export interface StatusFrame {
  type: 'status';
  key: string;
  text?: string | null;
}
/**
 * A keyed block of lines; `lines` absent or null removes it.
 */
export interface WidgetFrame {
  type: 'widget';
  key: string;
  lines?: string[] | null;
}
export interface SessionInfoFrame {
  type: 'session-info';
  name?: string | null;
}
export interface ModelFrame {
  type: 'model';
  provider: string;
  id: string;
  contextWindow?: number | null;
}
export interface ThinkingLevelFrame {
  type: 'thinking-level';
  level: string;
}
/**
 * Refetch `chat/session`: the SSE cursor fell out of the ring, or the history changed (tree, fork).
 */
export interface ResyncRequiredFrame {
  type: 'resync-required';
  reason?: 'cursor-expired' | 'history-changed';
}
/**
 * First frame of an SSE connection (no `id:`); `cursor` is the newest sequence number.
 */
export interface ConnectedFrame {
  type: 'connected';
  sessionId: string;
  protocolVersion: number;
  schemaRevision: number;
  capabilities?: string[];
  cursor?: number;
}
/**
 * The in-flight state of a run that the transcript does not hold yet.
 */
export interface LiveRun {
  runId: string;
  message?: ChatMessage | null;
  tools?: LiveTool[];
}
/**
 * A tool part of the current run that has not finished, with where it sits.
 */
export interface LiveTool {
  messageId: string;
  index?: number | null;
  part: ToolPart;
}
/**
 * A pending question. `expiresAt` (ms since the epoch) = creation + `timeoutMs`.
 */
export interface Question {
  id: string;
  kind: 'confirm' | 'select' | 'input';
  title: string;
  message?: string | null;
  options?: QuestionOption[];
  multiple?: boolean;
  placeholder?: string | null;
  default?: string | null;
  timeoutMs: number;
  expiresAt: number;
  toolCallId?: string | null;
}
export interface ChatNameCommand {
  sessionId: string;
  command: 'name';
  name: string;
}
export interface ChatCompactCommand {
  sessionId: string;
  command: 'compact';
  instructions?: string | null;
}
/**
 * A new session from this one: `before` a user message (its text comes back to edit), or `at` an entry.
 */
export interface ChatForkCommand {
  sessionId: string;
  command: 'fork';
  entryId: string;
  position?: 'before' | 'at';
}
/**
 * A new session with this one's whole current branch.
 */
export interface ChatCloneCommand {
  sessionId: string;
  command: 'clone';
}
/**
 * The session tree; with `entryId`, first move the leaf there.
 */
export interface ChatTreeCommand {
  sessionId: string;
  command: 'tree';
  entryId?: string | null;
  summarize?: boolean;
}
export interface ChatExportCommand {
  sessionId: string;
  command: 'export';
  path?: string | null;
  format?: ('html' | 'jsonl' | 'ipynb') | null;
}
export interface ChatContextCommand {
  sessionId: string;
  command: 'context';
}
/**
 * Put back what the agent's file and notebook tools changed since the user message `entryId`, and go on
 * from before it (capability `rewind`).
 */
export interface ChatRewindCommand {
  sessionId: string;
  command: 'rewind';
  entryId: string;
}
export interface NameResult {
  command: 'name';
  name: string;
}
export interface CompactResult {
  command: 'compact';
  compacted: boolean;
  summary?: string | null;
  tokensBefore?: number | null;
}
/**
 * For `fork` and `clone`: the new session (none when cancelled) and the text to edit, if any.
 */
export interface ForkResult {
  command: 'fork';
  cancelled?: boolean;
  sessionId?: string | null;
  selectedText?: string | null;
}
export interface TreeResult {
  command: 'tree';
  nodes: TreeNode[];
  leafId?: string | null;
  editorText?: string | null;
}
/**
 * One transcript entry; `preview` is a short text for messages, `label` the user's bookmark.
 */
export interface TreeNode {
  id: string;
  parentId?: string | null;
  type: string;
  timestamp: string;
  role?: string | null;
  preview?: string | null;
  label?: string | null;
}
export interface ExportResult {
  command: 'export';
  path: string;
  format: 'html' | 'jsonl' | 'ipynb';
}
/**
 * How full the context is: `tokens` of `contextWindow`.
 */
export interface ContextResult {
  command: 'context';
  tokens: number;
  contextWindow?: number | null;
  percent?: number | null;
  messages?: number;
}
/**
 * After a rewind (capability `rewind`): the files and notebooks put back, those kept because someone
 * changed them since (`conflicts`), what could not be put back and why (`left`), the code that ran since
 * (calls per tool; `!` for the user's commands) and what it did to the kernel, which are not undone; and
 * the user message's text, to edit and send again. `summary` says all of it in a few lines.
 */
export interface RewindResult {
  command: 'rewind';
  editorText?: string | null;
  restored?: string[];
  conflicts?: string[];
  left?: string[];
  codeRuns?: {
    [k: string]: number | undefined;
  };
  kernel?: string[];
  summary?: string;
}
/**
 * Start a run; while one is going, `streamingBehavior` queues the message (without it: busy).
 */
export interface PromptCommand {
  id?: string | null;
  type: 'prompt';
  message: string;
  images?: ImageContent[];
  streamingBehavior?: ('steer' | 'follow_up') | null;
}
/**
 * Queue a message for the running turn (delivered after its current tool calls).
 */
export interface SteerCommand {
  id?: string | null;
  type: 'steer';
  message: string;
  images?: ImageContent[];
}
/**
 * Queue a message for when the run would otherwise stop.
 */
export interface FollowUpCommand {
  id?: string | null;
  type: 'follow_up';
  message: string;
  images?: ImageContent[];
}
export interface AbortCommand {
  id?: string | null;
  type: 'abort';
}
export interface ClearQueueCommand {
  id?: string | null;
  type: 'clear_queue';
}
export interface SetModelCommand {
  id?: string | null;
  type: 'set_model';
  provider: string;
  modelId: string;
}
export interface SetThinkingLevelCommand {
  id?: string | null;
  type: 'set_thinking_level';
  level: string;
}
/**
 * Switch the session's permission mode (`ask`, `accept-edits`, `plan`, `auto`; capability
 * `permissions`); a mode the server forbids is refused, naming the allowed ones.
 */
export interface SetPermissionModeCommand {
  id?: string | null;
  type: 'set_permission_mode';
  mode: string;
}
export interface CompactCommand {
  id?: string | null;
  type: 'compact';
  customInstructions?: string | null;
}
/**
 * Replace the session with a fresh one; `seedMessages` needs capability `seed-messages`.
 */
export interface NewSessionCommand {
  id?: string | null;
  type: 'new_session';
  cwd?: string | null;
  parentSession?: string | null;
  seedMessages?: SeedMessage[];
}
/**
 * A message a new session starts with (capability `seed-messages`).
 */
export interface SeedMessage {
  role: 'user' | 'assistant';
  text: string;
}
/**
 * Replace the session with a saved one, by id (a unique prefix will do) or path.
 */
export interface SwitchSessionCommand {
  id?: string | null;
  type: 'switch_session';
  session: string;
}
/**
 * Replace the session with a fork: `before` a user message (its text is returned) or `at` an entry.
 */
export interface ForkCommand {
  id?: string | null;
  type: 'fork';
  entryId: string;
  position?: 'before' | 'at';
}
/**
 * Move the leaf to `targetId` in the same file, optionally summarising the branch left behind.
 */
export interface NavigateTreeCommand {
  id?: string | null;
  type: 'navigate_tree';
  targetId: string;
  summarize?: boolean;
  customInstructions?: string | null;
  label?: string | null;
}
export interface ListSessionsCommand {
  id?: string | null;
  type: 'list_sessions';
  scope?: 'current' | 'all';
}
/**
 * Name a session; without `sessionId`, the connected one.
 */
export interface RenameSessionCommand {
  id?: string | null;
  type: 'rename_session';
  name: string;
  sessionId?: string | null;
}
export interface DeleteSessionCommand {
  id?: string | null;
  type: 'delete_session';
  sessionId: string;
}
export interface ExportCommand {
  id?: string | null;
  type: 'export';
  format?: 'html' | 'jsonl' | 'ipynb';
  path?: string | null;
}
/**
 * Answer a pending question; no `answer` dismisses it.
 */
export interface AnswerQuestionCommand {
  id?: string | null;
  type: 'answer_question';
  questionId: string;
  answer?: (ConfirmAnswer | SelectAnswer | InputAnswer) | null;
}
export interface GetStateCommand {
  id?: string | null;
  type: 'get_state';
}
export interface GetMessagesCommand {
  id?: string | null;
  type: 'get_messages';
}
export interface GetSessionViewCommand {
  id?: string | null;
  type: 'get_session_view';
}
/**
 * Label an entry of the transcript (a bookmark the tree shows and filters on); no `label` clears it.
 */
export interface SetLabelCommand {
  id?: string | null;
  type: 'set_label';
  entryId: string;
  label?: string | null;
}
/**
 * Replace the session with a copy of its active branch (root → leaf), as a new transcript.
 */
export interface CloneSessionCommand {
  id?: string | null;
  type: 'clone_session';
}
/**
 * Interrupt the code running in the session's kernel (a KeyboardInterrupt; its state is kept).
 */
export interface InterruptKernelCommand {
  id?: string | null;
  type: 'interrupt_kernel';
}
/**
 * Restart the session's kernel (its variables are gone; the model is told on its next call).
 */
export interface RestartKernelCommand {
  id?: string | null;
  type: 'restart_kernel';
}
/**
 * Put back what the file and notebook tools changed since the user message `entryId`, and continue from
 * before it as a new branch (capability `rewind`).
 */
export interface RewindCommand {
  id?: string | null;
  type: 'rewind';
  entryId: string;
}
/**
 * One session event, in the JSON form of `prime_jupyter.protocol.codec.event_to_wire`.
 */
export interface SessionEventMessage {
  type: 'session_event';
  event: {
    [k: string]: JsonValue | undefined;
  };
}
/**
 * The connection now shows another session (new, switched, forked): redraw from `snapshot`.
 */
export interface SessionReplacedMessage {
  type: 'session_replaced';
  snapshot: AttachSnapshot;
}
/**
 * Everything a client needs to draw a session, as of `cursor`; events after it follow on the stream.
 *
 * `entryIds[i]` is the transcript entry of `messages[i]`; `streamingMessage` is the assistant message
 * in flight (not in the transcript yet).
 */
export interface AttachSnapshot {
  state: ConnectionState;
  messages?: (UserMessage | AssistantMessage | ToolResultMessage)[];
  entryIds?: string[];
  streamingMessage?: AssistantMessage | null;
  pendingQuestions?: Question[];
  cursor?: number;
  earlierMessages?: number | null;
  runningShells?: RunningShell[];
}
/**
 * Where a session stands. `messageCount` and `contextTokens` are of the model's context (after a
 * compaction, the summary and what was kept); `header` is the transcript's header line
 * (`{"type": "session", "version", "id", "timestamp", "cwd", ...}`); `kernelId`/`kernelState` are those
 * of the `ipython` tool's kernel (None without one; the id is None until it started): in a server it
 * is one of `/api/kernels`, so a console can be opened on it.
 */
export interface ConnectionState {
  sessionId: string;
  cwd: string;
  sessionFile?: string | null;
  sessionName?: string | null;
  leafId?: string | null;
  model?: ModelRef | null;
  thinkingLevel?: string;
  availableThinkingLevels?: string[];
  isStreaming?: boolean;
  isCompacting?: boolean;
  steering?: string[];
  followUp?: string[];
  messageCount?: number;
  usage?: Usage | null;
  contextTokens?: number | null;
  contextWindow?: number | null;
  header?: {
    [k: string]: JsonValue | undefined;
  };
  kernelId?: string | null;
  kernelState?: ('stopped' | 'starting' | 'idle' | 'busy' | 'dead') | null;
  permissionMode?: string | null;
  allowedPermissionModes?: string[];
  budget?: BudgetStatus | null;
}
export interface ModelRef {
  provider: string;
  id: string;
}
/**
 * What was spent against the cost budgets (dollars); a limit None is no budget (`runtime.budget`).
 */
export interface BudgetStatus {
  sessionSpentUsd?: number;
  sessionLimitUsd?: number | null;
  daySpentUsd?: number | null;
  dayLimitUsd?: number | null;
}
export interface UserMessage {
  role: 'user';
  content: string | (TextContent | ImageContent)[];
  timestamp?: number;
}
export interface AssistantMessage {
  role: 'assistant';
  content?: (TextContent | ThinkingContent | ToolCall)[];
  api: string;
  provider: string;
  model: string;
  responseId?: string | null;
  usage?: Usage;
  stopReason?: 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';
  errorMessage?: string | null;
  timestamp?: number;
}
export interface ThinkingContent {
  type: 'thinking';
  thinking: string;
  thinkingSignature?: string | null;
  redacted?: boolean;
}
export interface ToolCall {
  type: 'toolCall';
  id: string;
  name: string;
  arguments?: {
    [k: string]: JsonValue | undefined;
  };
}
export interface ToolResultMessage {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content?: (TextContent | ImageContent)[];
  details?: {
    [k: string]: unknown | undefined;
  };
  isError?: boolean;
  timestamp?: number;
}
/**
 * A user's shell command (`!cmd`) running as of a snapshot: what its `shell_execution_start` told,
 * and the end of its output so far, bounded as an output chunk is (16 KB), `skipped` counting the bytes
 * left out before it. Its `shell_execution_output` and `_end` events follow the snapshot's cursor.
 */
export interface RunningShell {
  executionId: string;
  command: string;
  includeInContext?: boolean;
  output?: string;
  skipped?: number;
}
export interface ChatNewRequest {
  cwd?: string | null;
  model?: ModelRef | null;
  thinkingLevel?: string | null;
  permissionMode?: string | null;
  seedMessages?: SeedMessage[];
  notebookPath?: string | null;
}
export interface ChatNewResponse {
  session: SessionSummary;
  messages?: ChatMessage[];
  model?: ModelRef | null;
  thinkingLevel?: string | null;
}
/**
 * One session as lists show it. Times are milliseconds since the epoch.
 */
export interface SessionSummary {
  sessionId: string;
  title: string;
  name?: string | null;
  cwd: string;
  path?: string | null;
  createdAt: number;
  updatedAt: number;
  status: 'running' | 'idle' | 'saved';
  messageCount?: number;
  firstMessage?: string;
  parentSession?: string | null;
}
/**
 * Send a message. While a run is going, `streamingBehavior` queues it instead (without it: `busy`).
 */
export interface ChatRequest {
  sessionId: string;
  message: string;
  images?: ImageInput[];
  streamingBehavior?: ('steer' | 'followUp') | null;
  model?: ModelRef | null;
  thinkingLevel?: string | null;
}
/**
 * An image sent with a message (capability `images`); `data` is base64.
 */
export interface ImageInput {
  mimeType: string;
  data: string;
}
/**
 * A session as of `cursor` (the newest frame sequence): follow `chat/events?lastEventId=<cursor>` and
 * nothing is missed or seen twice. `messages` already include `live` (`hydration.apply_live`).
 */
export interface ChatSessionResponse {
  session: SessionSummary;
  messages: ChatMessage[];
  cursor?: number;
  live?: LiveRun | null;
  steering?: string[];
  followUp?: string[];
  pendingQuestions?: Question[];
  model?: ModelRef | null;
  thinkingLevel?: string | null;
  usage?: Usage | null;
  contextTokens?: number | null;
  contextWindow?: number | null;
  runningShells?: RunningShell[];
}
/**
 * One slash command: `name` without the slash, a one-line description, an argument hint, and where it
 * comes from (`builtin`, `template`, `skill` or `extension`).
 */
export interface CommandEntry {
  name: string;
  description: string;
  arguments?: string;
  source?: string;
}
/**
 * `GET chat/commands`: the commands a session (or a new one in the root) offers (capability `commands`).
 */
export interface CommandsResponse {
  commands: CommandEntry[];
}
export interface ErrorBody {
  message: string;
  reason?: 'busy' | 'not-found' | 'invalid' | 'no-api-key' | 'unknown-model' | 'internal';
}
/**
 * What a client checks first: versions (see `version.py`), capabilities, whether kernels can start.
 */
export interface InfoResponse {
  version: string;
  protocolVersion: number;
  schemaRevision: number;
  capabilities: string[];
  kernel: KernelStatus;
}
/**
 * Whether a session here can get a kernel (`ready`: its spec exists and the latest prewarm did not
 * fail; else `reason`), and how many session kernels are `starting` and `running` right now.
 */
export interface KernelStatus {
  ready: boolean;
  reason?: string | null;
  starting?: number;
  running?: number;
}
export interface ModelInfo {
  provider: string;
  id: string;
  name: string;
  reasoning?: boolean;
  images?: boolean;
  contextWindow: number;
  maxTokens: number;
  thinkingLevels?: string[];
  available?: boolean;
}
export interface ModelsResponse {
  models: ModelInfo[];
  current?: ModelRef | null;
  thinkingLevel?: string | null;
}
export interface OkResponse {
  ok: true;
  sessionId?: string | null;
}
/**
 * Answer a pending question; no `answer` dismisses it (the asker sees `dismissed`, not `false`).
 */
export interface QuestionAnswerRequest {
  sessionId: string;
  questionId: string;
  answer?: (ConfirmAnswer | SelectAnswer | InputAnswer) | null;
}
export interface RenameSessionRequest {
  sessionId: string;
  name: string;
}
export interface SessionRequest {
  sessionId: string;
}
export interface SessionsResponse {
  sessions: SessionSummary[];
}
export interface SetModelRequest {
  sessionId: string;
  model: ModelRef;
  thinkingLevel?: string | null;
}
export interface ProviderSetupRequest {
  kind: 'anthropic' | 'openai' | 'openai-compatible';
  provider?: string | null;
  key?: string | null;
  baseUrl?: string | null;
  model?: string | null;
  makeDefault?: boolean;
}
export interface ProviderStatus {
  provider: string;
  kind: 'anthropic' | 'openai' | 'openai-compatible';
  keySet: boolean;
  keySource?: string | null;
  keyFromEnvironment?: boolean;
  baseUrl?: string | null;
  models?: string[];
}
export interface ProviderTestResponse {
  ok: boolean;
  model: ModelRef;
  answer?: string | null;
  error?: string | null;
}
export interface ProvidersResponse {
  providers: ProviderStatus[];
  defaultModel?: ModelRef | null;
  editable?: boolean;
  agentDir: string;
}
export interface MessagesResult {
  messages: (UserMessage | AssistantMessage | ToolResultMessage)[];
  entryIds: string[];
}
export interface NavigateResult {
  cancelled?: boolean;
  editorText?: string | null;
}
export interface OkResult {
  ok: true;
}
/**
 * The message was accepted: it started a run, or it was queued (`steer` / `follow_up`).
 */
export interface PromptResult {
  queued?: ('steer' | 'follow_up') | null;
}
export interface QueueResult {
  steering?: string[];
  followUp?: string[];
}
/**
 * The session was replaced (unless `cancelled`); `selectedText` is the text to edit after a fork.
 */
export interface ReplacedResult {
  cancelled?: boolean;
  selectedText?: string | null;
  snapshot?: AttachSnapshot | null;
}
/**
 * A read-only view of the transcript: every entry as a flat tree, and where the leaf is.
 */
export interface SessionView {
  cwd: string;
  sessionDir?: string | null;
  sessionName?: string | null;
  leafId?: string | null;
  nodes?: TreeNode[];
  header?: {
    [k: string]: JsonValue | undefined;
  };
}
export interface SessionsResult {
  sessions: SessionSummary[];
}
/**
 * Attach to a session (by id or unique id prefix), or create one in `cwd` when no id is given.
 *
 * `model`, `thinkingLevel` and `permissionMode` apply to a session this request creates.
 */
export interface AttachRequest {
  sessionId?: string | null;
  cwd?: string | null;
  model?: ModelRef | null;
  thinkingLevel?: string | null;
  permissionMode?: string | null;
  clientProtocolVersion: number;
  clientSchemaRevision?: number;
}
/**
 * The server's versions and capabilities, and the session as of `snapshot.cursor`.
 */
export interface AttachResponse {
  version: string;
  protocolVersion: number;
  schemaRevision: number;
  capabilities: string[];
  snapshot: AttachSnapshot;
}
export interface CommandRequest {
  sessionId: string;
  command:
    | PromptCommand
    | SteerCommand
    | FollowUpCommand
    | AbortCommand
    | ClearQueueCommand
    | SetModelCommand
    | SetThinkingLevelCommand
    | SetPermissionModeCommand
    | CompactCommand
    | NewSessionCommand
    | SwitchSessionCommand
    | ForkCommand
    | NavigateTreeCommand
    | ListSessionsCommand
    | RenameSessionCommand
    | DeleteSessionCommand
    | ExportCommand
    | AnswerQuestionCommand
    | GetStateCommand
    | GetMessagesCommand
    | GetSessionViewCommand
    | SetLabelCommand
    | CloneSessionCommand
    | InterruptKernelCommand
    | RestartKernelCommand
    | RewindCommand;
}
/**
 * The last message of a `run` stream: the session is idle; `cursor` is its newest event.
 */
export interface RunEndedMessage {
  type: 'run_ended';
  cursor: number;
}
/**
 * The first message of a `run` stream: the server, and the session the run started in (`header`
 * is its transcript's header line); the session events after `cursor` are this run's.
 */
export interface RunStartedMessage {
  type: 'run_started';
  version: string;
  protocolVersion: number;
  schemaRevision: number;
  capabilities: string[];
  sessionId: string;
  header?: {
    [k: string]: JsonValue | undefined;
  };
  cursor: number;
}
/**
 * `POST run`: `message` (with `images`) as a prompt in the session `attach` would attach to. `model`,
 * `thinkingLevel` and `permissionMode` apply to a session this request creates, and are switched to on an
 * existing one (`jupyter prime -p` asks for `auto`: nobody answers approvals there).
 */
export interface RunRequest {
  sessionId?: string | null;
  cwd?: string | null;
  model?: ModelRef | null;
  thinkingLevel?: string | null;
  permissionMode?: string | null;
  message: string;
  images?: ImageContent[];
  clientProtocolVersion: number;
  clientSchemaRevision?: number;
}
export interface WaitRequest {
  sessionId: string;
}
/**
 * The session is idle; `cursor` is its newest event then.
 */
export interface WaitResult {
  state: ConnectionState;
  cursor: number;
}
export interface ShellRequest {
  sessionId: string;
  command: string;
  includeInContext?: boolean;
  executionId?: string | null;
}
/**
 * How the command ended. `exitCode` is None when it was cancelled (an abort stopped it).
 */
export interface ShellResult {
  command: string;
  output: string;
  exitCode?: number | null;
  cancelled?: boolean;
  truncated?: boolean;
  fullOutputPath?: string | null;
  includedInContext?: boolean;
  entryId?: string | null;
  executionId?: string | null;
}
