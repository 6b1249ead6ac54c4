// A small stand-in for core's `runTools` (not written yet when this package was): calls
// the model, runs the tools it asks for by name, feeds the results back as tool messages.
import type { ChatModel, ChatRequest, ChatResponse, Message } from '@toolwire/core';

export async function runToolLoop(options: {
  model: ChatModel;
  request: Omit<ChatRequest, 'messages'>;
  messages: Message[];
  tools: Record<string, (args: Record<string, unknown>) => unknown>;
  maxSteps?: number;
}): Promise<{ responses: ChatResponse[]; messages: Message[] }> {
  const messages = [...options.messages];
  const responses: ChatResponse[] = [];
  for (let step = 0; step < (options.maxSteps ?? 5); step++) {
    const response = await options.model.generate({ ...options.request, messages });
    responses.push(response);
    messages.push(response.message);
    if (response.toolCalls.length === 0) break;
    for (const call of response.toolCalls) {
      const run = options.tools[call.name];
      const content = call.invalid
        ? `Invalid call: ${call.invalid.message}`
        : run
          ? JSON.stringify(await run(call.arguments))
          : `Unknown tool ${call.name}`;
      messages.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content });
    }
  }
  return { responses, messages };
}
