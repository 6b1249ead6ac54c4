/**
 * The prefixes of the allowed names, made when first asked for: only text held back at the
 * end of a chunk asks, and making them costs more than scanning a short output (a server
 * that gets a new tool list with every request would pay it for every output).
 */
export class NamePrefixes {
  private readonly names: { keys(): Iterable<string> };
  private set: Set<string> | undefined;

  /** `names`: the allow-list's names as its keys (read when the prefixes are first asked for). */
  constructor(names: { keys(): Iterable<string> }) {
    this.names = names;
  }

  private paths: boolean | undefined;

  /** Whether `run` is a prefix of (or equal to) an allowed name. */
  has(run: string): boolean {
    if (this.set === undefined) {
      this.set = new Set<string>();
      for (const name of this.names.keys()) for (let i = 1; i <= name.length; i++) this.set.add(name.slice(0, i));
    }
    return this.set.has(run);
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
