/** Wording for in-browser model sizes, shared by the picker and the cached list. */
export function formatMegabytes(megabytes: number): string {
  return megabytes >= 1000 ? `${(megabytes / 1000).toFixed(1)} GB` : `${Math.round(megabytes)} MB`;
}
