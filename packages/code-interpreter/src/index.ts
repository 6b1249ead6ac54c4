export { ContainerExpiredError, InterpreterUnavailableError, UnsupportedUploadError } from './errors.ts';
export type { CodeInterpreterFile, CodeInterpreterOutput, CodeInterpreterValue } from './code-interpreter-value.ts';
export type { CodeInterpreterEvent, CodeInterpreterEventHandler } from './events.ts';
export { MEMORY_LIMITS } from './openai/memory-limit.ts';
export type { MemoryLimit } from './openai/memory-limit.ts';
export type { AutoContainerOptions, CodeInterpreterContainer, WireContainer } from './openai/container-config.ts';
export {
  CODE_INTERPRETER_OUTPUTS_INCLUDE,
  CODE_INTERPRETER_TOOL_NAME,
  openAICodeInterpreter,
} from './openai/openai-code-interpreter.ts';
export type {
  CodeInterpreterOutputHandler,
  OpenAICodeInterpreterConfig,
  OpenAICodeInterpreterOptions,
} from './openai/openai-code-interpreter.ts';
export { codeInterpreterResult } from './openai/code-interpreter-result.ts';
export { readCodeInterpreterCall } from './openai/code-interpreter-call.ts';
export type { CodeInterpreterCallItem } from './openai/code-interpreter-call.ts';
export { annotationsFromResponseOutput, containerFilesFromAnnotations } from './openai/container-file-citations.ts';
export { toContainerExpiredError } from './openai/expired-container.ts';
export { checkUploadFile, DEFAULT_MAX_UPLOAD_BYTES, SUPPORTED_UPLOAD_EXTENSIONS } from './openai/supported-upload-files.ts';
export type { UploadFileFacts } from './openai/supported-upload-files.ts';
export { createContainerClient } from './openai/openai-containers.ts';
export type {
  ContainerClient,
  ContainerClientOptions,
  ContainerFileInfo,
  ContainerInfo,
  CreateContainerOptions,
  UploadSource,
} from './openai/openai-containers.ts';
export { withContainerRecovery, withoutCodeInterpreterCalls } from './openai/container-recovery.ts';
export type { ContainerRecoveryOptions } from './openai/container-recovery.ts';
export { localCodeInterpreter } from './local/local-code-interpreter.ts';
export type {
  LocalCodeInterpreter,
  LocalCodeInterpreterArgs,
  LocalCodeInterpreterOptions,
  LocalRunOptions,
} from './local/local-code-interpreter.ts';
export type { SandboxBackend } from './local/sandbox-backend.ts';
