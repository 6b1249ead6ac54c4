/** Lays out rows as aligned columns under a header; the last column is not padded. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, col) => Math.max(h.length, ...rows.map((row) => (row[col] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, col) => (col === cells.length - 1 ? cell : cell.padEnd(widths[col] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}
