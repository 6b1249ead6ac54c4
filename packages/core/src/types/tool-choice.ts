/** How the model may use the offered tools. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };
