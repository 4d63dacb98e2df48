/**
 * An integer with its thousands separated by commas (10000 is "10,000"), as
 * `toLocaleString("en")` writes it, for the contract's descriptions. Without Intl: its first use
 * loads the locale data, tens of milliseconds of CPU wherever a module's top level calls it.
 */
export function digitGroups(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
