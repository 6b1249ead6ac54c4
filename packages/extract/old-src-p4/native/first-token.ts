/**
 * The earliest occurrence in `s` (from `from`) of any of `tokens`, or undefined. Visits each occurrence of
 * the tokens' first characters up to the earliest match only, so a token that never occurs
 * does not cost a scan of the whole rest of the text (which, per block, would be quadratic).
 */
export function firstToken(s: string, tokens: readonly string[], from = 0): { at: number; token: string } | undefined {
  let best: { at: number; token: string } | undefined;
  const firsts: string[] = [];
  for (const token of tokens) {
    const first = token.charAt(0);
    if (!firsts.includes(first)) firsts.push(first);
  }
  for (const first of firsts) {
    // Bounded by the best match so far: a later group never looks past it.
    const limit = best === undefined ? s.length : best.at;
    let at = s.indexOf(first, from);
    while (at >= 0 && at < limit) {
      let found: string | undefined;
      for (const token of tokens) {
        if (token.charAt(0) === first && s.startsWith(token, at)) {
          found = token;
          break;
        }
      }
      if (found !== undefined) {
        best = { at, token: found };
        break;
      }
      at = s.indexOf(first, at + 1);
    }
  }
  return best;
}
