/**
 * Prefix sets by the names they were made from (see `prefixSet`), shared by every parser with
 * the same names: a server gets the same tools with every request (a new array each time), and
 * each response is a new parser, for which making the set cost more than streaming a short
 * answer. Bounded: the oldest set goes first, and a long list (resolved once per array, see
 * `resolveExtractOptions`) is not kept here.
 */
const PREFIX_SETS = new Map<string, ReadonlySet<string>>();
const MAX_PREFIX_SETS = 32;
/** Longest key (about the names' total length) whose set is kept in `PREFIX_SETS`. */
const MAX_KEY_LENGTH = 1024;

/** Every prefix of `names` (each name included); the same set for the same names in the same order. */
function prefixSet(names: { keys(): Iterable<string> }): ReadonlySet<string> {
  // Each name after its length: no two lists of names make the same key.
  let key = '';
  for (const name of names.keys()) {
    key += `${name.length}:${name}`;
    if (key.length > MAX_KEY_LENGTH) break;
  }
  const kept = key.length > MAX_KEY_LENGTH ? undefined : PREFIX_SETS.get(key);
  if (kept !== undefined) return kept;
  const set = new Set<string>();
  for (const name of names.keys()) for (let i = 1; i <= name.length; i++) set.add(name.slice(0, i));
  if (key.length <= MAX_KEY_LENGTH) {
    if (PREFIX_SETS.size >= MAX_PREFIX_SETS) {
      const oldest = PREFIX_SETS.keys().next();
      if (oldest.done !== true) PREFIX_SETS.delete(oldest.value);
    }
    PREFIX_SETS.set(key, set);
  }
  return set;
}

/** Up to this many names, a run is compared with each name in place, the first IN_PLACE_ASKS times. */
const IN_PLACE_NAMES = 8;
/**
 * Then the set is made: a short answer (one parser per response) asks a few dozen times, where
 * making the set costs more than all its questions; a long stream asks at every character of a
 * name, where a set lookup is faster.
 */
const IN_PLACE_ASKS = 64;

/**
 * The prefixes of the allowed names, as asked for: only text held back at the end of a chunk
 * asks. A few names are compared in place; the prefixes of more are made into a set when
 * first asked for (that costs more than scanning a short output, see `PREFIX_SETS`).
 */
export class NamePrefixes {
  private readonly names: { keys(): Iterable<string> };
  /** The names, when few (`IN_PLACE_NAMES`); `false` when more; undefined until first asked. */
  private few: string[] | false | undefined;
  private asked = 0;
  private set: ReadonlySet<string> | undefined;

  /** `names`: the allow-list's names as its keys (read when the prefixes are first asked for; a few names are kept). */
  constructor(names: { keys(): Iterable<string> }) {
    this.names = names;
  }

  private paths: boolean | undefined;

  /** Whether `run` is a prefix of (or equal to) an allowed name. */
  has(run: string): boolean {
    // Kept small (the scanner asks at every character of a held-back name): the rest is out of line.
    const set = this.set;
    return set !== undefined ? set.has(run) : this.hasBeforeSet(run);
  }

  /** `has` until the set is made (see IN_PLACE_ASKS). */
  private hasBeforeSet(run: string): boolean {
    const few = this.few ?? this.readFew();
    if (few === false || ++this.asked > IN_PLACE_ASKS) return (this.set = prefixSet(this.names)).has(run);
    for (let k = 0; k < few.length; k++) if (few[k]?.startsWith(run) === true) return true;
    return false;
  }

  /** The names when few, or `false`. */
  private readFew(): string[] | false {
    const names: string[] = [];
    for (const name of this.names.keys()) {
      if (names.length === IN_PLACE_NAMES) return (this.few = false);
      names.push(name);
    }
    return (this.few = names);
  }

  /** Whether an allowed name is a path (`ns::tool`): only then may a held-back run hold a `:`. */
  hasPaths(): boolean {
    if (this.paths === undefined) {
      this.paths = false;
      for (const name of this.names.keys()) if (name.includes('::')) this.paths = true;
    }
    return this.paths;
  }
}
