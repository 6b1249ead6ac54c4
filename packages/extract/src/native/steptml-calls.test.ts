import { describe, expect, it } from 'vitest';
import type { NativeContext } from './native-call.ts';
import { parseBlock } from './parse-block.ts';

const ENDS = ['<｜tool_calls_end｜>'];
const OPENER = '<｜tool_calls_begin｜>';
const editFile: NativeContext = {
  schemaOf: () => ({ type: 'object', properties: { old_string: { type: 'string' }, indent: { type: 'integer' }, enabled: { type: 'boolean' } } }),
};

function read(body: string, context: NativeContext = { schemaOf: () => undefined }): { name: string; args: Record<string, unknown> | undefined }[] {
  return parseBlock('deepseek', `${OPENER}${body}${ENDS[0] ?? ''}`, ENDS, OPENER.length, context).map(({ name, args }) => ({ name, args }));
}

describe('Step-3 StepTML calls inside DeepSeek-style tokens', () => {
  it('reads the invokes, with or without `function<｜tool_sep｜>NAME` before them', () => {
    expect(read('<｜tool_call_begin｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜>')).toEqual([
      { name: 'get_weather', args: { city: 'Tokyo' } },
    ]);
    expect(
      read('<｜tool_call_begin｜>function<｜tool_sep｜>get_time\n<steptml:invoke name="get_time"><steptml:parameter name="tz">UTC</steptml:parameter></steptml:invoke><｜tool_call_end｜>'),
    ).toEqual([{ name: 'get_time', args: { tz: 'UTC' } }]);
  });

  it("keeps a string's surrounding space and types the others by the schema", () => {
    const body =
      '<｜tool_call_begin｜><steptml:invoke name="edit_file"><steptml:parameter name="old_string">    if x:\n</steptml:parameter>' +
      '<steptml:parameter name="indent"> 4 </steptml:parameter><steptml:parameter name="enabled"> true </steptml:parameter></steptml:invoke><｜tool_call_end｜>';
    expect(read(body, editFile)).toEqual([{ name: 'edit_file', args: { old_string: '    if x:\n', indent: 4, enabled: true } }]);
  });

  it('still reads DeepSeek JSON arguments in the same tokens', () => {
    expect(read('<｜tool_call_begin｜>get_time<｜tool_sep｜>{"tz": "UTC"}<｜tool_call_end｜>')).toEqual([{ name: 'get_time', args: { tz: 'UTC' } }]);
  });
});
