import { login, logout, whoami } from '@toolwire/provider-chatgpt-oauth';
import type { ChatGPTAuthOptions, ChatGPTStatus } from '@toolwire/provider-chatgpt-oauth';
import { CliUsageError } from '../cli-error.ts';
import type { CommandContext } from '../context.ts';
import { eprintln, println, style } from '../output.ts';
import { visible } from '../terminal-text.ts';

const LOGIN_PROVIDERS = ['chatgpt'];

function checkProvider(provider: string): void {
  if (!LOGIN_PROVIDERS.includes(provider)) {
    throw new CliUsageError(`Cannot sign in to "${provider}".`, {
      hint: `sign-in exists for: ${LOGIN_PROVIDERS.join(', ')} (OpenAI uses OPENAI_API_KEY, Ollama needs none)`,
    });
  }
}

/**
 * Sign-in settings from the environment: `TOOLWIRE_CHATGPT_AUTH_FILE` (token file),
 * `CODEX_HOME` (Codex's sign-in), `TOOLWIRE_CHATGPT_ISSUER` (sign-in server, for testing).
 */
export function chatGPTAuthOptions(context: CommandContext): ChatGPTAuthOptions {
  const { env } = context;
  return {
    ...(env.TOOLWIRE_CHATGPT_AUTH_FILE ? { path: env.TOOLWIRE_CHATGPT_AUTH_FILE } : {}),
    ...(env.CODEX_HOME ? { codexHome: env.CODEX_HOME } : {}),
    ...(env.TOOLWIRE_CHATGPT_ISSUER ? { issuer: env.TOOLWIRE_CHATGPT_ISSUER } : {}),
    logger: { warn: (message) => eprintln(context.output, style(context.output, 'yellow', visible(message, { multiline: true }))) },
  };
}

/** `toolwire login chatgpt [--device] [--workspace <id>]`. */
export async function loginCommand(context: CommandContext, provider: string, options: { device?: boolean; workspace?: string }): Promise<void> {
  checkProvider(provider);
  const { output } = context;
  const status = await login({
    ...chatGPTAuthOptions(context),
    method: options.device === true ? 'device' : 'browser',
    ...(options.workspace !== undefined ? { allowedWorkspaceId: options.workspace } : {}),
    openUrl: (url) => {
      eprintln(output, `Open this page to sign in:\n  ${style(output, 'cyan', visible(url))}`);
    },
    onDeviceCode: ({ verificationUrl, userCode }) => {
      eprintln(output, `Open ${style(output, 'cyan', visible(verificationUrl))} and enter the code ${style(output, 'bold', visible(userCode))}`);
    },
  });
  printStatus(context, status);
}

/** `toolwire logout chatgpt`. */
export async function logoutCommand(context: CommandContext, provider: string): Promise<void> {
  checkProvider(provider);
  const result = await logout(chatGPTAuthOptions(context));
  if (!result.removed) println(context.output, 'Not signed in to ChatGPT; nothing to do.');
  else println(context.output, result.revoked ? 'Signed out of ChatGPT; the sign-in was revoked.' : 'Signed out of ChatGPT (the sign-in was deleted here; the server did not confirm revocation).');
}

/** `toolwire whoami`. */
export async function whoamiCommand(context: CommandContext, options: { json?: boolean }): Promise<void> {
  const status = await whoami(chatGPTAuthOptions(context));
  if (options.json === true) {
    println(context.output, JSON.stringify({ provider: 'chatgpt', ...status }));
    return;
  }
  printStatus(context, status);
}

function printStatus(context: CommandContext, status: ChatGPTStatus): void {
  const { output } = context;
  if (!status.signedIn) {
    println(output, `chatgpt: not signed in (${visible(status.message)})`);
    println(output, style(output, 'dim', 'sign in with `toolwire login chatgpt` (or `--device` without a browser)'));
    return;
  }
  // The e-mail, account and plan come from the sign-in server's token.
  const who = visible(status.email ?? status.accountId);
  const plan = status.planType !== undefined ? ` · plan ${visible(status.planType)}` : '';
  const expires = status.expiresAt !== undefined ? ` · token expires ${status.expiresAt.toISOString()}` : '';
  const source = status.store === 'codex' ? ` · from Codex${status.readOnly ? ' (read-only)' : ''}` : '';
  println(output, `chatgpt: signed in as ${style(output, 'bold', who)} (account ${visible(status.accountId)})${plan}${expires}${source}`);
}
