import type { BlockBody } from './native-opener.ts';
import { FUNCTIONGEMMA_QUOTE, GEMMA_QUOTE, parseGemmaCall } from './gemma-calls.ts';
import { isRecord, tryJson } from './json-extent.ts';
import type { NativeCall, NativeContext } from './native-call.ts';
import { parseApertusCalls, parseDeepseekCalls, parseKimiCalls } from './token-calls.ts';
import { DSML_XML, MINIMAX_XML, parseGlmCall, parseXmlCalls, QWEN_XML, SEED_XML } from './xml-calls.ts';
import { DSML_SPACED_XML, GCML_XML, MINICPM_XML } from './xml-calls.ts';
import { hunyuanBlockTags, IFM_TAGS, IQUEST_TAGS, parsePairCalls, SOLAR_TAGS } from './pair-tag-calls.ts';
import { parseSolarOpenCall } from './solar-calls.ts';
import { parseXtmlCalls } from './xtml-calls.ts';
import { parseMinimaxM3Calls } from './minimax-m3-calls.ts';
import { parsePlamoCalls } from './plamo-calls.ts';
import { parseHermesCall } from './hermes-calls.ts';

function endTokenLength(text: string, ends: readonly string[]): number {
  for (const end of ends) if (text.endsWith(end)) return end.length;
  return 0;
}

/**
 * DSML may wrap all arguments in one `arguments` or `input` parameter (vLLM unwraps it). A
 * wrapper whose value is a string holds the object as JSON text (DSML writes it with
 * `string="true"`; a `string="false"` JSON string is read the same, the value alone being
 * known here): unwrapped only where the tool's schema is known and has no such property (else
 * it may be a string argument of that name).
 */
function unwrapDsml(call: NativeCall, context: NativeContext): NativeCall {
  const args = call.args;
  if (args === undefined) return call;
  const keys = Object.keys(args);
  const key = keys[0];
  if (keys.length !== 1 || (key !== 'arguments' && key !== 'input')) return call;
  const properties = context.schemaOf(call.name)?.properties;
  if (properties !== undefined && Object.hasOwn(properties, key)) return call;
  let inner = args[key];
  if (typeof inner === 'string' && properties !== undefined) inner = tryJson(inner)?.value;
  return isRecord(inner) ? { ...call, args: inner } : call;
}

/**
 * The calls in a closed native block (`text` runs from its opener through its closing
 * token). Calls are in order; each `end` is where its source ends in `text`.
 */
export function parseBlock(body: BlockBody, text: string, ends: readonly string[], openerLength: number, context: NativeContext): NativeCall[] {
  const to = text.length - endTokenLength(text, ends);
  switch (body) {
    case 'qwen-xml':
      return parseXmlCalls(text, 0, text.length, QWEN_XML, context);
    case 'seed-xml':
      return parseXmlCalls(text, 0, text.length, SEED_XML, context);
    case 'minimax-xml':
      return parseXmlCalls(text, 0, text.length, MINIMAX_XML, context);
    case 'dsml':
      return parseXmlCalls(text, 0, text.length, DSML_XML, context).map((call) => unwrapDsml(call, context));
    case 'dsml-spaced':
      return parseXmlCalls(text, 0, text.length, DSML_SPACED_XML, context).map((call) => unwrapDsml(call, context));
    case 'gcml':
      return parseXmlCalls(text, 0, text.length, GCML_XML, context);
    case 'hunyuan':
      return parsePairCalls(text, 0, text.length, hunyuanBlockTags(text, openerLength), context);
    case 'iquest':
      return parsePairCalls(text, 0, text.length, IQUEST_TAGS, context);
    case 'ifm':
      return parsePairCalls(text, 0, text.length, IFM_TAGS, context);
    case 'minicpm':
      return parseXmlCalls(text, 0, text.length, MINICPM_XML, context);
    case 'plamo':
      return parsePlamoCalls(text, openerLength, to);
    case 'minimax-m3':
      return parseMinimaxM3Calls(text, openerLength, to, context);
    case 'xtml':
      return parseXtmlCalls(text, openerLength, to);
    case 'solar2':
      return parsePairCalls(text, 0, text.length, SOLAR_TAGS, context);
    case 'solar': {
      const call = parseSolarOpenCall(text, openerLength, to);
      return call === undefined ? [] : [{ ...call, end: text.length }];
    }
    case 'glm': {
      const call = parseGlmCall(text, openerLength, to, context);
      return call === undefined ? [] : [{ ...call, end: text.length }];
    }
    case 'deepseek':
      return parseDeepseekCalls(text, openerLength, to, context);
    case 'kimi':
      return parseKimiCalls(text, openerLength, to);
    case 'gemma':
    case 'functiongemma': {
      const call = parseGemmaCall(text, openerLength, to, body === 'gemma' ? GEMMA_QUOTE : FUNCTIONGEMMA_QUOTE);
      return call === undefined ? [] : [{ ...call, end: text.length }];
    }
    case 'apertus':
      return parseApertusCalls(text, openerLength, to);
    case 'hermes': {
      const call = parseHermesCall(text, openerLength, to);
      return call === undefined ? [] : [{ ...call, end: text.length }];
    }
    default: {
      const unknown: never = body;
      throw new Error(`unknown block ${String(unknown)}`);
    }
  }
}
