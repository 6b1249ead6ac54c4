/** Something the provider could not honour exactly; the request still went ahead. */
export type Warning =
  | { type: 'unsupported-setting'; setting: string; message: string }
  | { type: 'unsupported-tool'; toolName: string; message: string }
  | { type: 'other'; message: string };
